#!/usr/bin/env bash
# Local (command) servers that misbehave (BEHAVIOR.md §17), from
# tests/fixtures/stdio-fault-server.mjs under each of its flags and a few
# inline node commands: what status and the log say, which calls fail and
# how, and that the daemon and every other server go on unharmed.
#   - mcp.json that others can write (0666): local entries refused naming the
#     mode, a remote entry unaffected, nothing started; `local_servers:
#     "refuse"`: the exact refusal, nothing started.
#   - One daemon then runs them all: the command found on the daemon's own
#     PATH, or not found (the reason names it and the directories); the
#     child's environment and working directory; noise on stdout (skipped and
#     counted); a 500 KB stderr flood at start (drained, rate-limited, counted);
#     an answer past limits.max_response_bytes (that call fails alone); the
#     process exiting mid-call (transport, "may have run", never sent again,
#     error with the exit code, restarted with a back-off); a grandchild
#     holding the pipes; stray response ids; no initialize (error at the
#     handshake deadline); an env value printed on stderr (never in the log or
#     status); a flood on one server while another answers at once; reloads
#     that keep, restart and stop processes (SIGKILL for one that ignores
#     SIGTERM and stdin's end); no zombie or descriptor left once the faulty
#     servers are gone; and shutdown or SIGKILL of the daemon ending them all.
# Usage: tests/interop/local_faults.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

FS="$FIXTURES/stdio-fault-server.mjs"
for f in "$FS" "$FIXTURES/fault-server.mjs"; do
  if [ ! -e "$f" ]; then
    echo "$SCRIPT_NAME: $f is missing" >&2
    exit 1
  fi
done
SECRET="a-distinctive-secret-value-123"

# ---- helpers ----------------------------------------------------------------------------
# Srv NS EXPR: EXPR over `s`, the status row of NS, and `l`, its "local"
# object, from a fresh `mcpgw status --json` ("undefined" when absent).
Srv() {
  Cli status --json
  printf '%s' "$OUT" | NS="$1" Json "(() => { const s = d.servers.find((x) => x.namespace === process.env.NS) || {}; const l = s.local || {}; return $2; })()"
}
Is() { test "$(Srv "$1" "$2")" = "$3"; }
Running() { [ -n "$(Leftover "$1")" ]; }
Gone() { ! Running "$1"; }
Children() { cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . || true; }
FdCount() { ls /proc/"$1"/fd | wc -l; }
NowMs() { date +%s%3N; }
# Entry NAME [FLAG...]: the fault server under FLAGs as a local entry.
Entry() {
  local name="$1" args="\"$FS\", \"--name\", \"$1\"" a
  shift
  for a in "$@"; do args="$args, \"$a\""; done
  printf '"%s": {"command": "%s", "args": [%s]}' "$name" "$NODE" "$args"
}
ExpectStatusMatch() {  # NS STATUS REGEX: status is STATUS with a reason matching REGEX
  local status reason
  status="$(Srv "$1" s.status)"
  reason="$(Srv "$1" s.reason)"
  if [ "$status" = "$2" ] && printf '%s' "$reason" | grep -Eq -- "$3"; then
    Pass "status $1: $2, \"${reason:0:200}\""
  else
    Fail "status $1" "status \"$status\", reason \"${reason:0:300}\", want $2 matching /$3/"
  fi
}

# Programs found by name on the daemon's own PATH.
mkdir -p "$TMP/bin" "$TMP/work"
cat >"$TMP/bin/mcpgw-test-fault-server" <<EOF
#!/bin/sh
exec "$NODE" "$FS" --name onpath "\$@"
EOF
# Leaves a mark when run: for the entries that must never be started.
cat >"$TMP/bin/marker-server" <<EOF
#!/bin/sh
touch "$TMP/marker-ran"
exec "$NODE" "$FS" --name marker
EOF
chmod 755 "$TMP/bin/mcpgw-test-fault-server" "$TMP/bin/marker-server"
export PATH="$TMP/bin:$PATH"

