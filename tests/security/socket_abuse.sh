#!/usr/bin/env bash
# Local peers that misbehave (BEHAVIOR.md §7, §8): tests/security/abuse.mjs throws
# random bytes, invalid JSON, oversized and half-written frames, too many
# requests and too many connections at the daemon's socket, and hangs up
# abruptly, while calls are in flight. The daemon stays up, those calls
# complete with their own results, and a new client works afterwards.
# Usage: tests/security/socket_abuse.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/../interop/lib.sh" "$@"
source "$ROOT/tests/security/lib.sh"

MAX_FRAME=4096
MAX_CONNECTIONS=6
MAX_IN_FLIGHT=4
StartServer SDK_PORT sdk-server "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 5
echo "{\"mcpServers\": {\"sdk\": {\"url\": \"http://127.0.0.1:$SDK_PORT/mcp\"}}}" >"$TMP/mcp.json"
cat >"$TMP/settings.json" <<EOF
{"ipc": {"max_frame_bytes": $MAX_FRAME, "max_connections_per_uid": $MAX_CONNECTIONS,
         "max_in_flight_per_connection": $MAX_IN_FLIGHT}}
EOF
StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
Cli wait --timeout 60
ExpectRc 0 "mcpgw wait: the server is ready"

set +e
timeout 90 "$NODE" "$ROOT/tests/security/abuse.mjs" "$SOCK" "$MAX_FRAME" "$MAX_CONNECTIONS" \
  "$MAX_IN_FLIGHT" >"$TMP/abuse.out" 2>&1
set -e
while IFS= read -r line; do
  case "$line" in
    "PASS "*) Pass "${line#PASS }" ;;
    "FAIL "*) Fail "${line#FAIL }" ;;
    *) echo "  $line" ;;
  esac
done <"$TMP/abuse.out"
Check "the abuse driver ran its checks" grep -q "in-flight call slow-2" "$TMP/abuse.out"

Check "mcpgwd is still running" kill -0 "$DAEMON_PID"
Cli call sdk echo '{"text": "after the storm"}'
ExpectRc 0 "a new client's call works afterwards"
Check "and gets its result" test "$OUT" = "after the storm"
Cli status --json
Check "status shows no call left in flight" test "$(printf '%s' "$OUT" | Json 'd.servers[0].in_flight')" = 0
StopDaemon
Finish
