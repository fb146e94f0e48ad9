#!/usr/bin/env bash
# The official TypeScript SDK v2 (revision 2026-07-28 beside 2025) on both
# sides of the gateway (tests/fixtures/sdk2.mjs):
# - upstream, its createMcpHandler server: mcpgwd gets ready and calls it;
# - downstream, its Client driving `mcpgw stdio`: negotiating the era it
#   lands on 2026-07-28, pinned to 2025 it gets the initialize handshake, and
#   both list the two tools and call through them.
# Usage: tests/interop/sdk_v2.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

StartServer BOTH_PORT sdk2-both "$NODE" "$FIXTURES/sdk2.mjs" serve --port 0
cat >"$TMP/mcp.json" <<JSON
{"mcpServers": {
  "sdk2": {"url": "http://127.0.0.1:$BOTH_PORT/mcp"}
}}
JSON
StartDaemon "$TMP/mcp.json"

Cli wait --timeout 30
ExpectRc 0 "mcpgw wait"
Check "status: sdk2 is ready" test "$(StatusField sdk2 status)" = ready
Cli call sdk2 echo '{"text":"hello","region":"eu-west"}'
ExpectRc 0 "call sdk2 echo"
Check "call sdk2 echo answers" test "$OUT" = "hello (eu-west)"

# ---- the SDK v2 client as the host of `mcpgw stdio` --------------------------------
Bridge() {  # ERA: one client run; its JSON line in OUT, status in RC
  RC=0
  SDK2_NAMESPACE=sdk2 timeout 60 "$NODE" "$FIXTURES/sdk2.mjs" client --era "$1" -- "$MCPGW" stdio \
    >"$TMP/bridge.out" 2>"$TMP/bridge.err" || RC=$?
  OUT="$(cat "$TMP/bridge.out")"
  ERR="$(cat "$TMP/bridge.err")"
}
for era in auto legacy; do
  Bridge "$era"
  ExpectRc 0 "the SDK v2 client ($era) through mcpgw stdio"
  want=modern
  [ "$era" = legacy ] && want=legacy
  Check "it lands on the $want era" test "$(printf '%s' "$OUT" | Json 'd.era')" = "$want"
  Check "it sees the two tools" \
    test "$(printf '%s' "$OUT" | Json 'd.tools.join(",")')" = "call_dynamic_tool,get_dynamic_tools"
  Check "get_dynamic_tools names echo" \
    test "$(printf '%s' "$OUT" | Json 'JSON.parse(d.listed).tools.some((t) => t.name === "echo")')" = true
  Check "call_dynamic_tool answers through the bridge" \
    test "$(printf '%s' "$OUT" | Json 'd.called')" = "through the bridge (eu-west)"
done

kill -TERM "$DAEMON_PID"
Finish