StartServer HTTP_PORT http-fault-server "$NODE" "$FIXTURES/fault-server.mjs" --port 0
REMOTE="\"remote\": {\"url\": \"http://127.0.0.1:$HTTP_PORT/ok\"}"
MARKER="\"marker\": {\"command\": \"$TMP/bin/marker-server\"}"

# ---- mcp.json that others can write: local entries refused ------------------------------
mkdir -p "$TMP/open"
Config "$MARKER" "$REMOTE" >"$TMP/open/mcp.json"
chmod 0666 "$TMP/open/mcp.json"
StartDaemon "$TMP/open/mcp.json"
Cli wait --timeout 30
ExpectRc 0 "mode 0666: mcpgw wait"
ExpectStatusMatch marker error "mode 0666"
Check "mode 0666: the reason says how to fix it (chmod go-w)" grep -q "chmod go-w" <<<"$(Srv marker s.reason)"
Check "remote: ready" Is remote s.status ready
Check "mode 0666: the local entry has no pid" test "$(Srv marker 'l.pid ?? null')" = null
Check "mode 0666: mcpgwd started no process" test -z "$(Children "$DAEMON_PID")"
Check "mode 0666: the local command never ran" test ! -e "$TMP/marker-ran"
StopDaemon

# ---- local_servers: "refuse" ---------------------------------------------------------------
mkdir -p "$TMP/refuse"
Config "$MARKER" "$REMOTE" >"$TMP/refuse/mcp.json"
chmod 0600 "$TMP/refuse/mcp.json"
echo '{"local_servers": "refuse"}' >"$TMP/refuse/settings.json"
StartDaemon "$TMP/refuse/mcp.json" "$SOCK" --settings "$TMP/refuse/settings.json"
Cli wait --timeout 30
ExpectRc 0 "refuse: mcpgw wait"
Check "refuse: the reason is exactly the refusal" \
  test "$(Srv marker s.status) $(Srv marker s.reason)" = "error local MCP servers (command) are not supported yet"
Check "remote: ready" Is remote s.status ready
Check "refuse: mcpgwd started no process" test -z "$(Children "$DAEMON_PID")"
Check "refuse: the local command never ran" test ! -e "$TMP/marker-ran"
StopDaemon

# ---- one daemon for the rest -----------------------------------------------------------------
# Short deadlines and a small answer bound, read at start-up.
mkdir -p "$XDG_CONFIG_HOME/mcpgw"
echo '{"limits": {"listing_timeout_s": 4, "max_response_bytes": 8192, "call_timeout_s": 60}}' \
  >"$XDG_CONFIG_HOME/mcpgw/settings.json"
# Variables of the daemon's environment: one a child must not get, one (LC_*) it must.
export MCPGW_TEST_NOT_PASSED=leaked LC_MCPGW_TEST=kept

E_QUICK="$(Entry quick)"
E_KEEP="$(Entry keep)"
E_CHANGE_A="$(Entry change --tools 1)"
E_CHANGE_B="$(Entry change --tools 2)"
E_GONE="$(Entry gone)"
Config "$E_QUICK" "$E_KEEP" "$E_CHANGE_A" "$E_GONE" >"$TMP/mcp.json"
chmod 0600 "$TMP/mcp.json"
StartDaemon "$TMP/mcp.json"
Cli wait --timeout 30
ExpectRc 0 "mcpgw wait: the four first servers"
for ns in quick keep change gone; do Check "$ns: ready" Is "$ns" s.status ready; done
sleep 0.5
FD0="$(FdCount "$DAEMON_PID")"
KIDS0="$(Children "$DAEMON_PID" | wc -l)"
Check "one keeper process per local server ($KIDS0)" test "$KIDS0" = 4
declare -A P1
for ns in quick keep change gone; do P1[$ns]="$(Srv "$ns" l.pid)"; done

