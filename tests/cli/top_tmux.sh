#!/usr/bin/env bash
# `mcpgw top` (docs/CLI.md) in a real terminal: tmux on a private socket runs
# it at 120x40 against a daemon with four servers (ready: fault-server /ok;
# failing: a closed port; slow and local: the stdio fault server, `slow` calls
# of 300 ms on the first, echo calls and some stderr on the second) and reads
# the screen with capture-pane. Checked: every server's row with its state and
# transport, the local server's pid (as `mcpgw status --json` has it), the slow
# server's latency, sorting (s, >, r), the filter (/ text Enter, Esc), a row's
# detail (Enter; Esc and q close it), unknown keys, a resize below 60x10 (the
# one-line message) and back, a daemon restart ("daemon not reachable", then
# "reconnected (daemon restarted)"), q (exit 0) and Ctrl-C (exit 130), each
# leaving the terminal as it was (modes and the alternate screen). Then
# `--once` and `--json` against the same figures from `mcpgw status --json`,
# `--json` ended by a closed stdout and by SIGINT, no daemon (the message and
# exit code of `mcpgw status`), and no terminal.
# MCPGW_TOP_FRAME_OUT=FILE keeps a captured frame (for the docs).
# Usage: tests/cli/top_tmux.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/../interop/lib.sh" "$@"

if ! command -v tmux >/dev/null; then
  echo "$SCRIPT_NAME: tmux is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
FS="$FIXTURES/stdio-fault-server.mjs"

# A tmux server of its own (a socket in $TMP, no config file), stopped on exit.
TSOCK="$TMP/tmux.sock"
T() { tmux -S "$TSOCK" -f /dev/null "$@"; }
trap 'T kill-server >/dev/null 2>&1 || true; Cleanup' EXIT

StartServer FAULT_PORT fault-server "$NODE" "$FIXTURES/fault-server.mjs" --port 0
CLOSED_PORT="$("$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})')"
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "ready":   {"url": "http://127.0.0.1:$FAULT_PORT/ok"},
  "failing": {"url": "http://127.0.0.1:$CLOSED_PORT/mcp"},
  "slow":    {"command": "$NODE", "args": ["$FS", "--name", "slow"]},
  "local":   {"command": "$NODE", "args": ["$FS", "--name", "local"]}
}}
EOF
chmod 0600 "$TMP/mcp.json"
StartDaemon "$TMP/mcp.json"
Cli wait --timeout 60
ExpectRc 0 "the servers are up (the failing one in error)"

# Calls for the figures: latencies on slow, calls on ready and local, stderr lines on local.
for _ in 1 2 3; do Cli call slow slow '{"ms": 300}'; done
ExpectRc 0 "calls to the slow server"
for _ in 1 2 3 4 5; do Cli call ready probe '{}'; done
ExpectRc 0 "calls to the ready server"
Cli call local stderr_flood '{"kb": 1}'
ExpectRc 0 "a call that writes stderr lines on the local server"
Cli call failing probe '{}'
Check "a call to the failing server fails" test "$RC" -ne 0

# ---- the screen --------------------------------------------------------------------------------
Pane() { T capture-pane -p -t "$1"; }
# OnScreen PANE REGEX: the pane shows a line matching REGEX.
OnScreen() { Pane "$1" | grep -Eq -- "$2"; }
NotOnScreen() { ! OnScreen "$@"; }
# ExpectScreen NAME PANE REGEX: waits up to 10 s for it.
ExpectScreen() {
  if WaitFor 10 OnScreen "$2" "$3"; then
    Pass "$1"
  else
    Fail "$1" "no line matches /$3/; the screen:
$(Pane "$2" 2>&1 | sed 's/^/    | /')"
  fi
}
# Keys PANE KEY...: sends them, a little apart (as typed).
Keys() {
  local pane="$1" key
  shift
  for key in "$@"; do
    T send-keys -t "$pane" "$key"
    sleep 0.15
  done
}
# RowOrder PANE: the names of the table's rows, top to bottom, one line.
RowOrder() {
  Pane "$1" | awk 'found && NF { printf "%s ", $1 } /^NAME +STATE/ { found = 1 }'
}
AltScreen() { T display-message -p -t "$1" '#{alternate_on}'; }

# Runs `mcpgw top` in a 120x40 session NAME; once it ends the pane says whether
# the terminal's modes are as they were and its exit code, and stays.
StartTop() {
  local name="$1"
  shift
  T new-session -d -s "$name" -x 120 -y 40 \
    "unset NO_COLOR; before=\$(stty -g); MCPGW_SOCKET='$SOCK' '$MCPGW' top $*; rc=\$?; \
     [ \"\$(stty -g)\" = \"\$before\" ] && echo TTY=restored || echo TTY=changed; \
     echo EXIT=\$rc; sleep 120"
}

