#!/usr/bin/env bash
# Local (command) servers run by mcpgwd, against hosts that run them
# themselves. Three measures, side by side in one run, on loopback:
#  1. machine memory: 3 hosts (tests/bench/local_host.mjs, the official SDK's
#     client) each spawning the same 5 real servers (everything, filesystem,
#     memory, sequential-thinking, context7, each through `npx -y`) and
#     listing their tools, against 3 hosts each spawning `mcpgw stdio` with
#     one mcpgwd running the 5 servers; RSS, PSS and USS (smaps_rollup) of
#     every process involved, summed once all are listed and idle;
#  2. one call at a time: `echo` of server-everything and of
#     tests/fixtures/stdio-fault-server.mjs, called by the SDK client straight
#     over stdio, through `mcpgw stdio` and mcpgwd, and through mcpgwd's
#     socket with libmcpgw and with raw frames (tests/bench/load_client);
#     latency and the gateway side's CPU per call;
#  3. 100 local servers (the fault server, --tools 10): time from the
#     daemon's start to all ready (`mcpgw wait`), memory, and the idle CPU
#     of the daemon, its keepers and the servers over 10 s.
# Prints a table for each and writes the "Local servers" section of
# BENCHMARKS.md (replacing it, the rest of the file unchanged). Uses a built
# tree (mcpgwd, mcpgw; load_client when built) and tests/fixtures/node_modules
# (scripts/install-node-deps.sh); builds nothing. Not part of the test suite.
#   tests/bench/local_servers.sh [--build-dir DIR] [--rounds-memory N] [--rounds-calls N]
#        [--rounds-scale N] [--calls N] [--warmup N] [--scale-servers N] [--smoke]
#        [--out FILE | --no-write]
# --smoke: one round of each with small counts, nothing written (< 2 min).
set -euo pipefail

# Bound the whole run; the timeout's SIGTERM reaches the cleanup trap.
if [ -z "${MCPGW_LOCAL_BENCH_BOUNDED:-}" ]; then
  export MCPGW_LOCAL_BENCH_BOUNDED=1
  exec timeout --kill-after=20 "${MCPGW_LOCAL_BENCH_TIMEOUT:-1200}" bash "$0" "$@"
fi

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/../.." && pwd)"
FIXTURES="$ROOT/tests/fixtures"
BUILD="$ROOT/build"
ROUNDS_MEM=3
ROUNDS_CALLS=5
ROUNDS_SCALE=3
CALLS=2000
WARMUP=200
SCALE_SERVERS=100
IDLE_S=10
SETTLE_S=3
SMOKE=0
OUT="$ROOT/BENCHMARKS.md"
WRITE=1
ARGV=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD="$2"; shift ;;
    --rounds-memory) ROUNDS_MEM="$2"; shift ;;
    --rounds-calls) ROUNDS_CALLS="$2"; shift ;;
    --rounds-scale) ROUNDS_SCALE="$2"; shift ;;
    --calls) CALLS="$2"; shift ;;
    --warmup) WARMUP="$2"; shift ;;
    --scale-servers) SCALE_SERVERS="$2"; shift ;;
    --smoke) SMOKE=1 ;;
    --out) OUT="$2"; shift ;;
    --no-write) WRITE=0 ;;
    *) sed -n '/^#   tests/,/^# --smoke/p' "$0" >&2; exit 2 ;;
  esac
  shift
done
if [ "$SMOKE" = 1 ]; then
  ROUNDS_MEM=1; ROUNDS_CALLS=1; ROUNDS_SCALE=1; CALLS=200; WARMUP=20; SCALE_SERVERS=20; IDLE_S=3
  SETTLE_S=1; WRITE=0
fi

BUILD="$(cd "$BUILD" && pwd)"
for f in "$BUILD/daemon/mcpgwd" "$BUILD/client/mcpgw" "$BUILD/client/libmcpgw.so.0"; do
  [ -e "$f" ] || { echo "local_servers: $f is missing; build the tree first" >&2; exit 1; }
done
source "$FIXTURES/node.sh"  # NODE22: the pinned Node the fixtures run on
NODE="$NODE22"
BIN="$FIXTURES/node_modules/.bin"
FAULT="$FIXTURES/stdio-fault-server.mjs"
for f in "$NODE" "$BIN/mcp-server-everything" "$BIN/mcp-server-filesystem" "$BIN/mcp-server-memory" \
  "$BIN/mcp-server-sequential-thinking" "$BIN/context7-mcp" "$FIXTURES/node_modules/@modelcontextprotocol/sdk"; do
  [ -e "$f" ] || { echo "local_servers: $f is missing; run scripts/install-node-deps.sh" >&2; exit 1; }
done
# npx (npm's) runs on the first node on PATH: the pinned one, for the hosts and
# for every server (the daemon's servers get it through their entries' PATH).
export PATH="$BIN:$PATH"
command -v npx >/dev/null || { echo "local_servers: npx is not on PATH; install npm" >&2; exit 1; }
SERVER_PATH="$BIN:/usr/local/bin:/usr/bin:/bin"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcpgw-local.XXXXXX")"
export XDG_CONFIG_HOME="$TMP/config" XDG_RUNTIME_DIR="$TMP/run" XDG_STATE_HOME="$TMP/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" "$TMP/files"
chmod 700 "$XDG_RUNTIME_DIR"
printf 'notes\n' >"$TMP/files/notes.txt"
RESULTS="$TMP/results.jsonl"
: >"$RESULTS"
LOAD_START="$(cut -d' ' -f1 /proc/loadavg)"

