#!/usr/bin/env bash
# OAuth against a real, certified authorization server (docs/AUTH.md,
# BEHAVIOR.md §9): mcpgwd and the mcpgw CLI against
# tests/fixtures/oidc-provider-server.mjs, panva's oidc-provider (dynamic
# registration, PKCE, resource indicators issuing 4 s JWT access tokens for
# the MCP server, rotating refresh tokens with reuse detection, revocation)
# in front of an MCP server built on the official SDK that verifies those
# JWTs itself. The browser is tests/interop/oidc_browser.sh, which signs in on
# the provider's own login page and presses Continue on its consent page.
#
# Covers: the first login through those pages, with prompt=consent so that
# offline_access is honoured and a refresh token issued; several expiries
# bridged by refreshes without a browser; rotation, checked on the
# provider's side (no spent refresh token is ever presented again); SIGTERM
# while the provider is slow to answer a refresh it has already rotated, and
# a restart that goes on with the NEW refresh token and no new login;
# `mcpgw logout` revoking the grant at the provider; a server that answers
# 401 and offers no OAuth (an error naming the header keys sent, no browser,
# no login suggested, `mcpgw login` refused, the usual backoff); and no token,
# code, verifier or client secret in any log or status output.
# Never skipped: a missing fixture package fails it.
# Usage: tests/interop/oidc_provider.sh BUILD_DIR
set -euo pipefail
MCPGW_INTEROP_TIMEOUT="${MCPGW_INTEROP_TIMEOUT:-90}"
source "$(dirname "$0")/lib.sh" "$@"

for package in oidc-provider jose express @modelcontextprotocol/sdk; do
  if [ ! -f "$FIXTURES/node_modules/$package/package.json" ]; then
    Fail "tests/fixtures/node_modules/$package is missing (run scripts/install-node-deps.sh)"
    Finish
  fi
done

export XDG_STATE_HOME="$TMP/state"
export OIDC_BROWSER_LOG="$TMP/browser.log"
BROWSER_SCRIPT="$INTEROP_DIR/oidc_browser.sh"
unset BROWSER DISPLAY WAYLAND_DISPLAY MCPGW_BROWSER
OAUTH_DIR="$XDG_STATE_HOME/mcpgw/oauth"

StartServer PORT oidc-provider "$NODE" "$FIXTURES/oidc-provider-server.mjs" --port 0 --ttl 4
BASE="http://127.0.0.1:$PORT"
State() { HttpJson GET "$BASE/__state" | Json "d.$1"; }
Count() { State "counts.$1"; }
SetControl() {
  "$NODE" -e 'fetch(process.argv[1], {method: "POST", headers: {"content-type": "application/json"},
    body: process.argv[2]}).then((r) => r.text())' "$BASE/__control" "$1" >/dev/null
}
Pages() { [ -f "$OIDC_BROWSER_LOG" ] && tr '\n' ' ' <"$OIDC_BROWSER_LOG" | sed 's/ $//' || true; }
Status() { StatusField "$1" "$2"; }
OAuthField() { StatusField oidc oauth | Json "d.$1"; }
IsReady() { test "$(Status oidc status)" = ready; }
# Every status the test reads is kept, to look for secrets in it at the end.
KeepStatus() {
  Cli status
  printf '%s\n' "$OUT" "$ERR" >>"$TMP/outputs.txt"
  Cli status --json
  printf '%s\n' "$OUT" "$ERR" >>"$TMP/outputs.txt"
}

printf '{"mcpServers": {"oidc": {"url": "%s/mcp"}, "keyed": {"url": "%s/keyed/mcp", "headers": {"X-Api-Key": "wrong-key"}}}}\n' \
  "$BASE" "$BASE" >"$TMP/mcp.json"

# --- the first login, through the provider's own pages ---
started=$SECONDS
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
Check "the server becomes ready after the login" WaitFor 20 IsReady
Check "the browser signed in and consented ($(Pages))" test "$(Pages)" = "login consent callback 200"
Check "the authorization request asked for consent (prompt=consent)" \
  test "$(Count authorize_prompt_consent)/$(Count authorize)" = 1/1
Check "the provider issued a refresh token with the code" \
  test "$(Count token_code)/$(Count code_without_refresh)" = 1/0
Check "status: authorized as alice, refreshable" \
  test "$(OAuthField state)/$(OAuthField subject)/$(OAuthField refreshable)" = authorized/alice/true
Cli call oidc whoami
ExpectRc 0 "a call with the provider's JWT"
Check "the MCP server verified the token: alice with mcp:tools ($OUT)" test "$OUT" = "alice scope=mcp:tools"
KeepStatus

# --- several expiries (4 s tokens), refreshed without a browser ---
refreshes="$(Count token_refresh)"
for i in 1 2 3 4 5; do
  sleep 2
  Cli call oidc echo '{"text": "still here"}'
  Check "call $i across the expiries ($RC: ${OUT:0:60}${ERR:0:120})" test "$RC/$OUT" = "0/still here"