# The faulty servers arrive with a reload.
E_NOISY="$(Entry noisy --log-stdout)"
E_FLOOD="$(Entry flood --flood-stderr 500)"
E_LONG="$(Entry long)"
E_CRASH="$(Entry crash)"
E_STUBBORN="$(Entry stubborn --ignore-sigterm --ignore-stdin-eof)"
E_GRAND="$(Entry grand --grandchild)"
E_STRAY="$(Entry stray --stray-ids)"
E_MUTE="$(Entry mute --no-initialize)"
E_FLAPPY="$(Entry flappy --exit-after-ms 0)"
E_MISSING='"missing": {"command": "no-such-mcp-command-xyz", "args": ["--stdio"]}'
E_ONPATH='"onpath": {"command": "mcpgw-test-fault-server"}'
E_ENV="\"envcheck\": {\"command\": \"$NODE\", \"args\": [\"$FS\", \"--name\", \"envcheck\"], \"cwd\": \"$TMP/work\", \"env\": {\"MCPGW_ENTRY_VAR\": \"from the entry\", \"TERM\": \"entry-term\"}}"
# Prints the env value on stderr (whole, and where an 8 KiB line is cut), and
# a 20,000-byte line, then runs the fault server.
SECRET_JS="console.error('API_KEY is ' + process.env.API_KEY); console.error('L'.repeat(20000)); console.error('M'.repeat(8180) + process.env.API_KEY); await import('$FS');"
E_SECRET="\"secret\": {\"command\": \"$NODE\", \"args\": [\"--input-type=module\", \"-e\", \"$SECRET_JS\"], \"env\": {\"API_KEY\": \"$SECRET\"}}"
FAULTY=("$E_NOISY" "$E_FLOOD" "$E_LONG" "$E_CRASH" "$E_STUBBORN" "$E_GRAND" "$E_STRAY" "$E_MUTE"
  "$E_FLAPPY" "$E_MISSING" "$E_ONPATH" "$E_ENV" "$E_SECRET")
T_RELOAD=$SECONDS
Reload "$E_QUICK" "$E_KEEP" "$E_CHANGE_B" "${FAULTY[@]}"
T_FLAPPY=$SECONDS
Check "mute: loading right after the reload (its handshake is pending)" Is mute s.status loading

# ---- reload: kept, restarted, stopped --------------------------------------------------------
WaitFor 20 Is change s.status ready || true
Check "keep: unchanged entry keeps its process (pid ${P1[keep]})" Is keep l.pid "${P1[keep]}"
Check "quick: unchanged entry keeps its process (pid ${P1[quick]})" Is quick l.pid "${P1[quick]}"
P_CHANGE="$(Srv change l.pid)"
Check "change: changed args restart it (pid ${P1[change]} -> $P_CHANGE)" \
  bash -c "[ '$P_CHANGE' != '${P1[change]}' ] && [ '$P_CHANGE' != null ]"
Check "change: the new process serves the new args (2 extra tools: 11)" Is change s.tools 11
Check "change: its old process ended" WaitFor 5 Gone "${P1[change]}"
Check "gone: its process ended after the reload removed it" WaitFor 5 Gone "${P1[gone]}"
Check "gone: no longer in status" Is gone s.status undefined

for ns in noisy flood long crash stubborn grand stray onpath envcheck secret; do
  if WaitFor 20 Is "$ns" s.status ready; then
    Pass "$ns: ready"
  else
    Fail "$ns: ready" "status $(Srv "$ns" s.status): $(Srv "$ns" s.reason)"
  fi
done

# ---- command lookup --------------------------------------------------------------------------
ExpectStatusMatch missing error "no-such-mcp-command-xyz.*not found"
reason="$(Srv missing s.reason)"
Check "missing: the reason names the daemon's PATH directories ($TMP/bin)" grep -qF "$TMP/bin" <<<"$reason"
Check "missing: the reason names /usr/bin" grep -qF "/usr/bin" <<<"$reason"
Check "missing: no process" Is missing l.pid null
Cli call onpath echo '{"message":"found on PATH"}'
Check "onpath: a command found on the daemon's PATH answers" test "$OUT" = "found on PATH"

