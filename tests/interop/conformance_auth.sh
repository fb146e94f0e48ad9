#!/usr/bin/env bash
# The official conformance suite's client auth scenarios (the stable package,
# @modelcontextprotocol/conformance) against mcpgw — daemon and CLI — through
# tests/interop/conformance_auth_driver.sh, with MCPGW_BROWSER set to a stand-in
# browser that follows the redirect to the daemon's loopback callback.
#
# One mcpgwd serves every scenario at once: each driver adds its scenario's
# server to the shared mcp.json under a namespace of its own and takes it out
# when done, so the daemon authorizes with many authorization servers side by
# side. The suite runs its "auth", "backcompat" and "draft" groups, each
# group's scenarios in parallel in one suite process.
#
# Every scenario of the authorization code flow runs (19). Not run, because
# they are other grants than the one a gateway acting for a user has:
#   auth/client-credentials-jwt, auth/client-credentials-basic
#     the client_credentials grant (a machine client with its own secret or
#     signed JWT, no user and no browser): BEHAVIOR.md §9 has no such client.
#   auth/cross-app-access-complete-flow
#     the enterprise extension: a token exchange of an identity provider's
#     ID token for an authorization grant (ID-JAG), not a user's login.
#
# A scenario passes when the suite counts at least one check, none failed and
# no warning, and the driver's own checks (status, a call, no token in the
# log or status) all passed.
# Usage: tests/interop/conformance_auth.sh BUILD_DIR [SCENARIO...]
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
shift

groups=(auth backcompat draft)
scenarios=(
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported
  auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/pre-registration
  auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback
  auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
)
if [ $# -gt 0 ]; then
  groups=()
  scenarios=("$@")
fi

CONFORMANCE="$FIXTURES/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$CONFORMANCE" ]; then
  Fail "conformance or Node 22 missing under tests/fixtures/node_modules (rerun scripts/install-node-deps.sh)"
  Finish
fi
case "$INTEROP_DIR$BUILD" in
  *" "*) Fail "the suite cannot run a driver whose path contains a space ($INTEROP_DIR, $BUILD)"; Finish ;;
esac

# The shared daemon (the drivers find it through CONFORMANCE_AUTH_DAEMON).
export XDG_STATE_HOME="$TMP/state"
export MCPGW_BROWSER="$INTEROP_DIR/oauth_browser.sh"
unset BROWSER DISPLAY WAYLAND_DISPLAY
echo '{"mcpServers": {}}' >"$TMP/mcp.json"
StartDaemon "$TMP/mcp.json"
echo "$DAEMON_PID" >"$TMP/mcpgwd.pid"
export CONFORMANCE_AUTH_DAEMON="$TMP"

# Suite ARGS...: one suite process, its results under $TMP/out.
Suite() {
  (cd "$TMP" && timeout 150 "$NODE22" "$CONFORMANCE" client \
    --command "bash $INTEROP_DIR/conformance_auth_driver.sh $BUILD" \
    -o "$TMP/out" --timeout 90000 "$@") >>"$TMP/suite.log" 2>&1 || true
}
started=$SECONDS
running=()
for group in "${groups[@]}"; do Suite --suite "$group" & running+=($!); done
if [ ${#groups[@]} -eq 0 ]; then
  for scenario in "${scenarios[@]}"; do Suite --scenario "$scenario" & running+=($!); done
fi
for pid in "${running[@]}"; do wait "$pid" || true; done
echo "the scenarios took $((SECONDS - started)) s"

# Verdict SCENARIO: "SUCCESS FAILURE WARNING DRIVER" counts from its results.
Verdict() {
  local dir
  dir="$(ls -d "$TMP/out/$1"-2* 2>/dev/null | head -n 1)"
  [ -n "$dir" ] || { echo "- - - none"; return; }
  printf '%s %s\n' "$(Json '["SUCCESS", "FAILURE", "WARNING"].map((s) => d.filter((c) => c.status === s).length).join(" ")' <"$dir/checks.json")" \
    "$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1:\2/p' "$dir/stdout.txt" | tail -n 1)"
}
for scenario in "${scenarios[@]}"; do
  read -r ok failed warned driver <<<"$(Verdict "$scenario")"
  if [ "${ok:-0}" -gt 0 ] 2>/dev/null && [ "$failed" = 0 ] && [ "$warned" = 0 ] &&
    [ "${driver#*:}" = 0 ] && [ "${driver%:*}" -gt 0 ]; then
    Pass "conformance client scenario $scenario ($ok checks, driver $driver)"
  else
    Fail "conformance client scenario $scenario (suite: ${ok:-?} ok ${failed:-?} failed ${warned:-?} warnings; driver passed:failed ${driver:-none})"
    dir="$(ls -d "$TMP/out/$scenario"-2* 2>/dev/null | head -n 1)"
    if [ -n "$dir" ]; then
      Json 'd.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => c.id + ": " + (c.errorMessage || c.description)).join("\n")' <"$dir/checks.json"
      grep -vE "^ok " "$dir/stdout.txt" | head -n 20 || true
    fi
  fi
done
Check "every driver took its server out again" \
  test "$(Json 'Object.keys(d.mcpServers).length' <"$TMP/mcp.json")" = 0
StopDaemon
if [ "$FAILED" -gt 0 ]; then tail -n 60 "$TMP/suite.log"; fi
Finish