done
Check "at least three refreshes in 10 s ($(($(Count token_refresh) - refreshes)))" \
  test "$(($(Count token_refresh) - refreshes))" -ge 3
Check "no new login for them" test "$(Count authorize)/$(Pages)" = "1/login consent callback 200"
Check "rotation: every refresh presented the newest refresh token" \
  test "$(Count stale_refresh_presented)/$(Count reuse_detected)/$(Count grant_errors)" = 0/0/0
KeepStatus

# --- a server that answers 401 and offers no OAuth ---
# Read between two of its retries (each one shows loading for a moment).
KeyedError() { test "$(Status keyed status)" = error; }
Check "it is an error (status $(Status keyed status))" WaitFor 5 KeyedError
reason="$(Status keyed reason)"
Check "its reason names HTTP 401 and the header keys sent ($reason)" \
  grep -qF "HTTP 401 Unauthorized (sent headers: X-Api-Key)" <<<"$reason"
Check "  and suggests no mcpgw login" bash -c '! grep -q "mcpgw login" <<<"$1"' _ "$reason"
Check "  and holds no header value" bash -c '! grep -q "wrong-key" <<<"$1"' _ "$reason"
Check "  and shows no OAuth block" test "$(Status keyed oauth)" = null
MCPGW_BROWSER="$BROWSER_SCRIPT" Cli login keyed
Check "mcpgw login keyed fails (exit $RC) saying it offers no OAuth (${ERR:0:200})" \
  bash -c '[ "$1" -ne 0 ] && grep -q "offers no OAuth" <<<"$2"' _ "$RC" "$ERR"
Check "no browser was opened for it" test "$(Pages)" = "login consent callback 200"
# The normal backoff of a failed server (1 s doubling): a handful of 401s
# since the start, not a storm.
attempts="$(Count keyed_401)"
Check "its 401s follow the backoff: $attempts in $((SECONDS - started)) s" \
  bash -c '[ "$1" -ge 2 ] && [ "$1" -le 8 ]' _ "$attempts"

# --- SIGTERM while the provider is slow to answer a refresh it has rotated ---
SetControl '{"slow_refresh_ms": 4500}'
Refreshing() { test "$(State slowed_in_flight)" -ge 1; }
Check "a refresh is under way, rotated at the provider, its answer held back" WaitFor 10 Refreshing
stopping=$SECONDS
StopDaemon
Check "mcpgwd waited for the answer past its 3 s grace ($((SECONDS - stopping)) s)" \
  test $((SECONDS - stopping)) -ge 3
Check "the provider's late answer (already rotated) reached mcpgwd" \
  test "$(Count late_answers)/$(Count late_answers_unheard)" = 1/0
Check "mcpgwd took it in before exiting" \
  bash -c 'sed -n "/finishing its token refresh before stopping/,\$p" "$1" | grep -q "token refreshed"' _ "$TMP/mcpgwd.log"
SetControl '{"slow_refresh_ms": 0}'

# --- a restart goes on with the NEW refresh token, without a login ---
refreshes="$(Count token_refresh)"
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
Check "after the restart the server is ready" WaitFor 20 IsReady
Refreshed() { test "$(Count token_refresh)" -gt "$refreshes"; }
Check "and refreshes again" WaitFor 10 Refreshed
Check "with the newest refresh token: none spent presented, no reuse detected" \
  test "$(Count stale_refresh_presented)/$(Count reuse_detected)/$(Count grant_errors)" = 0/0/0
Check "no new login ($(Pages))" test "$(Count authorize)/$(Pages)" = "1/login consent callback 200"
Cli call oidc whoami
ExpectRc 0 "a call after the restart"
KeepStatus

# --- logout revokes the grant at the provider ---
Check "before logout the grant's newest refresh token is live" test "$(State newest_refresh_live)" = "[true]"
Cli logout oidc
ExpectRc 0 "mcpgw logout oidc"
printf '%s\n' "$OUT" "$ERR" >>"$TMP/outputs.txt"
Revoked() { test "$(Count grants_revoked)" -ge 1; }
Check "the provider revoked the grant" WaitFor 10 Revoked
Check "  and its refresh token is dead there" test "$(State newest_refresh_live)" = "[false]"
Check "the token file is gone" test -z "$(find "$OAUTH_DIR" -name 'server-*.json')"
KeepStatus
StopDaemon

# --- no secret anywhere a user looks ---
HttpJson GET "$BASE/__secrets" | sed '/^$/d' >"$TMP/secrets.txt"
cp "$OIDC_BROWSER_LOG" "$TMP/pages.txt"
Check "the provider issued or was sent secrets ($(wc -l <"$TMP/secrets.txt"))" \
  test "$(wc -l <"$TMP/secrets.txt")" -ge 10
for f in mcpgwd.log outputs.txt pages.txt; do
  Check "no token, code, verifier or client secret in $f" \
    bash -c '! grep -qF -f "$1" "$2"' _ "$TMP/secrets.txt" "$TMP/$f"
done
echo "took $((SECONDS - started)) s"
Finish