# ---- environment and working directory -------------------------------------------------------
Cli call envcheck env
printf '%s' "$OUT" >"$TMP/env.json"
ALLOWED='HOME LOGNAME SHELL TERM USER LANG LANGUAGE TMPDIR XDG_RUNTIME_DIR http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY all_proxy ALL_PROXY SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE PATH MCPGW_ENTRY_VAR'
extra="$(ALLOWED="$ALLOWED" Json 'Object.keys(d).filter((k) => !k.startsWith("LC_") && !process.env.ALLOWED.split(" ").includes(k)).join(" ")' <"$TMP/env.json")"
Check "envcheck: the child gets only the listed variables (extra: \"$extra\")" test -z "$extra"
Check "envcheck: a variable of the daemon that is not listed does not reach it" \
  test "$(Json 'String(d.MCPGW_TEST_NOT_PASSED)' <"$TMP/env.json")" = undefined
Check "envcheck: LC_* variables reach it" test "$(Json 'd.LC_MCPGW_TEST' <"$TMP/env.json")" = kept
Check "envcheck: HOME reaches it" test "$(Json 'd.HOME' <"$TMP/env.json")" = "$HOME"
Check "envcheck: XDG_RUNTIME_DIR reaches it" test "$(Json 'd.XDG_RUNTIME_DIR' <"$TMP/env.json")" = "$XDG_RUNTIME_DIR"
Check "envcheck: the entry's env is set" test "$(Json 'd.MCPGW_ENTRY_VAR' <"$TMP/env.json")" = "from the entry"
Check "envcheck: the entry's env wins over the daemon's (TERM)" test "$(Json 'd.TERM' <"$TMP/env.json")" = entry-term
Check "envcheck: PATH holds the daemon's own PATH ($TMP/bin)" \
  test "$(TB="$TMP/bin" Json 'd.PATH.split(":").includes(process.env.TB)' <"$TMP/env.json")" = true
Cli call envcheck cwd
Check "envcheck: cwd is the entry's ($OUT)" test "$OUT" = "$TMP/work"
Cli call quick cwd
Check "quick: cwd is \$HOME without one in the entry ($OUT)" test "$OUT" = "$(cd "$HOME" && pwd -P)"

# ---- no initialize: loading, then error at the handshake deadline ----------------------------
IsError() { Is "$1" s.status error; }
if WaitFor 15 IsError mute; then
  Pass "mute: error after $((SECONDS - T_RELOAD)) s (limits.listing_timeout_s 4)"
else
  Fail "mute: error at the handshake deadline" "status $(Srv mute s.status) after $((SECONDS - T_RELOAD)) s"
fi
Check "mute: not before the deadline ($((SECONDS - T_RELOAD)) s >= 3)" test $((SECONDS - T_RELOAD)) -ge 3
ExpectStatusMatch mute error "timed out"

# ---- stdout noise ------------------------------------------------------------------------------
skipped="$(Srv noisy l.stdout_skipped)"
Check "noisy: stdout_skipped > 0 ($skipped)" test "$skipped" -gt 0
Cli call noisy echo '{"message":"through the noise"}'
Check "noisy: echo answers through the noise" test "$OUT" = "through the noise"
Check "noisy: the line before the answer was counted too" test "$(Srv noisy l.stdout_skipped)" -gt "$skipped"
Check "noisy: the log shows a skipped line" grep -q 'server "noisy": skipped a line on stdout' "$TMP/mcpgwd.log"

# ---- a stderr flood at start -------------------------------------------------------------------
lines="$(Srv flood l.stderr_lines)"
not_logged="$(Srv flood l.stderr_not_logged)"
logged="$(grep -c 'server "flood": stderr: xxxx' "$TMP/mcpgwd.log" || true)"
Check "flood: all 5000 lines of the 500 KB were read ($lines)" test "$lines" -ge 5000
Check "flood: stderr_not_logged > 0 ($not_logged)" test "$not_logged" -gt 0
Check "flood: the log holds the lines not counted as not logged ($logged + $not_logged = $lines)" \
  test $((logged + not_logged)) = "$lines"
