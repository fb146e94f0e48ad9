#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, run
# with Node 22) against mcpgw as the client under test, one client scenario at
# a time, through tests/interop/conformance_driver.sh. The daemon is never
# told which protocol revision a scenario's server speaks: it finds out.
#   default:  the stable suite (0.1.x), its 2025-11-25 scenarios
#   --modern: the 0.2.0 alpha (pinned beside it as conformance-alpha), its
#             2026-07-28 scenarios for a client that declares no capabilities
# A scenario passes only when the suite says "OVERALL: PASSED" with at least
# one check counted (the suite exits 0 for a scenario it skips).
# Usage: tests/interop/conformance.sh BUILD_DIR [--modern] [SCENARIO...]
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
shift

PACKAGE=conformance
EXTRA=()
scenarios=()
if [ "${1:-}" = --modern ]; then
  shift
  PACKAGE=conformance-alpha
  EXTRA=(--spec-version 2026-07-28)
  scenarios=(tools_call request-metadata http-standard-headers http-custom-headers
    http-invalid-tool-headers json-schema-ref-no-deref)
else
  scenarios=(initialize tools_call sse-retry)
fi
[ $# -eq 0 ] || scenarios=("$@")

CONFORMANCE="$FIXTURES/node_modules/@modelcontextprotocol/$PACKAGE/dist/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$CONFORMANCE" ]; then
  Fail "$PACKAGE or Node 22 missing under tests/fixtures/node_modules (rerun scripts/install-node-deps.sh)"
  Finish
fi
# The suite splits --command on spaces.
case "$INTEROP_DIR$BUILD" in
  *" "*) Fail "the suite cannot run a driver whose path contains a space ($INTEROP_DIR, $BUILD)"; Finish ;;
esac

for scenario in "${scenarios[@]}"; do
  RC=0
  # The suite writes nothing without -o; run it from the temp dir anyway.
  (cd "$TMP" && timeout 90 "$NODE22" "$CONFORMANCE" client \
    --command "bash $INTEROP_DIR/conformance_driver.sh $BUILD" \
    --scenario "$scenario" "${EXTRA[@]}" --timeout 60000) >"$TMP/$scenario.log" 2>&1 || RC=$?
  counted="$(sed -n 's/^Passed: [0-9]*\/\([0-9]*\),.*/\1/p' "$TMP/$scenario.log" | tail -n 1)"
  if [ "$RC" -eq 0 ] && grep -q "OVERALL: PASSED" "$TMP/$scenario.log" && [ "${counted:-0}" -gt 0 ]; then
    Pass "$PACKAGE client scenario $scenario ($counted checks)"
  else
    Fail "$PACKAGE client scenario $scenario (exit $RC, ${counted:-no} checks counted)"
    sed -n '/^Checks:/,$p' "$TMP/$scenario.log" | head -n 80
    grep -E "^(ok|FAIL|SKIPPED)" "$TMP/$scenario.log" | head -n 30 || true
  fi
done
Finish
