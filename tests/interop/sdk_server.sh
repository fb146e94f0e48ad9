#!/usr/bin/env bash
# mcpgwd against tests/fixtures/sdk-server.mjs (the official SDK, stateful
# sessions, 25 tools over three tools/list pages): readiness, listing, the
# shapes of call results, list_changed, session expiry, cancellation of a
# dropped call, and the headers every request carries.
# Usage: tests/interop/sdk_server.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

StartServer SDK_PORT sdk-server "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 25 --page-size 10
StartServer JSON_PORT sdk-json "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 7 --page-size 3 --json-response
SDK="http://127.0.0.1:$SDK_PORT"
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "sdk": {"url": "$SDK/mcp"},
  "sdk-json": {"url": "http://127.0.0.1:$JSON_PORT/mcp"}
}}
EOF
StartDaemon "$TMP/mcp.json"
SdkLog() { HttpJson GET "$SDK/__log"; }

# ---- ready, listing ------------------------------------------------------------
Cli wait --timeout 30
ExpectRc 0 "mcpgw wait returns once both servers are ready"
Check "status: sdk is ready" test "$(StatusField sdk status)" = ready
Check "status: sdk has all 25 tools (three pages)" test "$(StatusField sdk tools)" = 25
Check "status: sdk-json (JSON responses) is ready with 7 tools" test "$(StatusField sdk-json tools)" = 7

Cli tools
ExpectRc 0 "mcpgw tools"
want='["add","echo","fail","image","slow","tool_06","tool_07","tool_08","tool_09","tool_10","tool_11","tool_12","tool_13","tool_14","tool_15","tool_16","tool_17","tool_18","tool_19","tool_20","tool_21","tool_22","tool_23","tool_24","tool_25"]'
got="$(printf '%s' "$OUT" | Json 'd.servers.find((s) => s.namespace === "sdk").tools')"
if [ "$got" = "$want" ]; then Pass "mcpgw tools lists the 25 tools in name order"; else Fail "mcpgw tools order" "$got"; fi
got="$(printf '%s' "$OUT" | Json 'd.servers.map((s) => s.namespace)')"
Check "mcpgw tools lists the servers in name order" test "$got" = '["sdk","sdk-json"]'

Cli tools sdk echo
ExpectRc 0 "mcpgw tools sdk echo"
got="$(printf '%s' "$OUT" | Json '[d.namespace, d.tool.name, d.tool.description, d.tool.inputSchema.properties.text.type, d.tool.inputSchema.required]')"
Check "mcpgw tools sdk echo shows the description and schema" \
  test "$got" = '["sdk","echo","Returns its text argument unchanged.","string",["text"]]'
Cli tools sdk tool_07
got="$(printf '%s' "$OUT" | Json 'd.tool.description')"
Check "a tool without description is described by its title" test "$got" = "Filler tool 07"

# ---- calls -----------------------------------------------------------------------
Cli call sdk echo '{"text":"hello, gateway"}'
ExpectRc 0 "call echo"
Check "call echo prints the text" test "$OUT" = "hello, gateway"
Cli call sdk add '{"a":2,"b":40}'
Check "call add prints 42" test "$OUT" = "42"
Cli call sdk fail
ExpectRc 1 "call fail exits 1 (backend)"
Check "call fail reports the server's text" grep -q "always fails" "$TMP/cli.err"
Cli call sdk image
ExpectRc 0 "call image"
want="$(printf 'a pixel follows\n\n[image omitted: image/png]\n\n[resource: file:///fixtures/pixel.png]')"
if [ "$OUT" = "$want" ]; then Pass "call image gives text and placeholders"; else Fail "call image placeholders" "$OUT"; fi
Cli call sdk-json echo '{"text":"json mode"}'
Check "call through a JSON-response server" test "$OUT" = "json mode"
Cli call sdk nosuchtool
ExpectRc 3 "call of an unknown tool exits 3 (invalid_request)"

