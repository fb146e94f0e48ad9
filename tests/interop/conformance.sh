#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, run
# with Node 22) against mcpgw as the client under test, one client scenario at
# a time, through tests/interop/conformance_driver.sh.
# Usage: tests/interop/conformance.sh BUILD_DIR [SCENARIO...]
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
shift

CONFORMANCE="$FIXTURES/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$CONFORMANCE" ]; then
  Fail "conformance suite or Node 22 missing under tests/fixtures/node_modules (rerun scripts/install-node-deps.sh)"
  Finish
fi
# The suite splits --command on spaces.
case "$INTEROP_DIR$BUILD" in
  *" "*) Fail "the suite cannot run a driver whose path contains a space ($INTEROP_DIR, $BUILD)"; Finish ;;
esac

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(initialize tools_call sse-retry)
for scenario in "${scenarios[@]}"; do
  RC=0
  # The suite writes nothing without -o; run it from the temp dir anyway.
  (cd "$TMP" && timeout 90 "$NODE22" "$CONFORMANCE" client \
    --command "bash $INTEROP_DIR/conformance_driver.sh $BUILD" \
    --scenario "$scenario" --timeout 60000) >"$TMP/$scenario.log" 2>&1 || RC=$?
  if [ "$RC" -eq 0 ]; then
    Pass "conformance client scenario $scenario"
  else
    Fail "conformance client scenario $scenario (exit $RC)"
    sed -n '/^Checks:/,$p' "$TMP/$scenario.log" | head -n 60
    grep -E "^(ok|FAIL) " "$TMP/$scenario.log" | head -n 20 || true
  fi
done
Finish