Check "flood: at most 20 lines a second reached the log ($logged)" test "$logged" -le 40
# The count of the lines left out is logged when the server next writes to
# stderr after that second (BEHAVIOR.md §17): 1 KB more, seconds later.
Cli call flood stderr_flood '{"kb":1}'
Check "flood: a later stderr write" test "$OUT" = flooded
NotLoggedLine() {
  grep -q "server \"flood\": $not_logged stderr lines not logged (more than 20 a second)" "$TMP/mcpgwd.log"
}
if WaitFor 5 NotLoggedLine; then
  Pass "flood: the log then counts the $not_logged lines it did not log"
else
  Fail "flood: the log counts the lines it did not log" \
    "no \"$not_logged stderr lines not logged\" line for flood: $(grep 'server "flood": [0-9]* stderr lines' "$TMP/mcpgwd.log" | head -n 3)"
fi
Check "flood: the 10 later lines were logged (a new second)" \
  test "$(grep -c 'server "flood": stderr: xxxx' "$TMP/mcpgwd.log")" = $((logged + 10))
Cli call flood echo '{"message":"after the flood"}'
Check "flood: calls work" test "$OUT" = "after the flood"

# ---- an answer larger than limits.max_response_bytes ---------------------------------------------
P_LONG="$(Srv long l.pid)"
Cli call long long_line '{"bytes":100000}'
ExpectRc 5 "long: an answer past limits.max_response_bytes fails as transport"
Check "long: the message names limits.max_response_bytes" grep -q "limits.max_response_bytes" "$TMP/cli.err"
Cli call long echo '{"message":"next"}'
Check "long: the next call works" test "$OUT" = "next"
Cli call long long_line '{"bytes":2000}'
Check "long: an answer within the bound works" test "${#OUT}" = 2000
Check "long: still the same process" Is long l.pid "$P_LONG"

# ---- stray response ids ------------------------------------------------------------------------
Cli call stray count
Check "stray: count 1" test "$OUT" = 1
Cli call stray count
Check "stray: count 2" test "$OUT" = 2
STRAY_JOBS=()
for i in 1 2 3 4 5; do
  timeout 30 "$MCPGW" call stray echo "{\"message\":\"stray $i\"}" >"$TMP/stray-$i.out" 2>&1 &
  STRAY_JOBS+=($!)
  PIDS+=($!)
done
stray_ok=true
for i in 1 2 3 4 5; do
  wait "${STRAY_JOBS[$((i - 1))]}" || stray_ok=false
  [ "$(cat "$TMP/stray-$i.out")" = "stray $i" ] || stray_ok=false
done
Check "stray: five concurrent calls each get their own answer" $stray_ok
Check "stray: still ready" Is stray s.status ready

# ---- an env value on stderr ------------------------------------------------------------------------
Cli call secret env
Check "secret: the value reached the process (its env tool)" \
  test "$(printf '%s' "$OUT" | Json 'd.API_KEY')" = "$SECRET"
StderrSeen() { grep -q 'server "secret": stderr: API_KEY is' "$TMP/mcpgwd.log"; }
WaitFor 5 StderrSeen || true
Check "secret: its stderr line is logged" StderrSeen
long_line_len="$(grep 'server "secret": stderr: LLLL' "$TMP/mcpgwd.log" | awk '{ print length($0) }' | sort -n | tail -n 1)"
Check "secret: a 20,000-byte stderr line is logged cut to 8 KiB (${long_line_len:-no line})" \
  bash -c "[ -n '$long_line_len' ] && [ '$long_line_len' -ge 8000 ] && [ '$long_line_len' -le $((8192 + 200)) ]"