Cli status --json
LOCAL_PID="$(printf '%s' "$OUT" | Json 'String(d.servers.find((s) => s.namespace === "local").local.pid)')"

StartTop main --interval 0.5
ExpectScreen "the header: version, uptime, hosts, memory, CPU" main \
  '^mcpgwd [^ ]+  pid [0-9]+  up [0-9]+[smhd]( [0-9]+[smh])?  hosts [0-9]+  mem [0-9.]+[KMG]  cpu '
ExpectScreen "the header's second line: calls/s, in flight, queued, the sort" main \
  '^calls/s [0-9.]+  in flight [0-9]+  queued [0-9]+  sort NAME \(asc\)  4 servers, 1 in error'
ExpectScreen "the column titles" main \
  '^NAME +STATE +TRANSPORT +CALLS/S +P50 +P99 +ERR/MIN +IN FLIGHT +QUEUED +PID +RESTARTS +MEM$'
ExpectScreen "the ready server's row (http)" main '^ready +ready +http +'
ExpectScreen "the failing server's row: error" main '^failing +error +http +'
ExpectScreen "the local server's row: stdio, its pid, 0 restarts, its memory" main \
  "^local +ready +stdio +.* $LOCAL_PID +0 +[0-9.]+[KMG]\$"
ExpectScreen "the slow server's p50 and p99 after 300 ms calls (the histogram's estimate)" main \
  '^slow +ready +stdio +[0-9.]+ +[2-4][0-9][0-9]ms +[2-4][0-9][0-9]ms '
ExpectScreen "CPU % from the second refresh on" main '  cpu [0-9]+\.[0-9]%$'
Check "rows in name order" test "$(RowOrder main)" = "failing local ready slow "
Check "the alternate screen is on while top runs" test "$(AltScreen main)" = 1
Check "states in colour (green ready, red error)" bash -c \
  "tmux -S '$TSOCK' capture-pane -e -p -t main | grep -q $'\x1b\\[32mready' &&
   tmux -S '$TSOCK' capture-pane -e -p -t main | grep -q $'\x1b\\[1;31merror\\|\x1b\\[31m\x1b\\[1merror\\|\x1b\\[1m\x1b\\[31merror'"
if [ -n "${MCPGW_TOP_FRAME_OUT:-}" ]; then Pane main | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$MCPGW_TOP_FRAME_OUT"; fi

# Sorting: s steps to STATE; > to TRANSPORT, CALLS/S, then P50 (biggest first); r reverses;
# < steps back.
Keys main s
ExpectScreen "s sorts by state" main 'sort STATE \(asc\)'
Check "error first, then ready by name" test "$(RowOrder main)" = "failing local ready slow "
Keys main '>' '>' '>'
ExpectScreen "> moves the sort on, to P50 biggest first" main 'sort P50 \(desc\)'
Check "the slow server first" test "$(RowOrder main | cut -d' ' -f1)" = slow
Keys main r
ExpectScreen "r reverses" main 'sort P50 \(asc\)'
Check "the slow server no longer first" test "$(RowOrder main | cut -d' ' -f1)" != slow
Keys main '<' '<' '<' '<'
ExpectScreen "< goes back to NAME" main 'sort NAME \(asc\)'
Check "rows in name order again" test "$(RowOrder main)" = "failing local ready slow "

# Filter: / text Enter keeps the rows whose name contains it; Esc clears it.
Keys main / l o
ExpectScreen "/ shows what is typed" main '^filter: lo_'
Check "nothing filtered before Enter" test "$(RowOrder main)" = "failing local ready slow "
Keys main c Enter
ExpectScreen "Enter applies the filter" main 'filter "loc": 1 of 4'
Check "only the local server's row" test "$(RowOrder main)" = "local "
Keys main Escape
ExpectScreen "Esc clears the filter" main 'sort NAME \(asc\)  4 servers'
Check "every row again" test "$(RowOrder main)" = "failing local ready slow "

# Detail: the failing server (the first row, selected), its reason and last error.
Keys main Enter
ExpectScreen "Enter opens the selected row's detail" main '^failing  error  http$'
ExpectScreen "the detail: the reason" main '^reason: +.*(refused|connect)'
ExpectScreen "the detail: the last error" main '^last error: +.+\((just now|[0-9]+[smhd] ago)\)$'
ExpectScreen "the detail says how to close it" main '^Esc or q: back to the table$'
Keys main Escape
ExpectScreen "Esc closes the detail" main '^NAME +STATE'
# The local server's detail: its process and the last lines of its stderr; q closes it.
Keys main j Enter
ExpectScreen "the local server's detail: its process" main "^process: +pid $LOCAL_PID, 0 restarts"
ExpectScreen "the local server's detail: its last stderr lines" main '^stderr, last lines:$'
Keys main q
ExpectScreen "q closes the detail (top goes on)" main '^NAME +STATE'

