#!/usr/bin/env bash
# The client under test for the official conformance suite (stable and alpha
# alike): mcpgwd plus the mcpgw CLI. The suite runs `conformance_driver.sh
# BUILD_DIR` with the server URL appended and the scenario in
# $MCP_CONFORMANCE_SCENARIO (and, for some, what to do in
# $MCP_CONFORMANCE_CONTEXT); this writes an mcp.json naming that URL — never
# the protocol revision — starts mcpgwd on a temp socket, does what the
# scenario expects of a client, stops the daemon with SIGTERM and exits 0 when
# every step worked.
# Usage: conformance_driver.sh BUILD_DIR SERVER_URL
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SERVER_URL (the conformance suite appends the URL)" >&2
  exit 2
fi
URL="$2"
set -- "$1"
# The suite bounds the driver's run (--timeout); lib.sh need not re-run it.
export MCPGW_INTEROP_BOUNDED=1
source "$(dirname "$0")/lib.sh" "$@"

SCENARIO="${MCP_CONFORMANCE_SCENARIO:-}"
NS=conformance
printf '{"mcpServers": {"%s": {"url": %s}}}\n' "$NS" \
  "$("$NODE" -e 'console.log(JSON.stringify(process.argv[1]))' "$URL")" >"$TMP/mcp.json"
StartDaemon "$TMP/mcp.json"

Cli wait --timeout 20
ExpectRc 0 "mcpgw wait"
Check "status: $NS is ready" test "$(StatusField "$NS" status)" = ready
case "$SCENARIO" in
  initialize)
    Cli tools "$NS"
    ExpectRc 0 "mcpgw tools $NS"
    ;;
  tools_call)
    Cli call "$NS" add_numbers '{"a":5,"b":3}'
    ExpectRc 0 "call add_numbers"
    Check "add_numbers answers 8 ($OUT)" grep -q "8" "$TMP/cli.out"
    ;;
  sse-retry)
    Cli call "$NS" test_reconnection
    ExpectRc 0 "call test_reconnection (answered on the resumed stream)"
    ;;
  request-metadata)
    # Every request is checked for its _meta and headers; the first one is
    # refused as an unsupported version and must be retried.
    Cli tools "$NS"
    ExpectRc 0 "mcpgw tools $NS"
    ;;
  http-standard-headers)
    Cli tools "$NS"
    Check "both tools are listed ($OUT)" test "$(printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name).join(",")')" = "my-hyphenated-tool,test_headers"
    for tool in test_headers my-hyphenated-tool; do
      Cli call "$NS" "$tool"
      ExpectRc 0 "call $tool"
    done
    ;;
  http-custom-headers)
    # The scenario hands over the calls to make (values chosen to exercise
    # every encoding rule) in MCP_CONFORMANCE_CONTEXT.
    calls="$(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-}" | Json 'd.toolCalls.length')"
    Check "the scenario names calls to make ($calls)" test "$calls" -gt 0 2>/dev/null
    for ((i = 0; i < ${calls:-0}; i++)); do
      tool="$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | I=$i Json 'd.toolCalls[process.env.I].name')"
      args="$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | I=$i Json 'd.toolCalls[process.env.I].arguments')"
      Cli call "$NS" "$tool" "$args"
      ExpectRc 0 "call $tool"
    done
    ;;
  http-invalid-tool-headers)
    # Only the tool whose x-mcp-header annotation is valid is listed; the
    # others cannot be called.
    Cli tools "$NS"
    Check "only valid_tool is listed ($OUT)" test "$(printf '%s' "$OUT" | Json 'd.tools.map((t) => t.name).join(",")')" = valid_tool
    Cli call "$NS" valid_tool '{"region":"us-west1"}'
    ExpectRc 0 "call valid_tool"
    for tool in invalid_empty_header invalid_object_header invalid_array_header \
      invalid_null_header invalid_number_header invalid_duplicate_same_case \
      invalid_duplicate_diff_case invalid_space_in_name invalid_colon_in_name \
      invalid_non_ascii_name invalid_control_char_name; do
      Cli call "$NS" "$tool" '{"value":"x"}'
      ExpectRc 3 "call $tool is refused as invalid_request"
    done
    ;;
  json-schema-ref-no-deref)
    # The schema is passed on as the server wrote it; nothing fetches its $ref.
    Cli tools "$NS" lookup_user
    ExpectRc 0 "mcpgw tools $NS lookup_user"
    Check "the network \$ref is passed on untouched" test \
      "$(printf '%s' "$OUT" | Json 'd.tool.inputSchema.properties.profile["$ref"].endsWith("/canary/profile-schema.json")')" = true
    Check "the local \$ref is passed on untouched" test \
      "$(printf '%s' "$OUT" | Json 'd.tool.inputSchema.properties.id["$ref"]')" = '#/$defs/userId'
    ;;
  *)
    Fail "scenario '$SCENARIO' is not driven by this script"
    ;;
esac

# Stop the daemon the way a service manager does; it should end its session.
kill -TERM "$DAEMON_PID"
stopped=false
for _ in $(seq 50); do
  if ! kill -0 "$DAEMON_PID" 2>/dev/null; then stopped=true; break; fi
  sleep 0.1
done
Check "mcpgwd exits within 5 s of SIGTERM" $stopped
if $stopped; then
  RC=0
  wait "$DAEMON_PID" || RC=$?
  Check "mcpgwd exits 0 on SIGTERM (got $RC)" test "$RC" = 0
fi
Finish