Cli call secret exit '{"code":4}'
ExpectRc 5 "secret: its exit fails the call as transport"
WaitFor 10 Is secret s.status ready || true
NoSecret() {
  local where="$1" file="$2"
  if grep -qF -- "a-distinct" "$file"; then
    Fail "secret: the env value is not in $where" "$(grep -oF -- "a-distinct" "$file" | head -n 1) found: $(grep -F -- "a-distinct" "$file" | head -n 1 | cut -c1-200)"
  else
    Pass "secret: the env value is not in $where"
  fi
}
Cli status --json
printf '%s' "$OUT" >"$TMP/status-secret.json"
NoSecret "mcpgw status --json" "$TMP/status-secret.json"
Check "secret: status shows the redacted line instead" grep -q 'API_KEY is <redacted>' "$TMP/status-secret.json"
Cli status
printf '%s' "$OUT" >"$TMP/status-secret.txt"
NoSecret "mcpgw status" "$TMP/status-secret.txt"
NoSecret "the daemon log" "$TMP/mcpgwd.log"

# ---- exit mid-call: transport, "may have run", never sent again -------------------------------------
Cli call crash count
Check "crash: count 1 before" test "$OUT" = 1
P_CRASH="$(Srv crash l.pid)"
timeout 60 "$MCPGW" call crash slow '{"ms":30000}' >"$TMP/slow.out" 2>"$TMP/slow.err" &
SLOW=$!
PIDS+=("$SLOW")
Check "crash: slow is in flight" WaitFor 10 Is crash s.in_flight 1
# Stopped, the server reads nothing: `exit` then `count` wait in its stdin in
# that order, so `count` is in flight, written to the process, when it exits.
kill -STOP "$P_CRASH"
timeout 60 "$MCPGW" call crash exit '{"code":7}' >"$TMP/exit.out" 2>"$TMP/exit.err" &
EXIT=$!
PIDS+=("$EXIT")
WaitFor 10 Is crash s.in_flight 2 || true
timeout 60 "$MCPGW" call crash count >"$TMP/count.out" 2>"$TMP/count.err" &
COUNT=$!
PIDS+=("$COUNT")
Check "crash: slow, exit and count in flight at once" WaitFor 10 Is crash s.in_flight 3
sleep 0.3
kill -CONT "$P_CRASH"
T_EXIT=$SECONDS
for job in "$SLOW:slow" "$EXIT:exit" "$COUNT:count"; do
  rc=0
  wait "${job%%:*}" || rc=$?
  name="${job#*:}"
  if [ "$rc" -eq 5 ] && grep -q "the local server exited with code 7 during the call; the tool may have run" "$TMP/$name.err"; then
    Pass "crash: the $name call fails as transport: the tool may have run"
  else
    Fail "crash: the $name call" "exit $rc, stdout $(cat "$TMP/$name.out"), stderr $(cat "$TMP/$name.err")"
  fi
done
if WaitFor 3 IsError crash; then
  ExpectStatusMatch crash error "^the local server exited with code 7"
else
  Fail "crash: status error after the exit" "status $(Srv crash s.status) $(Srv crash s.reason)"
fi
Check "crash: the log says the process exited with code 7" \
  grep -q 'server "crash": the process exited with code 7' "$TMP/mcpgwd.log"
if WaitFor 10 Is crash s.status ready; then
  Pass "crash: ready again $((SECONDS - T_EXIT)) s after the exit"
else
  Fail "crash: ready again after a restart" "status $(Srv crash s.status): $(Srv crash s.reason)"
fi
Check "crash: restarts >= 1 ($(Srv crash l.restarts))" test "$(Srv crash l.restarts)" -ge 1
Check "crash: a new process" bash -c "[ '$(Srv crash l.pid)' != '$P_CRASH' ]"
Cli call crash count
Check "crash: count is 1 in the new process: nothing was sent again ($OUT)" test "$OUT" = 1

# ---- a grandchild holding the pipes -------------------------------------------------------------
GRANDCHILD="$(Srv grand 'l.stderr_tail.join("\n")' | sed -n 's/^grandchild \([0-9]*\)$/\1/p' | tail -n 1)"
P_GRAND="$(Srv grand l.pid)"
Check "grand: the grandchild ($GRANDCHILD) runs" Running "${GRANDCHILD:-0}"
Cli call grand exit '{"code":0}'
ExpectRc 5 "grand: its exit fails the call as transport"
Check "grand: the grandchild is gone once the server exited" WaitFor 3 Gone "${GRANDCHILD:-0}"
if WaitFor 10 Is grand s.status ready; then
  Pass "grand: restarted and ready, not stuck on the pipes the grandchild held"
