#!/usr/bin/env bash
# One mcpgwd against every fault of tests/fixtures/fault-server.mjs, plus a
# closed port and a local (command) entry: what status says about servers
# that cannot be reached, which exit code a call through a misbehaving server
# gives, that recoverable oddities (SSE server requests, resumption, session
# expiry) still succeed, and that the daemon survives all of it.
# Usage: tests/interop/faults.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

StartServer FAULT_PORT fault-server "$NODE" "$FIXTURES/fault-server.mjs" --port 0
F="http://127.0.0.1:$FAULT_PORT"
# A port nothing listens on: bind an ephemeral one and let it go.
CLOSED_PORT="$("$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})')"

# A short call deadline for the stall cases, if the daemon reads it.
mkdir -p "$XDG_CONFIG_HOME/mcpgw"
echo '{"limits": {"call_timeout_s": 3}}' >"$XDG_CONFIG_HOME/mcpgw/settings.json"

cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "ok":            {"url": "$F/ok"},
  "sse":           {"url": "$F/sse"},
  "s401":          {"url": "$F/status/401"},
  "s403":          {"url": "$F/status/403"},
  "s404":          {"url": "$F/status/404"},
  "s500":          {"url": "$F/status/500"},
  "s302":          {"url": "$F/status/302"},
  "call500":       {"url": "$F/status/500/on-call"},
  "call302":       {"url": "$F/status/302/on-call"},
  "garbage":       {"url": "$F/garbage"},
  "cut":           {"url": "$F/cut"},
  "resume":        {"url": "$F/resume"},
  "stall":         {"url": "$F/stall"},
  "stall-headers": {"url": "$F/stall/headers"},
  "huge":          {"url": "$F/huge"},
  "deep":          {"url": "$F/deep"},
  "wrong-version": {"url": "$F/wrong-version"},
  "expire":        {"url": "$F/expire"},
  "slow-init":     {"url": "$F/slow-init/4000"},
  "refused":       {"url": "http://127.0.0.1:$CLOSED_PORT/mcp"},
  "local":         {"command": "some-server", "args": ["--stdio"]}
}}
EOF
StartDaemon "$TMP/mcp.json"
Stats() { HttpJson GET "$F/__stats"; }

Check "slow-init is loading while its initialize is pending" test "$(StatusField slow-init status)" = loading
Cli wait --timeout 60
ExpectRc 0 "mcpgw wait returns once no server is loading"

# ---- servers that never become ready ----------------------------------------------
# ExpectError NAMESPACE REGEX: status is error with a reason matching REGEX.
ExpectError() {
  local status reason
  status="$(StatusField "$1" status)"
  reason="$(StatusField "$1" reason)"
  if [ "$status" = error ] && printf '%s' "$reason" | grep -Eqi -- "$2"; then
    Pass "status $1: error, \"$reason\""
  else
    Fail "status $1" "status \"$status\", reason \"$reason\", want error matching /$2/"
  fi
}
# 401 without any authorization server to find: OAuth needs a login (BEHAVIOR.md §9).
ExpectError s401 "HTTP 401|authorization required"
ExpectError s403 "HTTP 403"
ExpectError s404 "HTTP 404"
ExpectError s500 "HTTP 500"
ExpectError s302 "redirect|302"
ExpectError wrong-version "2024-11-05"
ExpectError refused "connection refused"
ExpectError local "^the local server command some-server not found in /"
Cli call s401 probe
ExpectRc 4 "a call to a server in error exits 4 (not_ready)"
Check "the not_ready message names the reason" grep -Eq "HTTP 401|authorization required" "$TMP/cli.err"

# ---- servers that are ready, and calls that fail as transport ---------------------
for ns in ok sse call500 call302 garbage cut resume huge deep expire slow-init stall stall-headers; do
  Check "status $ns: ready" test "$(StatusField "$ns" status)" = ready
done
for ns in call500 call302 garbage cut huge deep; do
  Cli call "$ns" probe
  ExpectRc 5 "call through $ns exits 5 (transport)"
done
Check "the redirect target was never requested" test "$(Stats | Json 'd.redirectTargetHits')" = 0

# The stall cases need a deadline shorter than the default 5 minutes: the
# daemon's settings.json above asks for 3 s (limits.call_timeout_s).
for ns in stall stall-headers; do
  RC=0
  timeout 20 "$MCPGW" call "$ns" probe >"$TMP/cli.out" 2>"$TMP/cli.err" || RC=$?
  if [ "$RC" -eq 124 ]; then
    Fail "call through $ns" "still waiting after 20 s: limits.call_timeout_s=3 was not applied"
  else
    OUT="$(cat "$TMP/cli.out")" ERR="$(cat "$TMP/cli.err")"
    ExpectRc 5 "call through $ns exits 5 (transport) at the deadline"
  fi
done

# ---- oddities a client must get through ---------------------------------------------
Cli call ok probe
Check "call through ok" test "$OUT" = "ok ok"

Cli call sse probe
ExpectRc 0 "call through sse (priming event, server requests on the stream)"
Check "call through sse prints the answer" test "$OUT" = "sse ok"
answers="$(Stats | Json 'd.answers["/sse"] || []')"
Check "sse: the ping was answered with a result" \
  test "$(printf '%s' "$answers" | Json 'd.some((a) => a.id.startsWith("fixture-ping") && a.kind === "result")')" = true
Check "sse: sampling/createMessage was refused with an error" \
  test "$(printf '%s' "$answers" | Json 'd.some((a) => a.id.startsWith("fixture-sampling") && a.kind === "error")')" = true

Cli call resume probe
ExpectRc 0 "call through resume (stream closed early, resumed with GET)"
Check "call through resume prints the answer" test "$OUT" = "resume ok"
Check "resume: the GET carried Last-Event-ID resume-1" \
  test "$(Stats | Json '(d.lastEventIds["/resume"] || []).includes("resume-1")')" = true

Cli call expire probe
ExpectRc 0 "call through expire (404 on the session, re-initialized)"
Check "call through expire prints the answer" test "$OUT" = "expire ok"
Check "expire: two initialize requests" test "$(Stats | Json 'd.counts["/expire"].initialize')" = 2

Cli call slow-init probe
Check "call through slow-init once ready" test "$OUT" = "slow-init/4000 ok"

# ---- the daemon survived --------------------------------------------------------------
Check "mcpgwd is still running" kill -0 "$DAEMON_PID"
Cli tools
ExpectRc 0 "mcpgwd still answers get_dynamic_tools"
Check "get_dynamic_tools lists all 21 servers" test "$(printf '%s' "$OUT" | Json 'd.servers.length')" = 21
Finish
