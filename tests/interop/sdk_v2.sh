#!/usr/bin/env bash
# The official TypeScript SDK v2 (revision 2026-07-28 beside 2025) on both
# sides of the gateway (tests/fixtures/sdk2.mjs):
# - upstream, its createMcpHandler server, serving both eras and 2026-07-28
#   only: mcpgwd, never told the era, finds 2026-07-28 on both; the SDK checks
#   every request's headers (Mcp-Param-Region included) and a tool added while
#   running reaches the listing through subscriptions/listen;
# - downstream, its Client driving `mcpgw stdio`: negotiating the era it
#   lands on 2026-07-28, pinned to 2025 it gets the initialize handshake, and
#   both list the two tools and call through them.
# Usage: tests/interop/sdk_v2.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

StartServer BOTH_PORT sdk2-both "$NODE" "$FIXTURES/sdk2.mjs" serve --port 0
StartServer STRICT_PORT sdk2-strict "$NODE" "$FIXTURES/sdk2.mjs" serve --port 0 --strict
cat >"$TMP/mcp.json" <<JSON
{"mcpServers": {
  "sdk2": {"url": "http://127.0.0.1:$BOTH_PORT/mcp"},
  "sdk2-strict": {"url": "http://127.0.0.1:$STRICT_PORT/mcp"}
}}
JSON
StartDaemon "$TMP/mcp.json"
Log() { HttpJson GET "http://127.0.0.1:$1/__log"; }

Cli wait --timeout 30
ExpectRc 0 "mcpgw wait"
for ns in sdk2 sdk2-strict; do
  Check "status: $ns is ready" test "$(StatusField "$ns" status)" = ready
  Check "status: $ns speaks 2026-07-28" test "$(StatusField "$ns" protocol_version)" = 2026-07-28
  Cli call "$ns" echo '{"text":"hello","region":"eu-west"}'
  ExpectRc 0 "call $ns echo (the SDK checks Mcp-Name and Mcp-Param-Region)"
  Check "call $ns echo answers" test "$OUT" = "hello (eu-west)"
done
Check "the strict server never got initialize" \
  test "$(Log "$STRICT_PORT" | Json 'd.requests.filter((r) => r.method === "initialize").length')" = 0

# The SDK announces tool changes on the subscriptions/listen stream.
HttpJson POST "http://127.0.0.1:$STRICT_PORT/__add-tool" >/dev/null
HasAdded() {
  Cli tools sdk2-strict
  printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name).includes("added")' | grep -q true
}
Check "a tool added while running is listed" WaitFor 15 HasAdded

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

StopDaemon
Finish