# A copy of the binaries, so that a rebuild of the tree during the run changes
# nothing: every mcpgw (the script's, the hosts' bridges) loads the copied
# libmcpgw through LD_LIBRARY_PATH.
SNAP="$TMP/bin"
mkdir -p "$SNAP"
cp "$BUILD/daemon/mcpgwd" "$BUILD/client/mcpgw" "$SNAP/"
cp -L "$BUILD/client/libmcpgw.so.0" "$SNAP/libmcpgw.so.0"
MCPGWD="$SNAP/mcpgwd"
MCPGW="$SNAP/mcpgw"
LOAD=""
if [ -x "$BUILD/tests/bench/load_client" ]; then
  cp "$BUILD/tests/bench/load_client" "$SNAP/"
  LOAD="$SNAP/load_client"
fi
# How the daemon was built: the optimisation its first unit was compiled with
# (DWARF's producer string), else the build tree's CMAKE_BUILD_TYPE.
BUILD_TYPE="$(readelf --debug-dump=info "$MCPGWD" 2>/dev/null | grep -m1 DW_AT_producer |
  grep -o -- ' -O[0-9sg]*' | tr -d ' ' | head -n1 || true)"
if [ -n "$BUILD_TYPE" ]; then
  BUILD_TYPE="$BUILD_TYPE -g"
else
  BUILD_TYPE="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)"
