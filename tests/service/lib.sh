# Shared by the service scripts (sourced, not run): bounds the script's time,
# finds the build, makes a private temp dir with its own XDG directories, kills
# every process it started on exit, and counts checks.
# A script sources it with the build dir as $1:  source "$(dirname "$0")/lib.sh" "$@"

# Bound the whole script: re-run it under timeout, whose SIGTERM reaches the
# trap below so every process it started is stopped.
if [ -z "${MCPGW_SERVICE_BOUNDED:-}" ]; then
  export MCPGW_SERVICE_BOUNDED=1
  exec timeout --kill-after=10 "${MCPGW_SERVICE_TIMEOUT:-240}" bash "$0" "$@"
fi

SERVICE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SERVICE_DIR/../.." && pwd)"
SCRIPT_NAME="$(basename "$0" .sh)"

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD_DIR   (a configured and built CMake build dir)" >&2
  exit 2
fi
BUILD="$(cd "$1" && pwd)"
MCPGWD="$BUILD/daemon/mcpgwd"
MCPGW="$BUILD/client/mcpgw"
for bin in "$MCPGWD" "$MCPGW"; do
  if [ ! -x "$bin" ]; then
    echo "$SCRIPT_NAME: $bin is missing; build it first (cmake --build $BUILD)" >&2
    exit 1
  fi
done

# Fails the script when a tool is missing: a test that cannot run on a machine
# set up with scripts/install-deps.sh is a broken test, not a skipped one.
NeedTools() {
  local t
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      echo "$SCRIPT_NAME: FAIL: $t is not installed (scripts/install-deps.sh installs it)" >&2
      exit 1
    fi
  done
}

TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcpgw-service.XXXXXX")"
# Keep the user's own configuration, socket and units out of the tests.
export HOME="$TMP/home"
export XDG_CONFIG_HOME="$TMP/home/.config"
export XDG_RUNTIME_DIR="$TMP/run"
unset MCPGW_SOCKET MCPGW_LOG NOTIFY_SOCKET LISTEN_FDS LISTEN_PID LISTEN_FDNAMES
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

PIDS=()
PASSED=0
FAILED=0

Cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "$FAILED" -gt 0 ]; then
    local f
    for f in "$TMP"/*.log; do
      [ -f "$f" ] || continue
      echo "---- last lines of $(basename "$f") ----"
      tail -n 30 "$f" || true
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

# Installs the build into $1 (a prefix), quietly; exits the script on failure.
InstallInto() {
  if ! cmake --install "$BUILD" --prefix "$1" >"$TMP/install.log" 2>&1; then
    echo "$SCRIPT_NAME: cmake --install failed:" >&2
    cat "$TMP/install.log" >&2
    exit 1
  fi
}

# The libdir GNUInstallDirs chose for the build (lib, lib64, lib/<multiarch>).
LibDir() {
  sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt"
}

# Cli [ARGS...]: runs the build's `mcpgw ARGS` bounded to 30 s; stdout in OUT,
# stderr in ERR, exit status in RC. Never fails the script itself.
Cli() {
  RC=0
  timeout 30 "$MCPGW" "$@" >"$TMP/cli.out" 2>"$TMP/cli.err" || RC=$?
  OUT="$(cat "$TMP/cli.out")"
  ERR="$(cat "$TMP/cli.err")"
}

# WaitFor SECONDS COMMAND...: retries COMMAND every 0.1 s until it succeeds.
WaitFor() {
  local deadline=$((SECONDS + $1))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@" >/dev/null 2>&1
}

# StartDaemon CONFIG SOCKET: starts the build's mcpgwd and waits for its socket.
StartDaemon() {
  "$MCPGWD" --config "$1" --socket "$2" 2>>"$TMP/mcpgwd.log" &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  if ! WaitFor 20 test -S "$2"; then
    echo "$SCRIPT_NAME: mcpgwd did not start:" >&2
    cat "$TMP/mcpgwd.log" >&2
    exit 1
  fi
}