else
  Fail "grand: restarted and ready" "status $(Srv grand s.status): $(Srv grand s.reason)"
fi
Check "grand: a new process" bash -c "[ '$(Srv grand l.pid)' != '$P_GRAND' ]"

# ---- a flood on one server does not slow another ------------------------------------------------
timeout 60 "$MCPGW" call flood stderr_flood '{"kb":150000}' >"$TMP/flood.out" 2>"$TMP/flood.err" &
FLOOD=$!
PIDS+=("$FLOOD")
WaitFor 5 Is flood s.in_flight 1 || true
slowest=0
during=0
for i in 1 2 3 4 5; do
  kill -0 "$FLOOD" 2>/dev/null && during=$((during + 1))
  t0="$(NowMs)"
  Cli call quick echo "{\"message\":\"quick $i\"}"
  ms=$(($(NowMs) - t0))
  [ "$OUT" = "quick $i" ] || ms=999999
  [ "$ms" -gt "$slowest" ] && slowest=$ms
  sleep 0.1
done
Check "quick: echo answers within 1 s while flood floods (slowest ${slowest} ms, $during of 5 during the flood)" \
  test "$slowest" -lt 1000
Check "flood: the flood was still going on for the first echoes ($during)" test "$during" -ge 2
rc=0
wait "$FLOOD" || rc=$?
Check "flood: its 150 MB stderr call completes (exit $rc, $(cat "$TMP/flood.out"))" \
  test "$(cat "$TMP/flood.out")" = flooded
Check "flood: still the first process (restarts 0)" Is flood l.restarts 0

# ---- restarts back off ------------------------------------------------------------------------------
elapsed=$((SECONDS - T_FLAPPY))
restarts="$(Srv flappy l.restarts)"
# 1 s, doubling: by t seconds at most about log2(t) + 2 restarts.
bound="$(awk -v t="$elapsed" 'BEGIN { print int(log(t + 1) / log(2)) + 2 }')"
Check "flappy: restarted ($restarts times in $elapsed s)" test "$restarts" -ge 2
Check "flappy: restarts back off (1 s, doubling: $restarts <= $bound in $elapsed s)" test "$restarts" -le "$bound"
ExpectStatusMatch flappy error "exited with code 3"

# ---- a reload removes one that ignores SIGTERM and stdin's end -----------------------------------------
P_STUBBORN="$(Srv stubborn l.pid)"
FAULTY_WITHOUT_STUBBORN=()
for e in "${FAULTY[@]}"; do [ "$e" = "$E_STUBBORN" ] || FAULTY_WITHOUT_STUBBORN+=("$e"); done
t0="$(NowMs)"
Reload "$E_QUICK" "$E_KEEP" "$E_CHANGE_B" "${FAULTY_WITHOUT_STUBBORN[@]}"
if WaitFor 8 Gone "$P_STUBBORN"; then
  ms=$(($(NowMs) - t0))
  Check "stubborn: ended ${ms} ms after the reload removed it (within ~5 s)" test "$ms" -le 6000
  Check "stubborn: not before stdin's end and SIGTERM had their 2 s each (${ms} ms >= 3500)" test "$ms" -ge 3500
else
  Fail "stubborn: ended after the reload removed it" "pid $P_STUBBORN still runs 8 s later"
fi
Check "stubborn: it got SIGTERM (and ignored it)" grep -q 'server "stubborn": stderr: SIGTERM ignored' "$TMP/mcpgwd.log"

# ---- the faulty servers removed: nothing left -----------------------------------------------------
Descendants "$DAEMON_PID" >"$TMP/tree.txt"
FAULTY_PIDS=""
for ns in noisy flood long crash grand stray mute flappy onpath envcheck secret; do
  FAULTY_PIDS="$FAULTY_PIDS $(Srv "$ns" l.pid | grep -E '^[0-9]+$' || true)"
