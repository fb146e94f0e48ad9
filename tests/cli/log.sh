#!/usr/bin/env bash
# `mcpgw log` (docs/CLI.md) against a real daemon with a call log
# (call_log.path in settings.json, a small max_bytes so that it rotates) and
# the SDK fixture server: the status names the log; a call that succeeds and
# one that fails show as rows, and without argument values; --errors,
# --server/--tool and --since filter; a bad --since is misuse; --json prints
# the file's own lines, each of them JSON; `mcpgw log -f` started in the
# background prints a call made after it started and the calls after a
# rotation, each once and in order, and ends 0 on SIGINT; no daemon reads as
# it does for `mcpgw status`; a daemon without a call log says how to turn it
# on.
# Usage: tests/cli/log.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/../interop/lib.sh" "$@"

StartServer SDK_PORT sdk-server "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 5
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {"sdk": {"url": "http://127.0.0.1:$SDK_PORT/mcp"}}}
EOF
LOG="$TMP/calls.jsonl"
# 4096 bytes, the least call_log.max_bytes allows: a rotation every dozen or so calls.
cat >"$TMP/settings.json" <<EOF
{"call_log": {"path": "$LOG", "max_bytes": 4096, "keep": 3}}
EOF
StartDaemon "$TMP/mcp.json" "$SOCK" --settings "$TMP/settings.json"

Cli wait --timeout 60
ExpectRc 0 "mcpgw wait: the fixture server is ready"
Cli status --json
Check "the status names the call log (daemon.call_log)" \
  test "$(printf '%s' "$OUT" | Json 'd.daemon.call_log')" = "$LOG"

# Every line the log keeps, oldest first: path.3, path.2, path.1, then path.
LogFiles() {
  local i
  for i in 3 2 1; do
    if [ -f "$LOG.$i" ]; then cat "$LOG.$i"; fi
  done
  cat "$LOG"
}
# Rows prints the rows of the last Cli with runs of spaces made one (widths may differ
# between a whole print and one that grew as it went).
Rows() { printf '%s\n' "$OUT" | tr -s ' '; }

# ---- rows ---------------------------------------------------------------------------------
Cli call sdk echo '{"text": "ARGVALUE_5e1f"}'
ExpectRc 0 "a call that succeeds"
Cli call sdk fail '{}'
ExpectRc 1 "a call that fails (backend)"

Cli log
ExpectRc 0 "mcpgw log"
Check "one row per call" test "$(printf '%s\n' "$OUT" | wc -l)" = 2
Check "the first row is the echo call, ok" \
  bash -c "printf '%s\n' \"\$1\" | sed -n 1p | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}  pid [0-9]+  sdk/echo +ok +[0-9.]+ m?s +[0-9.]+ K?B$'" _ "$OUT"
Check "the second row is the failed call, backend" \
  bash -c "printf '%s\n' \"\$1\" | sed -n 2p | grep -qE '  sdk/fail +backend +[0-9.]+ m?s +'" _ "$OUT"
Check "no argument value is shown" bash -c "! grep -q ARGVALUE <<<\"\$1\"" _ "$OUT"
Check "no colour into a pipe" bash -c "! grep -q $'\x1b' <<<\"\$1\"" _ "$OUT"
Check "nothing on stderr" test -z "$ERR"

Cli log --errors
ExpectRc 0 "mcpgw log --errors"
Check "--errors shows only the failed call" \
  bash -c "[ \"\$(printf '%s\n' \"\$1\" | wc -l)\" = 1 ] && grep -q 'sdk/fail' <<<\"\$1\"" _ "$OUT"
Cli log --server sdk --tool echo
Check "--server and --tool show only that tool's calls" \
  bash -c "[ \"\$(printf '%s\n' \"\$1\" | wc -l)\" = 1 ] && grep -q 'sdk/echo' <<<\"\$1\"" _ "$OUT"
