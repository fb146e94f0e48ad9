#!/usr/bin/env bash
# One mcpgwd, never told any server's protocol revision, against
# tests/fixtures/modern-server.mjs in each era: 2025-only servers (probed
# with server/discover, answering it the way SDK 1.x servers do and with an
# empty result), a 2026-only server, a both-era server, and a server that
# upgrades from 2025 to 2026 while the daemon runs. Checks what each server
# received (the fixture records it), the era status reports, x-mcp-header
# handling, input requests, bounds, cancellation and list_changed on the
# modern wire, and what shutdown sends.
# Usage: tests/interop/eras.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

Fixture() {  # VAR NAME ARGS...: one fixture process (its own origin: eras are cached per origin)
  local var="$1" name="$2"
  shift 2
  StartServer "$var" "$name" "$NODE" "$FIXTURES/modern-server.mjs" --port 0 "$@"
}
Fixture LEGACY_PORT legacy --era 2025
Fixture EMPTY_PORT legacy-empty --era 2025 --legacy-probe empty
Fixture MODERN_PORT modern --era 2026 --ttl-ms 600000
Fixture SSE_PORT modern-sse --era 2026 --sse --list-changed
Fixture DUAL_PORT dual --era both
Fixture UPGRADE_PORT upgrade --era 2025
url() { printf 'http://127.0.0.1:%s/mcp' "$1"; }

mkdir -p "$XDG_CONFIG_HOME/mcpgw"
echo '{"limits": {"call_timeout_s": 3}}' >"$XDG_CONFIG_HOME/mcpgw/settings.json"
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "legacy":       {"url": "$(url "$LEGACY_PORT")"},
  "legacy-empty": {"url": "$(url "$EMPTY_PORT")"},
  "modern":       {"url": "$(url "$MODERN_PORT")"},
  "modern-sse":   {"url": "$(url "$SSE_PORT")"},
  "dual":         {"url": "$(url "$DUAL_PORT")"},
  "upgrade":      {"url": "$(url "$UPGRADE_PORT")"}
}}
EOF
StartDaemon "$TMP/mcp.json"
Log() { HttpJson GET "http://127.0.0.1:$1/__log"; }

Cli wait --timeout 30
ExpectRc 0 "mcpgw wait returns once every server is ready"
for ns in legacy legacy-empty modern modern-sse dual upgrade; do
  Check "status: $ns is ready" test "$(StatusField "$ns" status)" = ready
done

# ---- detection ------------------------------------------------------------------
for ns in legacy legacy-empty upgrade; do
  Check "status: $ns speaks 2025-11-25" test "$(StatusField "$ns" protocol_version)" = 2025-11-25
done
for ns in modern modern-sse dual; do
  Check "status: $ns speaks 2026-07-28" test "$(StatusField "$ns" protocol_version)" = 2026-07-28
done
for port in "$LEGACY_PORT" "$EMPTY_PORT"; do
  Check "a 2025 server on port $port was probed with server/discover, then initialized" \
    test "$(Log "$port" | Json 'd.requests.filter((r) => r.http === "POST").slice(0, 2).map((r) => r.method).join(" ")')" = \
    "server/discover initialize"
done
for port in "$MODERN_PORT" "$DUAL_PORT"; do
  Check "no initialize ever reached the modern server on port $port" \
    test "$(Log "$port" | Json 'd.requests.filter((r) => r.method === "initialize").length')" = 0
done

# ---- the modern wire --------------------------------------------------------------
Cli call modern echo '{"text":"hi","region":"Zürich ","count":3}'
ExpectRc 0 "call echo on the modern wire (the fixture validates every header)"
Check "call echo answers" test "$OUT" = "echo: hi"
modern_log="$(Log "$MODERN_PORT")"
Check "every modern POST carried the version header, Mcp-Method and the _meta" test "$(printf '%s' "$modern_log" | Json '
  d.requests.filter((r) => r.http === "POST").every((r) =>
    r.headers["mcp-protocol-version"] === "2026-07-28" && r.headers["mcp-method"] === r.method &&
    r.meta["io.modelcontextprotocol/protocolVersion"] === "2026-07-28" &&
    r.meta["io.modelcontextprotocol/clientInfo"].name === "mcpgw" &&
    JSON.stringify(r.meta["io.modelcontextprotocol/clientCapabilities"]) === "{}" &&
    r.headers["mcp-session-id"] === undefined && r.status === 200)')" = true
