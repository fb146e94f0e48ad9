#!/usr/bin/env bash
# The official MCP Inspector in CLI mode (Node 22) as the MCP host, driving
# `mcpgw stdio` bridged to an mcpgwd that serves the demo server: the host sees
# exactly the two tools, each works, and an unknown namespace is an isError
# result, not a protocol error.
# Usage: tests/interop/inspector.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

LAUNCHER="$FIXTURES/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$LAUNCHER" ]; then
  Fail "inspector or Node 22 missing under tests/fixtures/node_modules (rerun scripts/install-node-deps.sh)"
  Finish
fi

StartServer DEMO_PORT demo "$NODE" "$ROOT/demo/demo-server.mjs" --port 0
cat >"$TMP/mcp.json" <<JSON
{"mcpServers": {"demo": {"url": "http://127.0.0.1:$DEMO_PORT/mcp"}}}
JSON
StartDaemon "$TMP/mcp.json"
Cli wait --timeout 30
ExpectRc 0 "mcpgw wait"

# Inspect ARGS...: one inspector CLI run against `mcpgw stdio`; the JSON result
# in OUT, exit status in RC. The inspector keeps its state under HOME.
mkdir -p "$TMP/home"
Inspect() {
  RC=0
  HOME="$TMP/home" timeout 60 "$NODE22" "$LAUNCHER" --cli --format json -q \
    -e "MCPGW_SOCKET=$SOCK" "$@" -- "$MCPGW" stdio >"$TMP/inspect.out" 2>"$TMP/inspect.err" || RC=$?
  OUT="$(cat "$TMP/inspect.out")"
  ERR="$(cat "$TMP/inspect.err")"
}
CallTool() {
  Inspect --method tools/call --tool-name "$1" --tool-args-json "$2"
}
ResultText() { printf '%s' "$OUT" | Json 'd.result.content.map((b) => b.text).join("\n\n")'; }

Inspect --method tools/list
ExpectRc 0 "inspector tools/list"
Check "tools/list shows exactly get_dynamic_tools and call_dynamic_tool" \
  test "$(printf '%s' "$OUT" | Json 'd.result.tools.map((t) => t.name).sort()')" = '["call_dynamic_tool","get_dynamic_tools"]'
Check "both tools have an object input schema and a description" \
  test "$(printf '%s' "$OUT" | Json 'd.result.tools.every((t) => t.inputSchema.type === "object" && t.description.length > 0)')" = true

CallTool get_dynamic_tools '{}'
ExpectRc 0 "get_dynamic_tools"
Check "get_dynamic_tools lists demo ready with its three tools" \
  test "$(ResultText | Json 'd.servers')" = '[{"namespace":"demo","status":"ready","tools":["add","echo","now"]}]'

CallTool get_dynamic_tools '{"namespace":"demo","toolName":"add"}'
ExpectRc 0 "get_dynamic_tools for one tool"
Check "get_dynamic_tools gives add's schema" \
  test "$(ResultText | Json '[d.namespace, d.tool.name, Object.keys(d.tool.inputSchema.properties).sort()]')" = '["demo","add",["a","b"]]'

CallTool call_dynamic_tool '{"namespace":"demo","toolName":"echo","arguments":{"text":"through the inspector"}}'
ExpectRc 0 "call_dynamic_tool demo/echo"
Check "call_dynamic_tool returns the server's text" test "$(ResultText)" = "through the inspector"
Check "a successful call is not isError" test "$(printf '%s' "$OUT" | Json 'd.result.isError === true')" = false

CallTool call_dynamic_tool '{"namespace":"demo","toolName":"add","arguments":{"a":20,"b":22}}'
Check "call_dynamic_tool demo/add answers 42" test "$(ResultText)" = 42

# The inspector exits 5 for a tool result with isError: true.
CallTool call_dynamic_tool '{"namespace":"nosuch","toolName":"echo","arguments":{}}'
Check "an unknown namespace is an isError result" test "$(printf '%s' "$OUT" | Json 'd.result.isError')" = true
Check "its message names the known namespace demo" grep -q demo "$TMP/inspect.out"
Check "the inspector reports it as a tool error, not a protocol failure (exit $RC)" test "$RC" = 5

Check "mcpgwd is still running" kill -0 "$DAEMON_PID"
Finish