done
Reload "$E_QUICK" "$E_KEEP" "$E_CHANGE_B" "$E_GONE"
Check "the faulty servers' processes ended within 6 s of the reload" WaitFor 6 NoLeftover $FAULTY_PIDS
WaitFor 10 Is gone s.status ready || true
FourKeepers() { test "$(Children "$DAEMON_PID" | wc -l)" = 4; }
Check "mcpgwd has one child per local server again (4)" WaitFor 5 FourKeepers
zombies=""
for p in $(Children "$DAEMON_PID"); do
  grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && zombies="$zombies $p"
done
Check "no zombie among mcpgwd's children ($(Children "$DAEMON_PID" | tr '\n' ' '))" test -z "$zombies"
Descendants "$DAEMON_PID" >"$TMP/tree-now.txt"
Check "no zombie anywhere below mcpgwd ($(wc -l <"$TMP/tree-now.txt") processes)" \
  bash -c "! awk '\$2 == \"Z\"' '$TMP/tree-now.txt' | grep -q ."
FdBack() { test "$(FdCount "$DAEMON_PID")" -le $((FD0 + 2)); }
if WaitFor 5 FdBack; then
  Pass "mcpgwd's open descriptors are back to start-up's ($(FdCount "$DAEMON_PID"), was $FD0)"
else
  Fail "mcpgwd's open descriptors back to start-up's" "$(FdCount "$DAEMON_PID") open, $FD0 after start-up: $(ls -l /proc/"$DAEMON_PID"/fd | awk '{ print $NF }' | sort | uniq -c | sort -rn | head -n 5 | tr '\n' ' ')"
fi
for ns in quick keep change gone; do Check "$ns: ready after it all" Is "$ns" s.status ready; done
Cli call quick echo '{"message":"still here"}'
Check "quick: still answers" test "$OUT" = "still here"

# ---- shutdown (SIGTERM) ends every process, a stubborn one too --------------------------------------------
Reload "$E_QUICK" "$E_KEEP" "$E_CHANGE_B" "$E_GONE" "$(Entry stubborn2 --ignore-sigterm --ignore-stdin-eof)"
WaitFor 10 Is stubborn2 s.status ready || true
Descendants "$DAEMON_PID" >"$TMP/tree.txt"
watch=""
while read -r p st pg; do watch="$watch $p"; done <"$TMP/tree.txt"
Check "before shutdown: 5 servers and their keepers run ($(Leftover $watch | wc -l))" test "$(Leftover $watch | wc -l)" -ge 10
t0="$(NowMs)"
StopDaemon
Check "shutdown took $(($(NowMs) - t0)) ms (< 8 s with a stubborn server)" test $(($(NowMs) - t0)) -lt 8000
Check "after shutdown no server process is left" WaitFor 2 NoLeftover $watch
Check "stubborn2 got SIGTERM at shutdown" grep -q 'server "stubborn2": stderr: SIGTERM ignored' "$TMP/mcpgwd.log"

# ---- mcpgwd killed with SIGKILL: the keeper ends a stubborn server -----------------------------------------
Config "$E_QUICK" "$(Entry stubborn3 --ignore-sigterm --ignore-stdin-eof)" >"$TMP/mcp.json"
StartDaemon "$TMP/mcp.json"
Cli wait --timeout 30
ExpectRc 0 "mcpgw wait: quick and stubborn3"
P_STUBBORN3="$(Srv stubborn3 l.pid)"
Descendants "$DAEMON_PID" >"$TMP/tree.txt"
watch="$P_STUBBORN3 $(Srv quick l.pid)"
while read -r p st pg; do watch="$watch $p"; done <"$TMP/tree.txt"
Check "stubborn3 runs (pid $P_STUBBORN3)" Running "$P_STUBBORN3"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
t0="$(NowMs)"
if WaitFor 6 NoLeftover $watch; then
  Pass "mcpgwd killed: every server process ended, stubborn3 too ($(($(NowMs) - t0)) ms)"
else
  Fail "mcpgwd killed: every server process ends within 6 s" "still running: $(Leftover $watch | tr '\n' ' ')"
fi
Finish