# Unknown keys: nothing happens.
Keys main x Z 1 F5 '?' BTab
sleep 0.5
Check "unknown keys change nothing" OnScreen main '^NAME +STATE'
Check "top still runs after unknown keys" NotOnScreen main '^EXIT='

# Resize: too small, then back.
T resize-window -t main -x 50 -y 8
ExpectScreen "a 50x8 terminal: one line in place of the layout" main \
  '^terminal too small: 50x8, mcpgw top needs 60x10$'
Check "nothing else on the too-small screen" test "$(Pane main | grep -c .)" = 1
T resize-window -t main -x 120 -y 40
ExpectScreen "back to 120x40: the table again" main '^local +ready +stdio'

# A daemon restart: top stays, says the daemon is gone, then that it came back.
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || true
ExpectScreen "the daemon stopped: top says so and retries" main '^daemon not reachable, retrying'
Check "top keeps the last rows meanwhile" OnScreen main '^local +ready'
StartDaemon "$TMP/mcp.json"
ExpectScreen "the daemon back: top says it restarted" main '^reconnected \(daemon restarted\)$'
ExpectScreen "the new daemon's rows" main '^local +(ready|loading) +stdio'

# q quits: exit 0, the terminal as it was.
Keys main q
ExpectScreen "q quits with exit 0" main '^EXIT=0$'
Check "q: the terminal's modes restored" OnScreen main '^TTY=restored$'
Check "q: the alternate screen is off" test "$(AltScreen main)" = 0

# Ctrl-C: exit 130, the terminal as it was.
StartTop ctrlc
ExpectScreen "a second top draws" ctrlc '^NAME +STATE'
Keys ctrlc C-c
ExpectScreen "Ctrl-C ends top with exit 130" ctrlc '^EXIT=130$'
Check "Ctrl-C: the terminal's modes restored" OnScreen ctrlc '^TTY=restored$'
Check "Ctrl-C: the alternate screen is off" test "$(AltScreen ctrlc)" = 0

# NO_COLOR: the same screen (colours are only where the terminal has them and are not asked off).
T new-session -d -s nocolor -x 120 -y 40 "NO_COLOR=1 MCPGW_SOCKET='$SOCK' '$MCPGW' top; sleep 60"
ExpectScreen "top runs under NO_COLOR" nocolor '^local +ready'
Check "NO_COLOR: no colour on the screen" bash -c "! tmux -S '$TSOCK' capture-pane -e -p -t nocolor | grep -q $'\x1b\\[3[1-3]m'"

# ---- --once and --json, without a terminal ---------------------------------------------------
Cli wait --timeout 60
Cli call slow slow '{"ms": 200}'
Cli call local echo '{"message": "hi"}'
Cli status --json
printf '%s' "$OUT" >"$TMP/status.json"
Cli top --once
ExpectRc 0 "top --once without a terminal"
printf '%s\n' "$OUT" >"$TMP/once.txt"
Check "--once: the header" grep -Eq '^mcpgwd [^ ]+  pid [0-9]+  up ' "$TMP/once.txt"
Check "--once: a row per server" test "$(awk '/^NAME +STATE/ { f = 1; next } f && NF' "$TMP/once.txt" | wc -l)" = 4
Check "--once: no escape sequence" bash -c "! grep -q $'\x1b' '$TMP/once.txt'"
NEW_LOCAL_PID="$(Json 'String(d.servers.find((s) => s.namespace === "local").local.pid)' <"$TMP/status.json")"
Check "--once: the local server's pid as status has it" grep -Eq "^local +ready +stdio .* $NEW_LOCAL_PID +0 +[0-9.]+[KMG]\$" "$TMP/once.txt"

