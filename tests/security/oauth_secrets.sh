#!/usr/bin/env bash
# OAuth secrets never leave the daemon (BEHAVIOR.md §8, §9): access tokens, refresh
# tokens, client secrets (registered and configured) and authorization codes
# issued by tests/fixtures/oauth-server.mjs --sentinel all start with
# SENTINEL_. They go through a first authorization, a tool that answers with
# the caller's token in its error, refreshes, an invalid_grant whose
# description quotes the refresh token, a new authorization, `mcpgw login`,
# status and logout. Then the daemon's debug log, every CLI output and the
# call log are searched: no sentinel, and none of the PKCE verifiers the
# daemon made (read back from the fixture). The token files are checked to
# hold the sentinels, so a leak would be seen.
# Usage: tests/security/oauth_secrets.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/../interop/lib.sh" "$@"
source "$ROOT/tests/security/lib.sh"

export XDG_STATE_HOME="$TMP/state"
unset BROWSER DISPLAY WAYLAND_DISPLAY
export MCPGW_BROWSER="$INTEROP_DIR/oauth_browser.sh"
export MCPGW_SEC_CLIENT_SECRET='SENTINEL_CSCONF_2d8e'
StartServer AS_PORT oauth-server "$NODE" "$FIXTURES/oauth-server.mjs" --port 0 --ttl 3 --sentinel \
  --client "preset:$MCPGW_SEC_CLIENT_SECRET"
AS="http://127.0.0.1:$AS_PORT"
AsCount() { HttpJson GET "$AS/__state" | Json "d.counts.$1"; }
Post() { HttpJson POST "$AS/$1" >/dev/null; }

printf '%s\n' "{\"mcpServers\": {
  \"dyn\": {\"url\": \"$AS/mcp\"},
  \"pre\": {\"url\": \"$AS/mcp?as=pre\",
          \"oauth\": {\"clientId\": \"preset\", \"clientSecret\": \"\${env:MCPGW_SEC_CLIENT_SECRET}\"}}
}}" >"$TMP/mcp.json"
printf '%s\n' "{\"call_log\": {\"path\": \"$TMP/calls.jsonl\"}}" >"$TMP/settings.json"
StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
: >"$TMP/collected"
Cli wait --timeout 30
ExpectRc 0 "mcpgw wait"
Collect wait
for ns in dyn pre; do
  Check "$ns is ready after authorizing" test "$(StatusField "$ns" status)" = ready
  Cli call "$ns" whoami
  ExpectRc 0 "call $ns whoami"
  Collect "call $ns whoami"
  Cli call "$ns" leak
  ExpectRc 1 "a tool error quoting the token is a backend error ($ns)"
  Collect "call $ns leak"
  Check "the quoted token reaches the caller redacted ($ns)" grep -q "rejected token <redacted>" "$TMP/cli.err"
done

# Refreshes ahead of expiry (3 s tokens), then a 401 and an invalid_grant.
Refreshed() { test "$(AsCount token_refresh)" -ge 3; }
Check "tokens are refreshed" WaitFor 15 Refreshed
Post __revoke_refresh
Post __expire_access
Cli call dyn whoami
ExpectRc 0 "a call after invalid_grant authorizes anew"
Collect "call after invalid_grant"
Check "invalid_grant happened" test "$(AsCount invalid_grant)" -ge 1

# login (with the URL printed), status, tools, logout.
Cli login pre --no-browser --timeout 5
Collect "login --no-browser"
Cli login pre
ExpectRc 0 "mcpgw login pre"
Collect "login"
for args in "status" "status --json" "tools" "tools dyn" "tools pre whoami"; do
  # shellcheck disable=SC2086
  Cli $args
  Collect "$args"
done
Cli logout dyn
ExpectRc 0 "mcpgw logout dyn"
Collect logout
Cli call dyn whoami
Collect "call after logout"

# ---- the secrets did exist, so a leak would show ----------------------------
Check "the token files hold sentinel access tokens" grep -q "SENTINEL_AT_" "$XDG_STATE_HOME"/mcpgw/oauth/server-*.json
Check "the token files hold sentinel refresh tokens" grep -q "SENTINEL_RT_" "$XDG_STATE_HOME"/mcpgw/oauth/server-*.json
Check "the registration holds a sentinel client secret" grep -q "SENTINEL_CS_" "$XDG_STATE_HOME"/mcpgw/oauth/client-*.json
Check "the configured client secret was used" grep -q "SENTINEL_CSCONF_2d8e" "$XDG_STATE_HOME"/mcpgw/oauth/server-*.json
Check "the daemon logged the invalid_grant" grep -q "invalid_grant" "$TMP/mcpgwd.log"
Check "the call log has lines" test -s "$TMP/calls.jsonl"

# ---- and none came out ---------------------------------------------------------
NoSentinel() {  # NoSentinel NAME FILE
  local hits
  hits="$(grep -c "SENTINEL" "$2" || true)"
  if [ "$hits" = 0 ]; then
    Pass "no sentinel in $1"
  else
    Fail "no sentinel in $1" "$hits lines, e.g. $(grep -m 3 "SENTINEL" "$2" | cut -c1-300)"
  fi
}
NoSentinel "the daemon log" "$TMP/mcpgwd.log"
NoSentinel "CLI output (status, tools, calls, login, logout)" "$TMP/collected"
NoSentinel "the call log" "$TMP/calls.jsonl"
# The PKCE verifiers are the daemon's own secrets: the fixture saw them.
HttpJson GET "$AS/__state" | Json 'd.seen.verifiers.join("\n")' >"$TMP/verifiers"
Check "the fixture saw the PKCE verifiers ($(wc -l <"$TMP/verifiers"))" test "$(wc -l <"$TMP/verifiers")" -ge 3
for file in "$TMP/mcpgwd.log" "$TMP/collected" "$TMP/calls.jsonl"; do
  Check "no PKCE verifier in $(basename "$file")" bash -c '! grep -qFf "$1" "$2"' _ "$TMP/verifiers" "$file"
done
StopDaemon
Finish