Cli log --server other
Check "--server with no call shows nothing" test -z "$OUT"
Cli log --since 1h
Check "--since 1h shows both calls" test "$(printf '%s\n' "$OUT" | wc -l)" = 2
Cli log --since soon
ExpectRc 2 "a bad --since is misuse"
Check "the misuse names the value and the help" \
  bash -c "grep -q '\"soon\" is not a duration' <<<\"\$1\" && grep -q \"mcpgw log --help\" <<<\"\$1\"" _ "$ERR"

Cli log --json
ExpectRc 0 "mcpgw log --json"
Check "--json prints the file's lines as they are" test "$OUT" = "$(LogFiles)"
Check "every --json line is JSON" test "$(printf '%s\n' "$OUT" | "$NODE" -e '
  const lines = require("fs").readFileSync(0, "utf8").trim().split("\n");
  console.log(lines.every((l) => { try { return typeof JSON.parse(l) === "object"; } catch { return false; } }) ? lines.length : -1);
')" = 2

# ---- -f, across a rotation ----------------------------------------------------------------
# FollowHas COUNT [PATTERN]: -f has printed COUNT lines (matching PATTERN); read anew each time.
FollowHas() { test "$(grep -c -- "${2:-.}" "$TMP/follow.out")" = "$1"; }
"$MCPGW" log -f >"$TMP/follow.out" 2>"$TMP/follow.err" &
FOLLOW_PID=$!
PIDS+=("$FOLLOW_PID")
Check "-f prints what is there first" WaitFor 10 grep -q 'sdk/fail' "$TMP/follow.out"
Cli call sdk echo '{"text": "after -f started"}'
ExpectRc 0 "a call after -f started"
Check "-f prints the call made after it started" \
  WaitFor 10 FollowHas 2 sdk/echo
CALLS=3
for _ in $(seq 40); do
  Cli call sdk add '{"a": 1, "b": 2}'
  CALLS=$((CALLS + 1))
  if [ -f "$LOG.1" ]; then break; fi
done
Check "the call log rotated (calls.jsonl.1)" test -f "$LOG.1"
Cli call sdk echo '{"text": "after the rotation"}'
CALLS=$((CALLS + 1))
Check "-f prints the calls after the rotation" \
  WaitFor 10 FollowHas "$CALLS"
Check "the log keeps every call" test "$(LogFiles | wc -l)" = "$CALLS"
Cli log
Check "-f printed each call once, in the order mcpgw log prints them" \
  test "$(tr -s ' ' <"$TMP/follow.out")" = "$(Rows)"
Check "the last row -f printed is the call after the rotation" \
  bash -c "tail -n 1 '$TMP/follow.out' | grep -q 'sdk/echo'"
Cli log --json
Check "--json reads the rotated file first" test "$OUT" = "$(LogFiles)"
kill -INT "$FOLLOW_PID"
FOLLOW_RC=0
wait "$FOLLOW_PID" || FOLLOW_RC=$?
Check "-f ends with exit 0 on SIGINT" test "$FOLLOW_RC" = 0
Check "-f wrote nothing on stderr" test ! -s "$TMP/follow.err"

# ---- no daemon, no call log ---------------------------------------------------------------
Cli --socket "$TMP/nothing.sock" status
STATUS_RC=$RC
STATUS_ERR=$ERR
Cli --socket "$TMP/nothing.sock" log
ExpectRc "$STATUS_RC" "no daemon: mcpgw log exits as mcpgw status does ($STATUS_RC)"
Check "no daemon: the same message as mcpgw status" test "$ERR" = "$STATUS_ERR"

StopDaemon
echo '{}' >"$TMP/settings-off.json"
StartDaemon "$TMP/mcp.json" "$SOCK" --settings "$TMP/settings-off.json"
Cli status --json
Check "without a call log the status says null" \
  test "$(printf '%s' "$OUT" | Json 'd.daemon.call_log')" = null
Cli log
ExpectRc 1 "mcpgw log without a call log"
Check "it says the call log is off and how to turn it on" \
  bash -c "grep -q 'call log is off' <<<\"\$1\" && grep -q 'call_log' <<<\"\$1\" && grep -q 'SETTINGS.md' <<<\"\$1\"" _ "$ERR"
StopDaemon

Finish