Cli top --json --once
ExpectRc 0 "top --json --once"
printf '%s' "$OUT" >"$TMP/top.json"
Check "--json --once: one line" test "$(printf '%s\n' "$OUT" | wc -l)" = 1
# Each server's figures against the status's (no call ran between the two).
COMPARE="$("$NODE" -e '
  const fs = require("fs");
  const st = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const top = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const bad = [];
  const eq = (what, a, b) => { if (JSON.stringify(a) !== JSON.stringify(b)) bad.push(`${what}: top ${JSON.stringify(a)}, status ${JSON.stringify(b)}`); };
  eq("servers", top.servers.map((s) => s.namespace), st.servers.map((s) => s.namespace));
  eq("daemon pid", top.daemon.pid, st.daemon.pid);
  eq("daemon version", top.daemon.version, st.daemon.version);
  for (const s of st.servers) {
    const t = top.servers.find((x) => x.namespace === s.namespace) || {};
    const m = s.minute || {};
    eq(`${s.namespace} state`, t.state, s.status);
    eq(`${s.namespace} transport`, t.transport, s.http_version === "HTTP/2" ? "h2" : s.transport);
    eq(`${s.namespace} p50`, t.p50_ms, m.p50_ms ?? null);
    eq(`${s.namespace} p99`, t.p99_ms, m.p99_ms ?? null);
    const errors = Object.fromEntries(Object.entries(m.errors || {}).filter(([, n]) => n > 0));
    eq(`${s.namespace} errors`, t.errors_last_minute, errors);
    eq(`${s.namespace} in flight`, t.in_flight, s.in_flight);
    eq(`${s.namespace} queued`, t.queued, s.queued);
    eq(`${s.namespace} calls/s`, t.calls_per_s, Math.round((m.calls || 0) / 60 * 1000) / 1000);
    eq(`${s.namespace} pid`, t.pid, s.local ? s.local.pid : null);
    eq(`${s.namespace} restarts`, t.restarts, s.local ? s.local.restarts : null);
  }
  if (!("minute" in (st.servers[0] || {}))) bad.push("the status has no minute figures");
  console.log(bad.length ? bad.join("; ") : "same");
' "$TMP/status.json" "$TMP/top.json" 2>&1)"
Check "--json: the figures of status --json (${COMPARE:0:400})" test "$COMPARE" = same
SLOW_P50="$(Json 'String(d.servers.find((s) => s.namespace === "slow").p50_ms)' <"$TMP/top.json")"
Check "--json: the slow server's p50 after a 200 ms call ($SLOW_P50)" \
  awk -v p="$SLOW_P50" 'BEGIN { exit !(p >= 150 && p < 400) }'

# --json streams a line per interval; a reader that stops ends it (exit 0).
RC=0
{
  timeout 20 "$MCPGW" top --json --interval 0.2 2>"$TMP/json.err" | head -n 3 >"$TMP/json.out"
  RC="${PIPESTATUS[0]}"
} || true
Check "--json: three lines, each JSON with the daemon's figures" test \
  "$("$NODE" -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n"); console.log(l.length === 3 && l.every((x) => JSON.parse(x).daemon.pid > 0) ? "ok" : "bad")' "$TMP/json.out")" = ok
Check "--json: a closed stdout ends it with exit 0 (got $RC)" test "$RC" = 0
Check "--json: CPU % from the second line on" bash -c "sed -n 2p '$TMP/json.out' | grep -Eq '\"cpu_percent\":[0-9]'"
# SIGINT ends it with 130.
"$MCPGW" top --json --interval 0.2 >"$TMP/json2.out" 2>&1 &
JSON_PID=$!
PIDS+=("$JSON_PID")
WaitFor 10 test -s "$TMP/json2.out" || true
kill -INT "$JSON_PID"
RC=0
wait "$JSON_PID" || RC=$?
Check "--json: SIGINT ends it with exit 130 (got $RC)" test "$RC" = 130

# No terminal and neither --once nor --json: misuse, said so.
Cli top </dev/null
ExpectRc 2 "top without a terminal: exit 2"
Check "top without a terminal: says to use --once or --json" bash -c "grep -q -- '--once' <<<\"\$1\"" _ "$ERR"

# No daemon: the message and exit code of mcpgw status.
export MCPGW_SOCKET="$TMP/nothing-here.sock"
Cli status
STATUS_RC="$RC"
STATUS_ERR="$ERR"
for args in "" "--once" "--json"; do
  if [ -z "$args" ]; then
    # In a terminal, as a person runs it.
    T new-session -d -s nodaemon -x 120 -y 40 \
      "MCPGW_SOCKET='$MCPGW_SOCKET' '$MCPGW' top 2>&1; echo EXIT=\$?; sleep 60"
    ExpectScreen "top with no daemon (terminal): exit as status ($STATUS_RC)" nodaemon "^EXIT=$STATUS_RC\$"
    Check "top with no daemon (terminal): status's message" \
      bash -c "tmux -S '$TSOCK' capture-pane -p -J -t nodaemon | grep -qF -- \"\$1\"" _ "$STATUS_ERR"
    continue
  fi
  Cli top $args
  Check "top $args with no daemon: exit $STATUS_RC as status" test "$RC" = "$STATUS_RC"
  Check "top $args with no daemon: status's message" test "$ERR" = "$STATUS_ERR"
done
Check "no daemon: the message is status's one line" test "$(printf '%s\n' "$STATUS_ERR" | wc -l)" = 1

export MCPGW_SOCKET="$SOCK"
StopDaemon
Finish
