#!/usr/bin/env bash
# OAuth through the whole gateway (BEHAVIOR.md §9): mcpgwd and the mcpgw CLI against
# tests/fixtures/oauth-server.mjs (an MCP server with its own authorization
# server: short-lived tokens, rotating refresh tokens, a control API), with
# MCPGW_BROWSER set to the stand-in browser. Covers the first authorization,
# refresh ahead of expiry and after a 401, rotation, invalid_grant, a restart
# that reuses the tokens, the files' permissions, `mcpgw login` when no browser
# can open, logout, bad answers seen through `mcpgw login` (malformed
# metadata, an issuer mismatch, a token endpoint answering HTML or 500, a
# wrong state), a second login racing the first, metadata for another
# resource, three attempts then a config change, and a configured
# Authorization header.
# Usage: tests/interop/oauth.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

BROWSER_SCRIPT="$INTEROP_DIR/oauth_browser.sh"
export XDG_STATE_HOME="$TMP/state"
export OAUTH_BROWSER_LOG="$TMP/browser.log"
unset BROWSER DISPLAY WAYLAND_DISPLAY MCPGW_BROWSER
OAUTH_DIR="$XDG_STATE_HOME/mcpgw/oauth"

StartServer AS_PORT oauth-server "$NODE" "$FIXTURES/oauth-server.mjs" --port 0 --ttl 3
AS="http://127.0.0.1:$AS_PORT"
AsCount() { HttpJson GET "$AS/__state" | Json "d.counts.$1"; }
Control() { HttpJson POST "$AS/$1" >/dev/null; }
SetControl() {  # SetControl JSON: changes how the fixture behaves
  "$NODE" -e 'fetch(process.argv[1], {method: "POST", body: process.argv[2]}).then((r) => r.text())' \
    "$AS/__control" "$1" >/dev/null
}
Opened() { [ -f "$OAUTH_BROWSER_LOG" ] && wc -l <"$OAUTH_BROWSER_LOG" || echo 0; }
Mode() { stat -c %a "$1" 2>/dev/null || echo none; }
Status() { StatusField prot "$1"; }
OAuthField() { StatusField prot oauth | Json "d.$1"; }
IsReady() { test "$(Status status)" = ready; }

printf '{"mcpServers": {"prot": {"url": "%s/mcp"}}}\n' "$AS" >"$TMP/mcp.json"

