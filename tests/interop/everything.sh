#!/usr/bin/env bash
# mcpgwd against the reference server @modelcontextprotocol/server-everything
# in its streamableHttp mode (on loopback, via tests/fixtures/everything-server.mjs):
# it becomes ready, its tools are listed, and calls give the text and the
# placeholders of BEHAVIOR.md §5.
# Usage: tests/interop/everything.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

StartServer EV_PORT everything "$NODE" "$FIXTURES/everything-server.mjs" --port 0
cat >"$TMP/mcp.json" <<JSON
{"mcpServers": {"everything": {"url": "http://127.0.0.1:$EV_PORT/mcp"}}}
JSON
StartDaemon "$TMP/mcp.json"

Cli wait --timeout 30
ExpectRc 0 "mcpgw wait"
Check "status: everything is ready" test "$(StatusField everything status)" = ready
count="$(StatusField everything tools)"
Check "status: everything has tools ($count)" test "$count" -gt 0

Cli tools everything
ExpectRc 0 "mcpgw tools everything"
names="$(printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name)')"
Check "mcpgw tools everything lists echo and get-tiny-image" \
  test "$(printf '%s' "$OUT" | Json '["echo","get-tiny-image","get-sum"].every((n) => d.tools.some((t) => t.name === n))')" = true
Check "mcpgw tools everything is in name order" \
  test "$(printf '%s' "$names" | Json 'd.every((n, i) => i === 0 || d[i - 1] < n)')" = true
Check "every listed tool has an input schema" \
  test "$(printf '%s' "$OUT" | Json 'd.tools.every((t) => t.inputSchema && t.inputSchema.type === "object")')" = true

Cli call everything echo '{"message":"hello, everything"}'
ExpectRc 0 "call echo"
Check "call echo prints the server's echo" test "$OUT" = "Echo: hello, everything"

Cli call everything get-sum '{"a":19,"b":23}'
ExpectRc 0 "call get-sum"
Check "call get-sum mentions 42 ($OUT)" grep -q "42" "$TMP/cli.out"

Cli call everything get-tiny-image
ExpectRc 0 "call get-tiny-image"
Check "call get-tiny-image gives the image placeholder" grep -qxF "[image omitted: image/png]" "$TMP/cli.out"
Check "call get-tiny-image keeps the text blocks around it" test "$(grep -c . "$TMP/cli.out")" -ge 3

Cli call everything echo '{}'
Check "call echo without its argument fails as backend or invalid_request (exit $RC)" test "$RC" = 1 -o "$RC" = 3

Check "mcpgwd is still running" kill -0 "$DAEMON_PID"
Finish
