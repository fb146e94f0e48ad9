#!/usr/bin/env bash
# The client under test for the conformance suite's auth scenarios: mcpgwd
# plus the mcpgw CLI, authorizing by itself with MCPGW_BROWSER set to
# oauth_browser.sh (which follows the authorization server's redirect to the
# daemon's loopback callback). The mcp.json entry carries an `oauth` object
# where the scenario hands over a client (pre-registration) or expects a
# Client ID Metadata Document (basic-cimd).
#
# Two ways to run:
# - CONFORMANCE_AUTH_DAEMON=DIR (conformance_auth.sh sets it): one mcpgwd
#   serves every scenario. DIR holds its mcp.json, socket, log and pid; the
#   driver adds the scenario's server under its own namespace (the file is
#   edited under a lock, then SIGHUP), checks it, and removes it on exit.
# - unset: the driver starts a daemon of its own in a temp dir.
# Usage: conformance_auth_driver.sh BUILD_DIR SERVER_URL (the suite appends the URL)
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SERVER_URL (the conformance suite appends the URL)" >&2
  exit 2
fi
URL="$2"
set -- "$1"
export MCPGW_INTEROP_BOUNDED=1
source "$(dirname "$0")/lib.sh" "$@"

SCENARIO="${MCP_CONFORMANCE_SCENARIO:-}"
SHARED="${CONFORMANCE_AUTH_DAEMON:-}"
export MCPGW_BROWSER="$INTEROP_DIR/oauth_browser.sh"
unset BROWSER DISPLAY WAYLAND_DISPLAY

oauth='null'
case "$SCENARIO" in
  auth/pre-registration)
    oauth="$(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-}" |
      Json '({clientId: d.client_id, clientSecret: d.client_secret})')"
    ;;
  auth/basic-cimd)
    # The scenario's authorization server accepts this URL as a client id.
    oauth='{"clientMetadataUrl":"https://conformance-test.local/client-metadata.json"}'
    ;;
esac

# EditConfig FILE NS [URL OAUTH]: adds (or, without URL, removes) a server.
EditConfig() {
  "$NODE" -e '
    const fs = require("fs");
    const [file, ns, url, oauth] = process.argv.slice(1);
    let d = { mcpServers: {} };
    try { d = JSON.parse(fs.readFileSync(file, "utf8")); } catch (e) {}
    if (url) d.mcpServers[ns] = { url, oauth: JSON.parse(oauth) };
    else delete d.mcpServers[ns];
    fs.writeFileSync(file + ".new", JSON.stringify(d, null, 1) + "\n");
    fs.renameSync(file + ".new", file);
  ' "$@"
}

if [ -n "$SHARED" ]; then
  # One daemon for all: this scenario's namespace, e.g. auth_scope_step_up.
  NS="${SCENARIO//[^A-Za-z0-9]/_}"
  [ -n "$NS" ] || NS=conformance
  export MCPGW_SOCKET="$SHARED/mcpgw.sock"
  LOG="$SHARED/mcpgwd.log"
  XDG_STATE_HOME="$SHARED/state"
  Reconfigure() {
    flock "$SHARED/mcp.json.lock" bash -c "$(declare -f EditConfig); NODE='$NODE' EditConfig \"\$@\"" \
      _ "$SHARED/mcp.json" "$@"
    kill -HUP "$(cat "$SHARED/mcpgwd.pid")"
  }
  Reconfigure "$NS" "$URL" "$oauth"
  # Leave the shared file as it was found, however this script ends.
  trap 'Reconfigure "$NS" || true; Cleanup' EXIT
else
  NS=conformance
  export XDG_STATE_HOME="$TMP/state"
  LOG="$TMP/mcpgwd.log"
  EditConfig "$TMP/mcp.json" "$NS" "$URL" "$oauth"
  StartDaemon "$TMP/mcp.json"
fi

# Row: this server's status row, "STATUS<TAB>OAUTH STATE<TAB>REASON" (one
# CLI and one node run); "absent" until a reload has added it.
Row() {
  Cli status --json
  printf '%s' "$OUT" | NS="$NS" Json '((s) => s ? [s.status, s.oauth ? s.oauth.state : "none", s.reason].join("\t") : "absent")(d.servers.find((s) => s.namespace === process.env.NS))'
}
Settled() { ROW="$(Row)"; case "$ROW" in absent | loading*) return 1 ;; esac; }
ROW=absent
WaitFor 40 Settled || true
status="${ROW%%$'\t'*}"
reason="${ROW##*$'\t'}"
case "$SCENARIO" in
  auth/scope-retry-limit)
    # The server refuses every token: three authorizations, then an error.
    Check "status: $NS is in error ($ROW)" test "$status" = error
    Cli call "$NS" test-tool
    Check "a call is refused as not_ready (exit $RC)" test "$RC" = 4
    ;;
  auth/resource-mismatch)
    Check "status: $NS refuses the metadata ($reason)" \
      grep -q "protected resource metadata is for" <<<"$reason"
    ;;
  *)
    Check "status: $NS is ready and authorized ($ROW)" test "$(cut -f1,2 <<<"$ROW")" = $'ready\tauthorized'
    # A call: the step-up scenario asks for more scopes here.
    Cli call "$NS" test-tool
    ExpectRc 0 "call test-tool"
    Check "test-tool answers ($OUT)" test "$OUT" = test
    ;;
esac
# No token of this server in the log or the status.
Cli status --json
cp "$TMP/cli.out" "$TMP/status.json"
# Its files name its origin (the resource, maybe the endpoints): "ORIGIN/ or "ORIGIN".
origin="$(sed -E 's|^(https?://[^/]+).*|\1|' <<<"$URL")"
tokens=0
for secret_file in "$XDG_STATE_HOME"/mcpgw/oauth/server-*.json; do
  [ -f "$secret_file" ] && grep -qE -- "\"${origin}[/\"]" "$secret_file" || continue
  tokens=$((tokens + 1))
  token="$(Json 'd.access_token' <"$secret_file")"
  Check "the access token is not in the daemon's log" bash -c '! grep -qF -- "$1" "$2"' _ "$token" "$LOG"
  Check "the access token is not in the status" bash -c '! grep -qF -- "$1" "$2"' _ "$token" "$TMP/status.json"
done
if [ "$status" = ready ]; then Check "the server's tokens are stored ($tokens files)" test "$tokens" = 1; fi

if [ -z "$SHARED" ]; then
  kill -TERM "$DAEMON_PID"
  stopped=false
  for _ in $(seq 50); do
    if ! kill -0 "$DAEMON_PID" 2>/dev/null; then stopped=true; break; fi
    sleep 0.1
  done
  Check "mcpgwd exits within 5 s of SIGTERM" $stopped
fi
Finish