# ---- list_changed ----------------------------------------------------------------
added="$(HttpJson POST "$SDK/__list_changed" | Json 'd.added')"
ToolListed() {
  Cli tools
  printf '%s' "$OUT" | NAME="$1" Json 'd.servers.find((s) => s.namespace === "sdk").tools.includes(process.env.NAME)' | grep -qx true
}
Check "list_changed: $added is listed within 10 s" WaitFor 10 ToolListed "$added"
Check "list_changed: status counts 26 tools" test "$(StatusField sdk tools)" = 26

# ---- session expiry --------------------------------------------------------------
HttpJson POST "$SDK/__expire" >/dev/null
Cli call sdk echo '{"text":"after expiry"}'
ExpectRc 0 "a call after the session expired succeeds"
Check "the call after expiry prints its text" test "$OUT" = "after expiry"
inits="$(SdkLog | Json 'd.initializeCount')"
Check "the server saw a second initialize (got $inits)" test "$inits" = 2

# ---- cancellation of a dropped call --------------------------------------------
CallCount() { SdkLog | Json 'd.requests.filter((r) => r.method === "tools/call").length'; }
before="$(CallCount)"
"$MCPGW" call sdk slow '{"ms":30000}' >/dev/null 2>&1 &
cli_pid=$!
PIDS+=("$cli_pid")
CallArrived() { [ "$(CallCount)" -gt "$before" ]; }
if WaitFor 10 CallArrived; then
  sleep 0.3
  kill -KILL "$cli_pid" 2>/dev/null || true
  wait "$cli_pid" 2>/dev/null || true
  call_id="$(SdkLog | Json 'd.requests.filter((r) => r.method === "tools/call").pop().id')"
  Cancelled() {
    SdkLog | ID="$call_id" Json 'd.cancellations.some((c) => JSON.stringify(c.requestId) === process.env.ID)' | grep -qx true
  }
  Check "SIGKILL of the CLI mid-call: the server gets notifications/cancelled for request $call_id" WaitFor 10 Cancelled
  Aborted() {
    SdkLog | ID="$call_id" Json 'd.aborted.some((a) => JSON.stringify(a.requestId) === process.env.ID)' | grep -qx true
  }
  Check "the server's handler saw the abort" WaitFor 5 Aborted
else
  Fail "the slow call reached the server"
fi
NoneInFlight() { test "$(StatusField sdk in_flight)" = 0; }
Check "status: no call left in flight" WaitFor 10 NoneInFlight

# ---- headers ----------------------------------------------------------------------
log="$(SdkLog)"
# The daemon, never told the era, first probes with server/discover (a
# 2026-07-28 request, which an SDK 1.x server refuses), then initializes.
Check "the first request is the server/discover probe, then initialize" \
  test "$(printf '%s' "$log" | Json 'd.requests.slice(0, 2).map((r) => r.method).join(" ")')" = \
  "server/discover initialize"
session="$(printf '%s' "$log" | Json 'd.requests.filter((r) => r.method !== "server/discover" && r.method !== "initialize")')"
bad="$(printf '%s' "$session" | Json 'd.filter((r) => !r.protocolVersion).length')"
Check "MCP-Protocol-Version on every request after initialize (missing on $bad)" test "$bad" = 0
version="$(printf '%s' "$session" | Json '[...new Set(d.filter((r) => r.protocolVersion).map((r) => r.protocolVersion))]')"
Check "the negotiated protocol version is 2025-11-25 (sent: $version)" test "$version" = '["2025-11-25"]'
bad="$(printf '%s' "$session" | Json 'd.filter((r) => !r.sessionId).length')"
Check "Mcp-Session-Id on every request after initialize (missing on $bad)" test "$bad" = 0
bad="$(printf '%s' "$log" | Json 'd.requests.filter((r) => r.http === "POST" && !(/application\/json/.test(r.accept) && /text\/event-stream/.test(r.accept))).length')"
Check "every POST accepts application/json and text/event-stream (not on $bad)" test "$bad" = 0

Check "mcpgwd is still running" kill -0 "$DAEMON_PID"
Finish