# --- the first connection authorizes by itself ---
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
Check "the server becomes ready after authorizing" WaitFor 20 IsReady
Check "one browser opening ($(Opened))" test "$(Opened)" = 1
Cli call prot whoami
ExpectRc 0 "call whoami"
Check "the token says who ($OUT)" test "$OUT" = "alice scope=mcp:tools offline_access"
Check "status: authorized as alice" test "$(OAuthField state)/$(OAuthField subject)" = authorized/alice
Check "status: the token's expiry is shown" test "$(OAuthField expires_unix)" -gt 0
Check "token directory is 0700 ($(Mode "$OAUTH_DIR"))" test "$(Mode "$OAUTH_DIR")" = 700
for f in "$OAUTH_DIR"/*.json; do
  Check "$(basename "$f") is 0600 ($(Mode "$f"))" test "$(Mode "$f")" = 600
done
Check "no temporary file is left" test -z "$(find "$OAUTH_DIR" -name '*.tmp-*')"

# --- refresh ahead of expiry (3 s tokens), with rotation ---
RefreshedTwice() { test "$(AsCount token_refresh)" -ge 2; }
Check "tokens are refreshed ahead of expiry" WaitFor 15 RefreshedTwice
Cli call prot whoami
ExpectRc 0 "calls go on across refreshes"
Check "rotated refresh tokens were used once each (no invalid_grant)" test "$(AsCount invalid_grant)" = 0
Check "no new authorization for a refresh" test "$(AsCount authorize)" = 1

# --- a 401 refreshes once ---
before="$(AsCount token_refresh)"
Control __expire_access
Cli call prot whoami
ExpectRc 0 "a call after the server dropped the token succeeds"
Check "it was refreshed on the 401" test "$(AsCount token_refresh)" -gt "$before"
Check "still one authorization" test "$(AsCount authorize)" = 1

# --- invalid_grant starts a new authorization ---
Control __revoke_refresh
Control __expire_access
Cli call prot whoami
ExpectRc 0 "a call after the refresh token died succeeds"
Check "invalid_grant was answered" test "$(AsCount invalid_grant)" -ge 1
Check "and a new authorization ran" test "$(AsCount authorize)" = 2

# --- a restart reuses the stored tokens ---
StopDaemon
authorizations="$(AsCount authorize)"
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
Check "after a restart the server is ready" WaitFor 20 IsReady
Check "without a new authorization" test "$(AsCount authorize)" = "$authorizations"
StopDaemon

# --- no browser: the user logs in with the CLI ---
rm -rf "$OAUTH_DIR"
StartDaemon "$TMP/mcp.json"
NotLoading() { test "$(Status status)" != loading; }
WaitFor 20 NotLoading || true
Check "without a browser the server asks for a login ($(Status reason))" \
  test "$(Status reason)" = 'authorization required: run "mcpgw login prot"'
opened="$(Opened)"
MCPGW_BROWSER="$BROWSER_SCRIPT" Cli login prot
ExpectRc 0 "mcpgw login prot"
Check "login says who ($OUT)" test "$OUT" = "prot: logged in as alice"
Check "the CLI opened the browser" test "$(Opened)" = $((opened + 1))
Cli call prot whoami
ExpectRc 0 "call after login"

# --- logout ---
Cli logout prot
ExpectRc 0 "mcpgw logout prot"
Check "the token file is gone" test -z "$(find "$OAUTH_DIR" -name 'server-*.json')"
Check "the token was revoked" test "$(AsCount revoke)" -ge 1
Cli call prot whoami
Check "a call after logout fails ($RC: $ERR)" test "$RC" -ne 0
Check "status: login required" test "$(OAuthField state)" = "login required"

# --- bad answers through `mcpgw login`: a reason, no token, the daemon lives ---
NoToken() { test -z "$(find "$OAUTH_DIR" -name 'server-*.json')"; }
Reset() { SetControl '{"prm":"ok","issuer":"","token":"ok","authorize":"ok"}'; }
BadLogin() {  # BadLogin CONTROL REASON [LOGIN ARGS...]: a login the fixture spoils
  local control="$1" reason="$2"
  shift 2
  SetControl "$control"
  MCPGW_BROWSER="$BROWSER_SCRIPT" Cli login prot "$@"
  Check "login with $control fails (exit $RC) with its reason ($(tail -n 1 <<<"$ERR"))" \
    bash -c '[ "$1" -ne 0 ] && grep -qF -- "$2" <<<"$3"' _ "$RC" "$reason" "$ERR"
  Check "  and writes no token" NoToken
  Check "  and mcpgwd lives on" kill -0 "$DAEMON_PID"
  Reset
}
BadLogin '{"prm":"malformed"}' "protected resource metadata is not valid JSON"
BadLogin '{"issuer":"https://other-issuer.example"}' \
  'authorization server metadata names issuer "https://other-issuer.example"'
BadLogin '{"token":"html"}' "token endpoint answered text/html, not a JSON object"
BadLogin '{"token":"500"}' "token endpoint answered HTTP 500"
# A callback with a wrong state is turned away (the real one may still come);
# the user's wait ends with a timeout.
BadLogin '{"authorize":"wrong-state"}' "no authorization within 2 s" --timeout 2
Check "the wrong state was refused" grep -q "its state matches no login in progress" "$TMP/mcpgwd.log"

# --- a second login racing the first: the first ends, the second wins ---
"$MCPGW" login prot --no-browser --timeout 20 >"$TMP/first.out" 2>"$TMP/first.err" &
first=$!
ShowsUrl() { grep -q "open this URL" "$TMP/first.out"; }
WaitFor 10 ShowsUrl || true
first_url="$(sed -n 's/^  \(http.*\)$/\1/p' "$TMP/first.out" | head -n 1)"
codes="$(AsCount token_code)"
MCPGW_BROWSER="$BROWSER_SCRIPT" Cli login prot
ExpectRc 0 "a second login while the first waits succeeds"
first_rc=0
wait "$first" || first_rc=$?
Check "the first login ends (exit $first_rc): $(tail -n 1 "$TMP/first.err")" \
  bash -c '[ "$1" -ne 0 ] && grep -q "superseded by a newer login" "$2"' _ "$first_rc" "$TMP/first.err"
Check "the first login's URL was printed" test -n "$first_url"
# Its callback comes late: the listener is closed or refuses its state.
"$BROWSER_SCRIPT" "$first_url" 2>/dev/null || true
Check "its late callback is turned away: one code exchanged" test "$(AsCount token_code)" = $((codes + 1))
Check "and the server stays ready" IsReady
Cli logout prot
StopDaemon

# --- metadata for another resource: refused with a reason, no token ---
SetControl '{"prm":"other-resource"}'
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
WaitFor 20 NotLoading || true
Check "metadata for another resource is refused ($(Status reason))" \
  grep -q 'protected resource metadata is for "https://evil.example.com/mcp"' <<<"$(Status reason)"
Check "and no token was written" test -z "$(find "$OAUTH_DIR" -name 'server-*.json')"
StopDaemon
SetControl '{"prm":"ok"}'

# --- a server that keeps refusing: three attempts, then a config change ---
SetControl '{"authorize":"deny"}'
opened="$(Opened)"
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
GaveUp() { grep -q '^authorization failed 3 times' <<<"$(Status reason)"; }
Check "after three refusals the server stops asking: authorization failed 3 times" WaitFor 30 GaveUp
Check "three browser openings ($(($(Opened) - opened)))" test $(($(Opened) - opened)) = 3
SetControl '{"authorize":"ok"}'
printf '{"mcpServers": {"prot": {"url": "%s/mcp", "headers": {"X-Changed": "1"}}}}\n' "$AS" >"$TMP/mcp.json"
Check "a config change for the server authorizes it again" WaitFor 20 IsReady
StopDaemon

# --- a configured Authorization header: no OAuth ---
printf '{"mcpServers": {"prot": {"url": "%s/mcp", "headers": {"Authorization": "Bearer mine"}}}}\n' "$AS" >"$TMP/mcp.json"
opened="$(Opened)"
MCPGW_BROWSER="$BROWSER_SCRIPT" StartDaemon "$TMP/mcp.json"
WaitFor 20 NotLoading || true
Check "with its own Authorization header the server is not logged in to ($(Status reason))" \
  grep -q "mcp.json sets its Authorization header" <<<"$(Status reason)"
Check "no browser opened" test "$(Opened)" = "$opened"
Check "status: no OAuth" test "$(Status oauth)" = null
StopDaemon
Finish
