#!/usr/bin/env bash
# The client under test for the official conformance suite: mcpgwd plus the
# mcpgw CLI. The suite runs `conformance_driver.sh BUILD_DIR` with the server
# URL appended and the scenario in $MCP_CONFORMANCE_SCENARIO; this writes an
# mcp.json naming that URL, starts mcpgwd on a temp socket, does what the
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