Check "the call carried Mcp-Name and the encoded Mcp-Param headers" test "$(printf '%s' "$modern_log" | Json '
  (({h}) => [h["mcp-name"], h["mcp-param-region"], h["mcp-param-count"]].join(" "))(
    {h: d.requests.find((r) => r.method === "tools/call").headers})')" = "echo =?base64?WsO8cmljaCA=?= 3"
Check "the modern server got no GET and no initialize" test "$(printf '%s' "$modern_log" | Json '
  d.requests.filter((r) => r.http !== "POST" || r.method === "initialize").length')" = 0

Cli tools modern
Check "a tool with an invalid x-mcp-header is not listed on the modern wire" \
  test "$(printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name).join(",")')" = "ask,deep,echo,huge,stall"
Cli call modern bad_header '{"v":"x"}'
ExpectRc 3 "a tool with an invalid x-mcp-header cannot be called"
Cli tools legacy
Check "a 2025 server's tools are not judged by x-mcp-header" \
  test "$(printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name).join(",")')" = "ask,bad_header,deep,echo,huge,stall"

Cli call modern ask
ExpectRc 1 "a call answered with an input request exits 1 (backend)"
Check "its message says the server needs input the gateway cannot give" \
  grep -q "needs interactive input that the gateway cannot give" "$TMP/cli.err"
for tool in huge deep; do
  Cli call modern "$tool"
  ExpectRc 5 "call $tool on the modern wire exits 5 (transport, bounded)"
done
Cli call modern-sse echo '{"text":"streamed"}'
Check "a call answered on an SSE stream" test "$OUT" = "echo: streamed"

# Cancellation: the deadline (3 s here) and a host that goes away both close
# the request's stream, which is the revision's cancellation signal.
Cli call modern stall
ExpectRc 5 "call stall ends as transport at the deadline"
timeout 60 "$MCPGW" call modern stall >/dev/null 2>&1 &
caller=$!
CancelledCount() { Log "$MODERN_PORT" | Json 'd.cancelled.filter((c) => c.era === "modern").length'; }
StallsRunning() { test "$(Log "$MODERN_PORT" | Json 'd.calls.stall')" = 2; }
Check "the second stall call reached the server" WaitFor 10 StallsRunning
kill -TERM "$caller" 2>/dev/null || true
wait "$caller" 2>/dev/null || true
TwoCancelled() { test "$(CancelledCount)" -ge 2; }
Check "both stalled calls' streams were closed (the server saw the cancellations)" WaitFor 10 TwoCancelled
Check "no notifications/cancelled was POSTed on the modern wire" \
  test "$(Log "$MODERN_PORT" | Json 'd.requests.filter((r) => r.method === "notifications/cancelled").length')" = 0

# list_changed arrives on the subscriptions/listen stream.
Listening() { test "$(Log "$SSE_PORT" | Json 'd.requests.some((r) => r.method === "subscriptions/listen")')" = true; }
Check "the modern-sse server got a subscriptions/listen" WaitFor 10 Listening
HttpJson POST "http://127.0.0.1:$SSE_PORT/__change-tools" >/dev/null
HasAdded() { Cli tools modern-sse; printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name).includes("added")' | grep -q true; }
Check "a tool added while running is listed after list_changed" WaitFor 15 HasAdded

# ---- a server that upgrades from 2025 to 2026 while the daemon runs --------------------
Cli call upgrade echo '{"text":"before"}'
Check "call before the upgrade" test "$OUT" = "echo: before"
HttpJson POST "http://127.0.0.1:$UPGRADE_PORT/__era?to=2026" >/dev/null
Cli call upgrade echo '{"text":"after","region":"eu"}'
ExpectRc 0 "call after the upgrade (the era is detected again)"
Check "call after the upgrade answers" test "$OUT" = "echo: after"
Check "status: upgrade now speaks 2026-07-28" test "$(StatusField upgrade protocol_version)" = 2026-07-28
Check "the upgraded server ran each call once" \
  test "$(Log "$UPGRADE_PORT" | Json 'd.calls.echo')" = 2

# ---- shutdown ---------------------------------------------------------------------
StopDaemon
Check "the 2025 server's session was DELETEd" test "$(Log "$LEGACY_PORT" | Json 'd.deleted')" = 1
Check "nothing was DELETEd on the modern wire" \
  test "$(Log "$MODERN_PORT" | Json 'd.requests.filter((r) => r.http === "DELETE").length')" = 0
Finish