fi
export LD_LIBRARY_PATH="$SNAP${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Every process this script starts leads a process group of its own (setsid),
# and every group below a daemon is noted once it is ready: the cleanup ends
# them all, by group, whatever happened. A group is forgotten once it has been
# stopped and is gone (process ids are reused).
GROUPS_STARTED=()
Log() { echo "local_servers: $*" >&2; }
GroupAlive() { kill -0 -- "-$1" 2>/dev/null; }
# StopGroups GRACE PGID...: SIGTERM to each group, SIGKILL to what is left after GRACE s.
StopGroups() {
  local grace="$1" g left
  shift
  for g in "$@"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  for _ in $(seq $((grace * 10))); do
    left=0
    for g in "$@"; do GroupAlive "$g" && left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  for g in "$@"; do kill -KILL -- "-$g" 2>/dev/null || true; done
  sleep 0.2
}
# Prune: forgets the groups that are gone.
Prune() {
  local g live=()
  for g in "${GROUPS_STARTED[@]}"; do GroupAlive "$g" && live+=("$g"); done
  GROUPS_STARTED=("${live[@]}")
}
# Grouped OUT CMD...: runs CMD in a group of its own, its stdout in OUT (stderr
# appended to $TMP/calls.err), and ends what it leaves behind.
Grouped() {
  local out="$1" p
  shift
  setsid "$@" >"$out" 2>>"$TMP/calls.err" &
  p=$!
  GROUPS_STARTED+=("$p")
  wait "$p" || Log "$(basename "$1") exited with $? (stderr in calls.err: $(tail -n 1 "$TMP/calls.err"))"
  StopGroups 2 "$p"
  Prune
}
Cleanup() {
  local rc=$? g alive=()
  trap - EXIT INT TERM
  Prune
  [ ${#GROUPS_STARTED[@]} -eq 0 ] || StopGroups 6 "${GROUPS_STARTED[@]}"
  for g in "${GROUPS_STARTED[@]}"; do GroupAlive "$g" && alive+=("$g"); done
  [ ${#alive[@]} -eq 0 ] || Log "process groups still alive after cleanup: ${alive[*]}"
  rm -rf "$TMP"
  exit "$rc"
}
trap Cleanup EXIT
trap 'exit 130' INT TERM

# Descendants PID: every process below PID.
Descendants() {
  python3 - "$1" <<'EOF'
import os, sys
root = int(sys.argv[1]); kids = {}
for n in os.listdir("/proc"):
    if not n.isdigit(): continue
    try: s = open(f"/proc/{n}/stat").read()
    except OSError: continue
    kids.setdefault(int(s[s.rindex(")") + 2:].split()[1]), []).append(int(n))
out, i = [root], 0
while i < len(out): out += kids.get(out[i], []); i += 1
print(" ".join(map(str, out[1:])))
EOF
}
# Adopt PID: notes the process group of every process below PID.
Adopt() {
  local p g
  for p in $(Descendants "$1"); do
    g="$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')" || continue
    [ -n "$g" ] && [[ " ${GROUPS_STARTED[*]} " != *" $g "* ]] && GROUPS_STARTED+=("$g")
  done
  return 0
}
Record() { # PART JSON
  [ -n "$2" ] || return 0
  printf '%s\n' "$2" | sed "s/^{/{\"part\":\"$1\",/" >>"$RESULTS"
}

# StartDaemon CONFIG SOCKET: mcpgwd in a group of its own; sets DAEMON.
StartDaemon() {
  setsid "$MCPGWD" --config "$1" --socket "$2" 2>>"$TMP/mcpgwd.log" &
  DAEMON=$!
  GROUPS_STARTED+=("$DAEMON")
}
# StopDaemon: SIGTERM (the daemon stops its servers: stdin closed, 2 s,
# SIGTERM, 2 s, SIGKILL), then what is left of its servers' groups.
StopDaemon() {
  local groups=() p g
  for p in $(Descendants "$DAEMON"); do
    g="$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')" || continue
    [ -n "$g" ] && groups+=("$g")
  done
  StopGroups 8 "$DAEMON"
  [ ${#groups[@]} -eq 0 ] || StopGroups 2 "${groups[@]}"
  Prune
}
# ReadyCount SOCKET: "ready total" of the daemon's servers.
ReadyCount() {
  "$MCPGW" --socket "$1" status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["servers"]
print(sum(1 for x in s if x["status"] == "ready"), len(s))'
}
# ServerPid SOCKET NAMESPACE: the pid status gives a local server.
ServerPid() {
  "$MCPGW" --socket "$1" status --json | python3 -c '
import json, sys
print(next(x["local"]["pid"] for x in json.load(sys.stdin)["servers"] if x["namespace"] == sys.argv[1]))' "$2"
}

# procs.py: memory (smaps_rollup) and CPU (schedstat) of process trees.
#   procs.py mem --daemon PID --hosts P,P ROOT...   one JSON object: memory (and CPU
#                                                  since each process started), totals and by kind
#   procs.py cpu --seconds S ROOT...               CPU of each kind over S seconds (ms)
#   procs.py cpunow PID                            CPU of PID since it started (ms)
cat >"$TMP/procs.py" <<'EOF'
import json, os, sys, time
args = sys.argv[1:]
mode = args.pop(0)
opt = {"--daemon": "0", "--hosts": "", "--seconds": "10"}
roots = []
while args:
    a = args.pop(0)
    if a in opt: opt[a] = args.pop(0)
    else: roots.append(int(a))
daemon = int(opt["--daemon"])
hosts = {int(p) for p in opt["--hosts"].split(",") if p}

def stat(pid):
    s = open(f"/proc/{pid}/stat").read()
    return s[s.rindex(")") + 2:].split()

def tree(roots):
    kids = {}
    for n in os.listdir("/proc"):
        if not n.isdigit(): continue
        try: kids.setdefault(int(stat(n)[1]), []).append(int(n))
        except (OSError, IndexError): pass
    out = [r for r in roots if os.path.exists(f"/proc/{r}")]
    i = 0
    while i < len(out): out += kids.get(out[i], []); i += 1
    return out

def kind(pid):
    if pid in hosts: return "host (SDK client, node)"
    if pid == daemon: return "mcpgwd"
    try:
        exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return "gone"
    if exe == "mcpgwd": return "keeper (mcpgwd's fork)"
    if exe == "mcpgw": return "mcpgw stdio"
    if cmd and cmd[0].startswith(b"npm exec"): return "npm exec (npx wrapper)"
    if exe in ("sh", "dash", "bash"): return "sh -c"
    return "server (node)"

def rollup(pid):
    out = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        f = line.split()
        if len(f) == 3 and f[2] == "kB": out[f[0].rstrip(":")] = int(f[1])
    return {"rss_kb": out.get("Rss", 0), "pss_kb": out.get("Pss", 0),
            "uss_kb": out.get("Private_Clean", 0) + out.get("Private_Dirty", 0)}

# CPU (µs) of a process: its live threads' run time (schedstat, nanoseconds),
# plus its reaped children's (clock ticks).
def cpu_us(pid):
    total, any_ = 0.0, False
    try:
        tids = os.listdir(f"/proc/{pid}/task")
        f = stat(pid)
    except OSError: return 0.0
    tick = 1e6 / os.sysconf("SC_CLK_TCK")
    for t in tids:
        try:
            total += int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0]) / 1e3
            any_ = True
        except (OSError, ValueError): pass
    if not any_:
        total = (int(f[11]) + int(f[12])) * tick
    return total + (int(f[13]) + int(f[14])) * tick

if mode == "cpunow":
    print(round(cpu_us(roots[0]) / 1e3, 2))
    sys.exit(0)
pids = tree(roots)
if mode == "mem":
    total = {"procs": 0, "rss_kb": 0, "pss_kb": 0, "uss_kb": 0, "cpu_ms": 0.0}
    by = {}
    for p in pids:
        try: m, k = rollup(p), kind(p)
        except OSError: continue
        m["cpu_ms"] = cpu_us(p) / 1e3
        b = by.setdefault(k, {"procs": 0, "rss_kb": 0, "pss_kb": 0, "uss_kb": 0, "cpu_ms": 0.0})
        for d in (total, b):
            d["procs"] += 1
            for key in m: d[key] += m[key]
    print(json.dumps({**total, "by": by}))
else:
    kinds = {p: kind(p) for p in pids}
    c0 = {p: cpu_us(p) for p in pids}
    time.sleep(float(opt["--seconds"]))
    out = {}
    for p in pids:
        k = kinds[p]
        out.setdefault(k, {"procs": 0, "cpu_ms": 0.0})
        out[k]["procs"] += 1
        out[k]["cpu_ms"] += max(0.0, cpu_us(p) - c0[p]) / 1e3
    print(json.dumps({"seconds": float(opt["--seconds"]), "by": out}))
EOF

# ---- 1. machine memory: 3 hosts x 5 servers ---------------------------------------------
# The same five entries for the hosts and for the daemon: npx, cwd tests/fixtures,
# PATH with the pinned node first.
FIVE="$TMP/five.json"
cat >"$FIVE" <<EOF
{"mcpServers": {
  "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "cwd": "$FIXTURES", "env": {"PATH": "$SERVER_PATH"}},
  "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "$TMP/files"], "cwd": "$FIXTURES", "env": {"PATH": "$SERVER_PATH"}},
  "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "cwd": "$FIXTURES", "env": {"PATH": "$SERVER_PATH", "MEMORY_FILE_PATH": "$TMP/memory.jsonl"}},
  "sequential-thinking": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-sequential-thinking"], "cwd": "$FIXTURES", "env": {"PATH": "$SERVER_PATH"}},
  "context7": {"command": "npx", "args": ["-y", "@upstash/context7-mcp"], "cwd": "$FIXTURES", "env": {"PATH": "$SERVER_PATH"}}
}}
EOF
chmod 600 "$FIVE"
HOSTS=3

# StartHosts SERVERS_FILE [--list-dynamic]: HOSTS hosts at once; sets HOST_PIDS and
# waits until each has listed its servers' tools (its JSON line in host.N.out).
StartHosts() {
  local i p
  HOST_PIDS=()
  for ((i = 0; i < HOSTS; i++)); do
    setsid "$NODE" "$BENCH_DIR/local_host.mjs" host --servers "$@" >"$TMP/host.$i.out" 2>"$TMP/host.$i.err" &
    p=$!
    HOST_PIDS+=("$p")
    GROUPS_STARTED+=("$p")
  done
  for ((i = 0; i < HOSTS; i++)); do
    for _ in $(seq 1200); do
      [ -s "$TMP/host.$i.out" ] && break
      kill -0 "${HOST_PIDS[$i]}" 2>/dev/null || break
      sleep 0.1
    done
    if [ ! -s "$TMP/host.$i.out" ]; then
      Log "host $i did not list its servers:"
      tail -n 20 "$TMP/host.$i.err" >&2
      exit 1
    fi
  done
}
StopHosts() { StopGroups 5 "${HOST_PIDS[@]}"; Prune; }
Tools() { # the tools host 0 listed
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tools"])' "$TMP/host.0.out"
}

MemoryDirect() { # ROUND
  Log "memory round $1: $HOSTS hosts each spawning the 5 servers"
  StartHosts "$FIVE"
  local tools
  tools="$(Tools)"
  sleep "$SETTLE_S"
  local hosts
  hosts="$(IFS=,; echo "${HOST_PIDS[*]}")"
  Record memory "{\"mode\":\"direct\",\"round\":$1,\"tools\":$tools,\"m\":$(python3 "$TMP/procs.py" mem --hosts "$hosts" "${HOST_PIDS[@]}")}"
  StopHosts
}
MemoryGateway() { # ROUND
  Log "memory round $1: one mcpgwd running the 5 servers, $HOSTS hosts through mcpgw stdio"
  local sock="$TMP/run/mem.sock" rc
  StartDaemon "$FIVE" "$sock"
  "$MCPGW" --socket "$sock" wait --timeout 120 >/dev/null
  Adopt "$DAEMON"
  read -r ready total <<<"$(ReadyCount "$sock")"
  [ "$ready" = 5 ] || { Log "only $ready of $total servers ready"; "$MCPGW" --socket "$sock" status >&2; exit 1; }
  printf '{"mcpServers": {"mcpgw": {"command": "%s", "args": ["--socket", "%s", "stdio"], "env": {"LD_LIBRARY_PATH": "%s"}}}}\n' \
    "$MCPGW" "$sock" "$SNAP" >"$TMP/gw.json"
  StartHosts "$TMP/gw.json" --list-dynamic
  local tools hosts
  tools="$(Tools)"
  sleep "$SETTLE_S"
  hosts="$(IFS=,; echo "${HOST_PIDS[*]}")"
  Record memory "{\"mode\":\"gateway\",\"round\":$1,\"tools\":$tools,\"m\":$(python3 "$TMP/procs.py" mem --daemon "$DAEMON" --hosts "$hosts" "${HOST_PIDS[@]}" "$DAEMON")}"
  StopHosts
  StopDaemon
}
for ((round = 1; round <= ROUNDS_MEM; round++)); do
  # The order alternates, so a drift of the machine does not favour one side.
  if ((round % 2)); then MemoryDirect "$round"; MemoryGateway "$round"
  else MemoryGateway "$round"; MemoryDirect "$round"; fi
done

# ---- 2. one call at a time: echo ----------------------------------------------------------
CSOCK="$TMP/run/calls.sock"
cat >"$TMP/calls.json" <<EOF
{"mcpServers": {
  "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "cwd": "$FIXTURES", "env": {"PATH": "$SERVER_PATH"}},
  "fault": {"command": "$NODE", "args": ["$FAULT"]}
}}
EOF
chmod 600 "$TMP/calls.json"
StartDaemon "$TMP/calls.json" "$CSOCK"
"$MCPGW" --socket "$CSOCK" wait --timeout 120 >/dev/null
Adopt "$DAEMON"
read -r ready total <<<"$(ReadyCount "$CSOCK")"
[ "$ready" = 2 ] || { Log "only $ready of $total servers ready"; exit 1; }
ARGS='{"message":"hello"}'
declare -A EXPECT=([everything]="Echo: hello" [fault]="hello")
declare -A DIRECT=([everything]="npx -y @modelcontextprotocol/server-everything" [fault]="$NODE $FAULT")
# Call ROUND SERVER PATH CMD...: runs one measuring client and records its line.
Call() {
  local round="$1" server="$2" path="$3" line
  shift 3
  Grouped "$TMP/call.out" timeout 300 "$@"
  line="$(head -n 1 "$TMP/call.out")"
  [ -n "$line" ] || { Log "no result for $server via $path"; return 0; }
  Record calls "{\"round\":$round,\"server\":\"$server\",\"path\":\"$path\",${line#\{}"
}
for ((round = 1; round <= ROUNDS_CALLS; round++)); do
  for ns in everything fault; do
    Log "calls round $round/$ROUNDS_CALLS: $ns echo, $CALLS sequential calls per path"
    spid="$(ServerPid "$CSOCK" "$ns")"
    common=(calls --calls "$CALLS" --warmup "$WARMUP" --tool echo --args "$ARGS" --expect "${EXPECT[$ns]}")
    # shellcheck disable=SC2086
    Call "$round" "$ns" direct "$NODE" "$BENCH_DIR/local_host.mjs" "${common[@]}" \
      --cwd "$FIXTURES" --env "PATH=$SERVER_PATH" -- ${DIRECT[$ns]}
    Call "$round" "$ns" stdio "$NODE" "$BENCH_DIR/local_host.mjs" "${common[@]}" \
      --wrap-ns "$ns" --pids "$DAEMON" --server-root "$spid" --env "LD_LIBRARY_PATH=$SNAP" \
      -- "$MCPGW" --socket "$CSOCK" stdio
    if [ -n "$LOAD" ]; then
      Call "$round" "$ns" lib "$LOAD" lib --socket "$CSOCK" --ns "$ns" --tool echo \
        --args "$ARGS" --calls "$CALLS" --warmup "$WARMUP" --pids "$DAEMON"
      Call "$round" "$ns" raw "$LOAD" raw --socket "$CSOCK" --ns "$ns" --tool echo \
        --args "$ARGS" --conns 1 --inflight 1 --calls "$CALLS" --pids "$DAEMON"
    fi
  done
done
StopDaemon

# ---- 3. many local servers ----------------------------------------------------------------
SSOCK="$TMP/run/scale.sock"
{
  echo '{"mcpServers": {'
  for ((i = 0; i < SCALE_SERVERS; i++)); do
    [ "$i" -gt 0 ] && echo ','
    printf '"s%d": {"command": "%s", "args": ["%s", "--tools", "10", "--name", "s%d"]}' "$i" "$NODE" "$FAULT" "$i"
  done
  echo '}}'
} >"$TMP/scale.json"
chmod 600 "$TMP/scale.json"
# AllReady SOCKET COUNT: polls `mcpgw tools --json` (get_dynamic_tools, which
# names each server's status) every 0.1 s until COUNT servers are ready.
AllReady() {
  python3 - "$MCPGW" "$1" "$2" <<'EOF'
import json, subprocess, sys, time
mcpgw, sock, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
deadline = time.monotonic() + 300
while time.monotonic() < deadline:
    r = subprocess.run([mcpgw, "--socket", sock, "tools", "--json"], capture_output=True, text=True)
    try:
        if sum(s["status"] == "ready" for s in json.loads(r.stdout)["servers"]) >= want: sys.exit(0)
    except (ValueError, KeyError): pass
    time.sleep(0.1)
sys.exit(1)
EOF
}
for ((round = 1; round <= ROUNDS_SCALE; round++)); do
  Log "scale round $round/$ROUNDS_SCALE: $SCALE_SERVERS local servers, ready by mcpgw tools"
  t0=$(date +%s%N)
  StartDaemon "$TMP/scale.json" "$SSOCK"
  AllReady "$SSOCK" "$SCALE_SERVERS" || Log "not all $SCALE_SERVERS ready after 300 s"
  t1=$(date +%s%N)
  Adopt "$DAEMON"
  Record scale "{\"round\":$round,\"poll\":\"tools\",\"ready_ms\":$(((t1 - t0) / 1000000)),\"daemon_cpu_ms\":$(python3 "$TMP/procs.py" cpunow "$DAEMON")}"
  StopDaemon

  Log "scale round $round/$ROUNDS_SCALE: $SCALE_SERVERS local servers, ready by mcpgw wait"
  t0=$(date +%s%N)
  StartDaemon "$TMP/scale.json" "$SSOCK"
  "$MCPGW" --socket "$SSOCK" wait --timeout 300 >/dev/null || Log "mcpgw wait: not all ready after 300 s"
  t1=$(date +%s%N)
  Adopt "$DAEMON"
  read -r ready total <<<"$(ReadyCount "$SSOCK")"
  sleep 1
  mem="$(python3 "$TMP/procs.py" mem --daemon "$DAEMON" "$DAEMON")"
  cpu="$(python3 "$TMP/procs.py" cpu --daemon "$DAEMON" --seconds "$IDLE_S" "$DAEMON")"
  # One `mcpgw status --json`: the daemon's CPU for it, and the processes on the machine.
  c0="$(python3 "$TMP/procs.py" cpunow "$DAEMON")"
  s0=$(date +%s%N)
  "$MCPGW" --socket "$SSOCK" status --json >/dev/null
  s1=$(date +%s%N)
  c1="$(python3 "$TMP/procs.py" cpunow "$DAEMON")"
  nproc_all="$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)"
  Record scale "{\"round\":$round,\"poll\":\"wait\",\"servers\":$SCALE_SERVERS,\"ready\":$ready,\"ready_ms\":$(((t1 - t0) / 1000000)),\"hwm_kb\":$(awk '$1 == "VmHWM:" {print $2}' "/proc/$DAEMON/status"),\"status_cpu_ms\":$(python3 -c "print(round($c1 - $c0, 2))"),\"status_ms\":$(((s1 - s0) / 1000000)),\"processes\":$nproc_all,\"m\":$mem,\"cpu\":$cpu}"
  StopDaemon
done

# ---- report ---------------------------------------------------------------------------------
MACHINE="$(python3 - "$MCPGWD" "$NODE" "$LOAD_START" "$SECONDS" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" "${BUILD_TYPE:-unknown}" <<'EOF'
import os, platform, subprocess, sys
def run(*c):
    try: return subprocess.run(c, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception: return "unknown"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:")), 0)
print(f"{os.cpu_count()} cores ({cpu}), {mem / 1048576:.0f} GB, Linux {platform.release()}; "
      f"{run(sys.argv[1], '--version')} (built {sys.argv[6]}, repository HEAD {sys.argv[5]}), node {run(sys.argv[2], '--version')}, "
      f"npm {run('npm', '--version')}; load average {float(sys.argv[3]):.1f} at the start and "
      f"{os.getloadavg()[0]:.1f} at the end, {int(sys.argv[4]) / 60:.1f} minutes in all")
EOF
)"
COMMAND="tests/bench/local_servers.sh"
[ ${#ARGV[@]} -eq 0 ] || COMMAND="$COMMAND ${ARGV[*]}"
python3 - "$RESULTS" "$TMP/section.md" "$MACHINE" "$COMMAND" "$CALLS" "$WARMUP" "$IDLE_S" "$HOSTS" <<'EOF'
import json, statistics, sys
results, out_path, machine, command, calls, warmup, idle_s, hosts = sys.argv[1:9]
rows = [json.loads(l) for l in open(results) if l.strip()]
lines = []
out = lines.append

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None

def fmt(v, d=1):
    if v is None: return "n/a"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.{d}f}"

def cell(v, d=1):
    v = [x for x in v if x is not None]
    if not v: return "n/a"
    if len(v) == 1: return fmt(v[0], d)
    return f"{fmt(med(v), d)} ({fmt(min(v), d)}–{fmt(max(v), d)})"

mem = [r for r in rows if r["part"] == "memory"]
calls_rows = [r for r in rows if r["part"] == "calls"]
scale = [r for r in rows if r["part"] == "scale"]
rounds = lambda rs: len({r["round"] for r in rs})
plural = lambda k, word: f"{k} {word}" + ("" if k == 1 else "s")

out("## Local servers")
out("")
out(f"Produced by `{command}` (`--smoke` for a quick check that writes nothing; "
    "`tests/bench/run.sh --local-servers` builds the Release tree and runs it). mcpgwd runs `command` servers itself, one process per entry for every host; "
    "this section measures what that saves and what it costs, against hosts that run their "
    "servers themselves, as they do without a gateway. The hosts are "
    "`tests/bench/local_host.mjs`, the official SDK's client (`StdioClientTransport`); the "
    "servers are the real ones pinned in tests/fixtures, started with `npx -y` from that "
    "directory, on the pinned Node, loopback only.")
out("")
out(f"Machine: {machine}. Cells are medians over the rounds with the (min–max) range; "
    "ratios and differences are taken inside each round, then their median is given.")
out("")

# ---- 1 ----
if mem:
    out(f"### Machine memory: {hosts} hosts × 5 servers")
    out("")
    out(f"Five servers (everything, filesystem, memory, sequential-thinking, context7). *Direct*: "
        f"{hosts} hosts each spawn all five and list their tools. *Gateway*: one mcpgwd runs the "
        f"five, and each of the {hosts} hosts spawns `mcpgw stdio` as its one server, lists its "
        "tools and calls `get_dynamic_tools` without arguments and then for each of the five "
        "namespaces (so it too holds every tool's schema; its count is mcpgw's two tools and the "
        "five servers' through `get_dynamic_tools`). Measured once every host has listed, "
        f"after a few idle seconds, over every process involved (hosts, npm's `npx` wrappers, "
        "`sh -c`, servers, bridges, mcpgwd and its keepers), from /proc/PID/smaps_rollup: RSS "
        "counts a shared page in every process that maps it, PSS divides it among them (and "
        "with any other process on the machine mapping the same file), USS is private pages "
        f"only. {plural(rounds(mem), 'round')}, the order of the two setups alternating.")
    out("")
    out("| setup | processes | tools listed per host | RSS MB | PSS MB | USS MB |")
    out("|---|---|---|---|---|---|")
    by_round = {}
    for r in mem:
        by_round.setdefault(r["round"], {})[r["mode"]] = r
    for mode, label in (("direct", f"direct: {hosts} hosts spawn 5 servers each"),
                        ("gateway", f"gateway: {hosts} hosts → `mcpgw stdio` → one mcpgwd → 5 servers")):
        rs = [r for r in mem if r["mode"] == mode]
        out(f"| {label} | {cell([r['m']['procs'] for r in rs], 0)} | {cell([r['tools'] for r in rs], 0)} | "
            f"{cell([r['m']['rss_kb'] / 1024 for r in rs])} | {cell([r['m']['pss_kb'] / 1024 for r in rs])} | "
            f"{cell([r['m']['uss_kb'] / 1024 for r in rs])} |")
    ratios = {}
    for key in ("rss_kb", "pss_kb", "uss_kb"):
        ratios[key] = [v["gateway"]["m"][key] / v["direct"]["m"][key] for v in by_round.values()
                       if "gateway" in v and "direct" in v]
    out(f"| **gateway / direct** | | | **{cell(ratios['rss_kb'], 3)}** | **{cell(ratios['pss_kb'], 3)}** | "
        f"**{cell(ratios['uss_kb'], 3)}** |")
    out("")
    out("Where it goes (medians; MB):")
    out("")
    out("| process | direct: count | RSS | PSS | gateway: count | RSS | PSS |")
    out("|---|---|---|---|---|---|---|")
    kinds = []
    for r in mem:
        for k in r["m"]["by"]:
            if k not in kinds: kinds.append(k)
    order = ["host (SDK client, node)", "npm exec (npx wrapper)", "sh -c", "server (node)",
             "mcpgw stdio", "mcpgwd", "keeper (mcpgwd's fork)"]
    kinds.sort(key=lambda k: order.index(k) if k in order else len(order))
    per_kind = {}
    for k in kinds:
        c = []
        for mode in ("direct", "gateway"):
            rs = [r["m"]["by"].get(k) for r in mem if r["mode"] == mode]
            rs = [x for x in rs if x]
            per_kind[(mode, k)] = (med([x["rss_kb"] / 1024 for x in rs]), med([x["pss_kb"] / 1024 for x in rs]))
            if rs:
                c += [fmt(med([x["procs"] for x in rs]), 0), fmt(per_kind[(mode, k)][0]), fmt(per_kind[(mode, k)][1])]
            else:
                c += ["—", "—", "—"]
        out(f"| {k} | " + " | ".join(c) + " |")
    out("")
    r_rss, r_pss = med(ratios["rss_kb"]), med(ratios["pss_kb"])
    verdict = lambda v: "n/a" if v is None else f"{fmt(v, 3)}× ({'met' if v <= 0.4 else 'missed'})"
    out(f"Target gateway / direct ≤ 0.4×: RSS {verdict(r_rss)}, PSS {verdict(r_pss)}.")
    g = lambda mode, k, i=0: per_kind.get((mode, k), (None, None))[i] or 0
    floor_pss = sum(g("gateway", k, 1) for k in ("npm exec (npx wrapper)", "sh -c", "server (node)"))
    hosts_pss = g("gateway", "host (SDK client, node)", 1)
    gw_own = sum(g("gateway", k, 1) for k in ("mcpgw stdio", "mcpgwd", "keeper (mcpgwd's fork)"))
    direct_pss = med([r["m"]["pss_kb"] / 1024 for r in mem if r["mode"] == "direct"])
    if direct_pss:
        out(f"The gateway setup cannot go below one copy of the five servers (with their npm "
            f"wrappers, {fmt(floor_pss)} MB of PSS here) plus the {hosts} hosts themselves "
            f"({fmt(hosts_pss)} MB): {fmt((floor_pss + hosts_pss) / direct_pss, 3)}× of the direct "
            f"setup before any of mcpgw's own processes, which add {fmt(gw_own)} MB "
            f"(bridges, daemon and keepers).")
        npm = g("gateway", "npm exec (npx wrapper)", 1)
        gw_pss = med([r["m"]["pss_kb"] / 1024 for r in mem if r["mode"] == "gateway"])
        if npm and gw_pss:
            d_npm = g("direct", "npm exec (npx wrapper)", 1)
            out(f"The largest item on both sides is not a server but npm: `npx` leaves `npm exec` "
                f"running as the server's parent for the server's whole life, {fmt(npm / 5)} MB of "
                f"PSS each ({fmt(100 * npm / gw_pss, 0)} % of the gateway setup, more than the five "
                f"servers). Hosts that configure `npx` pay it once per server and host; the gateway "
                f"once per server. It flatters the ratio: with every server started without npm "
                f"(its package's bin run by node), both sides would lose their wrappers and the "
                f"ratio would be about {fmt((gw_pss - npm) / (direct_pss - d_npm), 3)}× by PSS, "
                f"the {hosts} hosts' own memory, which no gateway removes, weighing more. However "
                f"light the servers, it cannot go below 1/{hosts} plus the hosts' share.")
    out("")

# ---- 2 ----
if calls_rows:
    out(f"### One call at a time: `echo` through the daemon and straight to the server")
    out("")
    out(f"Sequential calls of `echo` ({calls} measured after {warmup} of warm-up, "
        f"{plural(rounds(calls_rows), 'round')}): on server-everything (`npx`, the SDK's server) and on "
        "tests/fixtures/stdio-fault-server.mjs (a hand-written server that answers with "
        "synchronous writes, so the gateway's share is the larger part). *direct*: the SDK "
        "client spawns the server itself; *mcpgw stdio*: the SDK client spawns `mcpgw stdio` and "
        "calls `call_dynamic_tool` (the host's path); *libmcpgw*: tests/bench/load_client through "
        "the C library; *raw socket*: load_client writing the local protocol's frames itself (these "
        "two are C clients, so their latency is not comparable with the SDK client's: added p50 is "
        "given for the SDK client's own two paths only). "
        "CPU per call from /proc/PID/task/*/schedstat (the run time utime + stime count in clock "
        "ticks) over the measured calls: mcpgwd's threads, the bridge, and the server's process "
        "tree (its npm wrapper included).")
    out("")
    out("| server | path | p50 µs | p99 µs | added p50 µs | mcpgwd CPU µs/call | mcpgw stdio CPU µs/call | gateway side µs/call | server CPU µs/call |")
    out("|---|---|---|---|---|---|---|---|---|")
    labels = (("direct", "SDK client → server (stdio)"), ("stdio", "SDK client → `mcpgw stdio` → mcpgwd → server"),
              ("lib", "libmcpgw → mcpgwd → server"), ("raw", "raw socket → mcpgwd → server"))
    gw_side = {}
    for server in ("everything", "fault"):
        for path, label in labels:
            rs = [r for r in calls_rows if r["server"] == server and r["path"] == path]
            if not rs: continue
            base = {r["round"]: r["p50_us"] for r in calls_rows if r["server"] == server and r["path"] == "direct"}
            added = "—" if path != "stdio" else cell([r["p50_us"] - base[r["round"]] for r in rs if r["round"] in base])
            if path == "direct":
                daemon = bridge = side = "—"
                srv = cell([r["spawned_cpu_us"] for r in rs])
            elif path == "stdio":
                daemon = cell([r["daemon_cpu_us"] for r in rs])
                bridge = cell([r["spawned_cpu_us"] for r in rs])
                gw_side[server] = [r["daemon_cpu_us"] + r["spawned_cpu_us"] for r in rs]
                side = cell(gw_side[server])
                srv = cell([r["server_cpu_us"] for r in rs])
            else:
                daemon = side = cell([r["cpu_us_per_call"] for r in rs])
                bridge = "—"
                srv = "—"
            name = "server-everything" if server == "everything" else "stdio-fault-server"
            out(f"| {name} | {label} | {cell([r['p50_us'] for r in rs])} | {cell([r['p99_us'] for r in rs])} | "
                f"{added} | {daemon} | {bridge} | {side} | {srv} |")
    out("")
    verdicts = []
    for server in ("everything", "fault"):
        if server in gw_side:
            v = med(gw_side[server])
            verdicts.append(f"{fmt(v)} µs with {'server-everything' if server == 'everything' else 'the fault server'} "
                            f"({'met' if v <= 150 else 'missed'})")
    if verdicts:
        out("Target: gateway side (mcpgwd + `mcpgw stdio`) ≤ 150 µs per sequential call: " + "; ".join(verdicts) + ".")
        out("")
    out("What the gateway adds to a call is two more processes on its path, each woken twice (the "
        "bridge for the host's line and for the daemon's answer, the daemon for the frame and for "
        "the server's line): with the fault server, which costs the least, that is the added p50. "
        "The direct rows spawn a fresh server in each round (as a host does for each session), so "
        "its JIT and garbage collector are still busy after the warm-up; the gateway's server has "
        "served every round before. Latency and CPU per call move with the machine's load "
        "(the machine line above); the fault server's rows move least.")
    out("")

# ---- 3 ----
if scale:
    tools_poll = [r for r in scale if r.get("poll") == "tools"]
    scale = [r for r in scale if r.get("poll") == "wait"]
    n = scale[0]["servers"]
    keeper = "keeper (mcpgwd" + chr(39) + "s fork)"
    by = lambda r, k, f: r["m"]["by"].get(k, {}).get(f, 0)
    cpu = lambda r, k: r["cpu"]["by"].get(k, {}).get("cpu_ms", 0)
    start = lambda r, k: r["m"]["by"].get(k, {}).get("cpu_ms", 0)
    out(f"### {n} local servers")
    out("")
    out(f"An mcp.json of {n} entries running stdio-fault-server.mjs (`--tools 10 --name sN`, 19 "
        f"tools each) on the pinned Node; {plural(len(scale), 'round')}, each of two fresh daemons: one "
        "whose start is timed to all ready as `mcpgw tools --json` sees it (get_dynamic_tools, polled "
        "every 0.1 s), and one timed to `mcpgw wait` returning (which polls `status` every 0.1 s); "
        f"on the second, memory once ready, then CPU over {idle_s} s of idleness, then one "
        "`mcpgw status --json`.")
    out("")
    out("| measure | value |")
    out("|---|---|")
    out(f"| servers ready | {cell([r['ready'] for r in scale], 0)} of {n} |")
    if tools_poll:
        out(f"| start to all ready, polled with `mcpgw tools` | {cell([r['ready_ms'] / 1000 for r in tools_poll], 2)} s |")
    out(f"| start to all ready, `mcpgw wait` | {cell([r['ready_ms'] / 1000 for r in scale], 2)} s |")
    if tools_poll:
        out(f"| mcpgwd CPU until ready, polled with `mcpgw tools` / `mcpgw wait` | "
            f"{cell([r['daemon_cpu_ms'] for r in tools_poll], 0)} / {cell([start(r, 'mcpgwd') for r in scale], 0)} ms |")
    out(f"| all servers' CPU until ready | {cell([start(r, 'server (node)') / 1000 for r in scale], 2)} s |")
    out(f"| mcpgwd RSS / PSS | {cell([by(r, 'mcpgwd', 'rss_kb') / 1024 for r in scale])} / "
        f"{cell([by(r, 'mcpgwd', 'pss_kb') / 1024 for r in scale])} MB (peak RSS {cell([r['hwm_kb'] / 1024 for r in scale])} MB) |")
    out(f"| {n} keepers RSS / PSS | {cell([by(r, keeper, 'rss_kb') / 1024 for r in scale])} / "
        f"{cell([by(r, keeper, 'pss_kb') / 1024 for r in scale])} MB |")
    out(f"| {n} servers RSS / PSS | {cell([by(r, 'server (node)', 'rss_kb') / 1024 for r in scale])} / "
        f"{cell([by(r, 'server (node)', 'pss_kb') / 1024 for r in scale])} MB |")
    out(f"| total RSS / PSS | {cell([r['m']['rss_kb'] / 1024 for r in scale])} / {cell([r['m']['pss_kb'] / 1024 for r in scale])} MB |")
    out(f"| mcpgwd idle CPU over {idle_s} s | {cell([cpu(r, 'mcpgwd') for r in scale], 2)} ms |")
    out(f"| keepers' idle CPU over {idle_s} s (all) | {cell([cpu(r, keeper) for r in scale], 2)} ms |")
    out(f"| servers' idle CPU over {idle_s} s (all) | {cell([cpu(r, 'server (node)') for r in scale], 1)} ms |")
    out(f"| one `mcpgw status --json`: mcpgwd CPU / wall | {cell([r['status_cpu_ms'] for r in scale], 1)} / "
        f"{cell([r['status_ms'] for r in scale], 0)} ms ({cell([r['processes'] for r in scale], 0)} processes on the machine) |")
    out("")
    srv_start = med([start(r, "server (node)") for r in scale])
    cores = __import__("os").cpu_count() or 1
    out(f"Most of the start's work is the servers' own: the {n} Node processes took "
        f"{fmt(srv_start / 1000, 2)} s of CPU until ready (about {fmt(srv_start / n, 0)} ms each, "
        f"{fmt(srv_start / 1000 / cores, 2)} s of wall time at the least on {cores} idle cores). "
        "The daemon's own start (forks, pipes, handshakes, listings, and the login shell it runs "
        "once for its PATH) is the first CPU figure; what `mcpgw wait` adds to it is its polling: "
        "each `status` sums the resident memory of every local server's process tree "
        "(`rss_bytes`), for which daemon/runtime/process_tree_linux.cc reads every process's "
        "/proc/PID/stat once per status (it did so once per local server before: 100 servers "
        "made one status cost 191 ms of the daemon's CPU, against the few ms above), on the "
        "daemon's loop.")
    out("")
    out("Idle, mcpgwd does not wake at all; each keeper checks its server and the daemon once a "
        f"second (a `sigtimedwait` of 1 s), {fmt(1000 * med([cpu(r, keeper) for r in scale]) / (n * float(idle_s)), 0)} µs "
        "a wake-up here. A keeper is a fork of the daemon: its RSS counts the daemon's pages it "
        f"shares copy-on-write, its PSS ({fmt(med([by(r, keeper, 'pss_kb') for r in scale]) / n, 0)} kB each) "
        "is what it costs. The servers are what the memory is: "
        f"{fmt(med([by(r, 'server (node)', 'pss_kb') for r in scale]) / 1024 / n)} MB of PSS each for "
        "Node and a small hand-written server.")
    out("")

open(out_path, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF

if [ "$WRITE" = 1 ]; then
  # The section replaces the one in OUT (up to the next "## " heading), else goes
  # before "## Targets", else at the end; nothing else of the file changes.
  python3 - "$OUT" "$TMP/section.md" <<'EOF'
import os, sys
path, section_path = sys.argv[1:3]
section = open(section_path).read().rstrip("\n") + "\n"
text = open(path).read() if os.path.exists(path) else ""
lines = text.splitlines(keepends=True)
start = next((i for i, l in enumerate(lines) if l.rstrip("\n") == "## Local servers"), None)
if start is not None:
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
    new = lines[:start] + [section + ("\n" if end < len(lines) else "")] + lines[end:]
else:
    at = next((i for i, l in enumerate(lines) if l.rstrip("\n") == "## Targets"), None)
    if at is not None:
        new = lines[:at] + [section + "\n"] + lines[at:]
    else:
        new = [text.rstrip("\n") + "\n\n"] if text.strip() else []
        new.append(section)
open(path, "w").write("".join(new))
EOF
  Log "wrote the \"Local servers\" section of $OUT"
fi
