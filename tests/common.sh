# Process handling shared by the script tests (sourced by tests/interop,
# tests/service and tests/security through their lib.sh, never run): bounds
# the whole script's time, finds the build, makes a private temp dir, kills
# every process it started on exit, counts checks, and waits with deadlines.
#
# A folder's lib.sh sets, before sourcing this file:
#   BOUND_VAR      the variable that marks the re-run under timeout
#   BOUND_SECONDS  the bound, in seconds
#   TMP_PREFIX     the temp dir's name prefix (mcpgw-interop, ...)
# and sources it with the script's arguments:  source ".../common.sh" "$@"

# Bound the whole script: re-run it under timeout, whose SIGTERM reaches the
# trap below so every process it started is stopped.
if [ -z "${!BOUND_VAR:-}" ]; then
  export "$BOUND_VAR"=1
  exec timeout --kill-after=10 "$BOUND_SECONDS" bash "$0" "$@"
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME="$(basename "$0" .sh)"

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD_DIR   (the CMake build dir holding daemon/mcpgwd and client/mcpgw," >&2
  echo "       or an install prefix holding bin/mcpgwd and bin/mcpgw)" >&2
  exit 2
fi
BUILD="$(cd "$1" && pwd)"
MCPGWD="$BUILD/daemon/mcpgwd"
MCPGW="$BUILD/client/mcpgw"
# An install prefix (cmake --install build --prefix DIR): the installed programs.
if [ ! -e "$MCPGWD" ] && [ -e "$BUILD/bin/mcpgwd" ]; then
  MCPGWD="$BUILD/bin/mcpgwd"
  MCPGW="$BUILD/bin/mcpgw"
fi
for bin in "$MCPGWD" "$MCPGW"; do
  if [ ! -x "$bin" ]; then
    echo "$SCRIPT_NAME: $bin is missing; build it first (cmake --build $BUILD)" >&2
    exit 1
  fi
done

TMP="$(mktemp -d "${TMPDIR:-/tmp}/$TMP_PREFIX.XXXXXX")"
# The daemons of one script keep their state (OAuth tokens, pinned tool
# definitions) here, never in the user's own ~/.local/state.
export XDG_STATE_HOME="$TMP/state"

PIDS=()
PASSED=0
FAILED=0
DAEMON_PID=""

# Stops every process the script started (TERM, then KILL after 3 s), shows
# the tail of each log when a check failed, and removes the temp dir.
Cleanup() {
  local pid f
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "$FAILED" -gt 0 ]; then
    for f in "$TMP"/*.log; do
      [ -f "$f" ] || continue
      echo "---- last lines of $(basename "$f") ----"
      tail -n 40 "$f" || true
    done
  fi
  rm -rf "$TMP"
}
trap Cleanup EXIT
trap 'exit 130' INT TERM

Pass() { PASSED=$((PASSED + 1)); echo "ok   $1"; }
Fail() { FAILED=$((FAILED + 1)); echo "FAIL $1${2:+: $2}"; }

# Check NAME COMMAND...: passes when COMMAND succeeds.
Check() {
  local name="$1"
  shift
  if "$@"; then Pass "$name"; else Fail "$name"; fi
}

# Prints the summary line and exits with the verdict.
Finish() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
  exit $?
}

# WaitFor SECONDS COMMAND...: runs COMMAND every 0.1 s (it re-reads whatever
# it checks each time) until it succeeds or SECONDS pass; then once more.
WaitFor() {
  local deadline=$((SECONDS + $1))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@" >/dev/null 2>&1
}

# Cli [ARGS...]: runs `mcpgw ARGS` bounded to $CLI_TIMEOUT seconds (60);
# stdout in OUT, stderr in ERR, exit status in RC. Never fails the script.
Cli() {
  RC=0
  timeout "${CLI_TIMEOUT:-60}" "$MCPGW" "$@" >"$TMP/cli.out" 2>"$TMP/cli.err" || RC=$?
  OUT="$(cat "$TMP/cli.out")"
  ERR="$(cat "$TMP/cli.err")"
}

# ExpectRc WANT NAME: checks the last Cli's exit status.
ExpectRc() {
  if [ "$RC" -eq "$1" ]; then
    Pass "$2"
  else
    Fail "$2" "exit $RC, want $1; stdout: ${OUT:0:300}; stderr: ${ERR:0:300}"
  fi
}

# StartDaemon CONFIG [SOCKET [ARGS...]]: starts mcpgwd (stderr appended to
# $TMP/mcpgwd.log) on SOCKET (default $SOCK) and waits until its socket exists.
StartDaemon() {
  local config="$1" socket="${2:-$SOCK}"
  shift
  if [ $# -gt 0 ]; then shift; fi
  "$MCPGWD" --config "$config" --socket "$socket" "$@" 2>>"$TMP/mcpgwd.log" &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  for _ in $(seq 200); do
    [ -S "$socket" ] && return 0
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "$SCRIPT_NAME: mcpgwd did not start:" >&2
  cat "$TMP/mcpgwd.log" >&2
  exit 1
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
