# Shared by the security scripts (sourced after tests/interop/lib.sh): starts
# mcpgwd with a settings file and debug logging, and greps outputs for text
# that must never appear.

# StartDaemonWith CONFIG SETTINGS: starts mcpgwd on $SOCK at debug level,
# stderr to $TMP/mcpgwd.log, and waits until the socket exists.
StartDaemonWith() {
  "$MCPGWD" --config "$1" --settings "$2" --socket "$SOCK" --log-level debug \
    2>>"$TMP/mcpgwd.log" &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  for _ in $(seq 100); do
    [ -S "$SOCK" ] && return 0
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "$SCRIPT_NAME: mcpgwd did not start:" >&2
  cat "$TMP/mcpgwd.log" >&2
  exit 1
}

# Collect NAME: appends the last Cli's stdout and stderr to $TMP/collected,
# labelled, for the final grep.
Collect() {
  { echo "== $1: stdout"; cat "$TMP/cli.out"; echo "== $1: stderr"; cat "$TMP/cli.err"; } \
    >>"$TMP/collected"
}

# ClosedPort: prints a loopback port nothing listens on.
ClosedPort() {
  "$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})'
}

# StopDaemon: SIGTERM, then checks that mcpgwd exited 0 within 15 s and that
# its log holds no sanitizer report (for -DMCPGW_SANITIZE builds).
StopDaemon() {
  local rc=0
  kill -TERM "$DAEMON_PID" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
  wait "$DAEMON_PID" || rc=$?
  Check "mcpgwd exits 0 on SIGTERM" test "$rc" = 0
  Check "no sanitizer report in the daemon log" bash -c "! grep -q 'Sanitizer\|runtime error:' '$TMP/mcpgwd.log'"
}
