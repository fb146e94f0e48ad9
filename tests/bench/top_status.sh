#!/usr/bin/env bash
# What `mcpgw top` costs the daemon: one `status` request per refresh, at 1000
# servers × 100 tools (the scale run's setup: one tests/bench/bench_upstream
# process, one path per server). Per round, a fresh mcpgwd:
#  1. once every server is ready and before any call, --requests status
#     requests over one connection (as `top` keeps one), every server's
#     minute empty;
#  2. --bursts bursts of calls, each at the start of a 10 s slot of the
#     daemon's clock (CLOCK_MONOTONIC), in consecutive slots, each calling every
#     server (ok calls through tests/bench/load_client's raw mode, and an
#     unknown tool for an invalid_request error), so every slot of every
#     server's minute holds calls and errors;
#  3. right after the last burst, --requests status requests again;
#  4. and again, each request after a call to every server (its answer read,
#     then 30 ms idle), so that no server's minute is the one the previous
#     status read: the worst case, where every window is read afresh.
# For each request: the daemon's CPU (the sum over its threads of
# /proc/PID/task/*/schedstat, read before the request is sent and after its
# answer is read; the daemon is otherwise idle), the round trip and the
# answer's size. Prints the table and writes the section "Status for mcpgw
# top at N servers" of BENCHMARKS.md (replacing it, the rest of the file
# unchanged). Builds mcpgwd, mcpgw, bench_upstream and load_client in the
# build tree if they are missing. Linux only.
#   tests/bench/top_status.sh [--build-dir DIR] [--mcpgwd FILE] [--servers N] [--rounds N]
#        [--requests N] [--calls N] [--bursts N] [--smoke]
#        [--out FILE | --no-write]
# --mcpgwd: measure that daemon instead of the build tree's (another build, an
# older commit); the rest still comes from the build tree.
# --smoke: one round, 50 servers, one burst, nothing written (< 30 s).
set -euo pipefail

# Bound the whole run; the timeout's SIGTERM reaches the cleanup trap.
if [ -z "${MCPGW_TOP_BENCH_BOUNDED:-}" ]; then
  export MCPGW_TOP_BENCH_BOUNDED=1
  exec timeout --kill-after=10 "${MCPGW_TOP_BENCH_TIMEOUT:-900}" bash "$0" "$@"
fi

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/../.." && pwd)"
BUILD="$ROOT/build"
OTHER_MCPGWD=""
SERVERS=1000
TOOLS=100
ROUNDS=3
REQUESTS=50
CALLS=20000     # ok calls per burst, spread evenly over the servers
BURSTS=6        # one per 10 s slot of the minute
SMOKE=0
OUT="$ROOT/BENCHMARKS.md"
WRITE=1
ARGV=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD="$2"; shift ;;
    --mcpgwd) OTHER_MCPGWD="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
    --servers) SERVERS="$2"; shift ;;
    --rounds) ROUNDS="$2"; shift ;;
    --requests) REQUESTS="$2"; shift ;;
    --calls) CALLS="$2"; shift ;;
    --bursts) BURSTS="$2"; shift ;;
    --smoke) SMOKE=1 ;;
    --out) OUT="$2"; shift ;;
    --no-write) WRITE=0 ;;
    *) sed -n '/^#   tests/,/^# --smoke/p' "$0" >&2; exit 2 ;;
  esac
  shift
done
if [ "$SMOKE" = 1 ]; then
  SERVERS=50; ROUNDS=1; REQUESTS=10; CALLS=1000; BURSTS=1; WRITE=0
fi

Log() { echo "top_status: $*" >&2; }
BUILD="$(cd "$BUILD" && pwd)"
BIN="$BUILD/tests/bench"
for f in "$BUILD/daemon/mcpgwd" "$BUILD/client/mcpgw" "$BIN/bench_upstream" "$BIN/load_client"; do
  if [ ! -x "$f" ]; then
    Log "building mcpgwd, mcpgw, bench_upstream and load_client in $BUILD"
    cmake --build "$BUILD" --target mcpgwd mcpgw bench_upstream load_client >/dev/null
    break
  fi
done

source "$BENCH_DIR/scratch.sh"
Scratch top

# A copy of the binaries: a rebuild of the tree during the run changes nothing.
SNAP="$TMP/bin"
mkdir -p "$SNAP"
cp "$BUILD/daemon/mcpgwd" "$BUILD/client/mcpgw" "$BIN/bench_upstream" "$BIN/load_client" "$SNAP/"
cp -L "$BUILD/client/libmcpgw.so.0" "$SNAP/libmcpgw.so.0"
[ -z "$OTHER_MCPGWD" ] || cp "$OTHER_MCPGWD" "$SNAP/mcpgwd"
export LD_LIBRARY_PATH="$SNAP${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
MCPGWD="$SNAP/mcpgwd"
MCPGW="$SNAP/mcpgw"
LOAD="$SNAP/load_client"
# How the daemon was built: the optimisation its first unit was compiled with
# (DWARF's producer string), else the build tree's CMAKE_BUILD_TYPE.
BUILD_TYPE="$(readelf --debug-dump=info "$MCPGWD" 2>/dev/null | grep -m1 DW_AT_producer |
  grep -o -- ' -O[0-9sg]*' | tr -d ' ' | head -n1 || true)"
if [ -n "$BUILD_TYPE" ]; then
  BUILD_TYPE="$BUILD_TYPE -g"
else
  BUILD_TYPE="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)"
fi

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
export XDG_CONFIG_HOME="$TMP/config" XDG_RUNTIME_DIR="$TMP/run" XDG_STATE_HOME="$TMP/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
echo '{}' >"$TMP/settings.json"
RESULTS="$TMP/results.jsonl"
: >"$RESULTS"
LOAD_START="$(cut -d' ' -f1 /proc/loadavg)"

"$SNAP/bench_upstream" --tools "$TOOLS" --page-size 50 >"$TMP/upstream.port" 2>"$TMP/upstream.err" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$TMP/upstream.port" ] && break; sleep 0.1; done
PORT="$(head -n1 "$TMP/upstream.port")"
[ -n "$PORT" ] || { Log "bench_upstream did not start"; exit 1; }
{
  echo '{"mcpServers": {'
  for ((i = 0; i < SERVERS; i++)); do
    [ "$i" -gt 0 ] && echo ','
    printf '"s%d": {"url": "http://127.0.0.1:%s/s/%d/mcp"}' "$i" "$PORT" "$i"
  done
  echo '}}'
} >"$TMP/mcp.json"

# Measure ROUND LABEL [CALL_FIRST]: REQUESTS status requests over one
# connection, one JSON line of results appended to $RESULTS; with CALL_FIRST,
# each after a call to every server on a second connection.
Measure() {
  python3 - "$SOCK" "$DAEMON_PID" "$REQUESTS" "$1" "$2" "${3:-0}" "$SERVERS" >>"$RESULTS" <<'EOF'
import glob, json, os, socket, statistics, sys, time
path, pid, n, rnd, label = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
call_first, servers = sys.argv[6] == "1", int(sys.argv[7])

def cpu_ns():
    # Time on CPU of every thread of the daemon, in ns (schedstat's first field).
    total = 0
    for f in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            total += int(open(f).read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
reader = s.makefile("rb")
def ask(i, method, params):
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params},
                         separators=(",", ":")).encode() + b"\n")
    return reader.readline()
ask(0, "hello", {"version": 1, "client": "top_status.sh"})
caller = None
if call_first:
    caller = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    caller.connect(path)
    caller_in = caller.makefile("rb")
    caller.sendall(b'{"jsonrpc":"2.0","id":0,"method":"hello","params":{"version":1,"client":"calls"}}\n')
    caller_in.readline()
    calls = b"".join(
        json.dumps({"jsonrpc": "2.0", "id": k + 1, "method": "call_dynamic_tool",
                    "params": {"namespace": f"s{k}", "toolName": "echo", "arguments": {"text": "x"}}},
                   separators=(",", ":")).encode() + b"\n" for k in range(servers))
cpu, rtt, size = [], [], 0
answer = None
for i in range(1, n + 1):
    if caller:
        caller.sendall(calls)
        for _ in range(servers):
            caller_in.readline()
        time.sleep(0.03)  # the calls' own work done
    else:
        time.sleep(0.02)  # the daemon idle before each request
    c0, t0 = cpu_ns(), time.perf_counter()
    line = ask(i, "status", {})
    t1 = time.perf_counter()
    time.sleep(0.002)  # let the daemon finish its write's bookkeeping
    c1 = cpu_ns()
    cpu.append((c1 - c0) / 1000)
    rtt.append((t1 - t0) * 1000)
    size = len(line)
    answer = line
status = json.loads(answer)["result"]
servers = status["servers"]
compact = lambda v: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode())
minute_bytes = sum(compact(r["minute"]) + len('"minute":,') for r in servers if "minute" in r)
d = status["daemon"]
daemon_keys = ("rss_bytes", "cpu_s", "calls", "in_flight", "queued", "call_log")
daemon_bytes = sum(compact(d[k]) + len(f'"{k}":,') for k in daemon_keys if k in d)
with_calls = sum(1 for r in servers if r.get("minute", {}).get("calls", 0) > 0)
cpu.sort()
print(json.dumps({
    "round": rnd, "label": label, "requests": n, "servers": len(servers),
    "cpu_us_p50": statistics.median(cpu), "cpu_us_p90": cpu[int(0.9 * (len(cpu) - 1))],
    "rtt_ms_p50": statistics.median(rtt), "bytes": size, "minute_bytes": minute_bytes,
    "daemon_bytes": daemon_bytes, "servers_with_calls": with_calls,
    "minute_calls": sum(r.get("minute", {}).get("calls", 0) for r in servers),
    "rss_kb": next((int(l.split()[1]) for l in open(f"/proc/{pid}/status")
                    if l.startswith("VmRSS:")), 0)}))
EOF
}

SOCK="$TMP/run/top.sock"
for ((round = 1; round <= ROUNDS; round++)); do
  Log "round $round of $ROUNDS: $SERVERS servers x $TOOLS tools"
  "$MCPGWD" --config "$TMP/mcp.json" --settings "$TMP/settings.json" --socket "$SOCK" \
    2>"$TMP/mcpgwd.$round.log" &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  "$MCPGW" --socket "$SOCK" wait --timeout 120 >/dev/null
  sleep 3  # what follows the listings (the search index, memory given back) is done
  Measure "$round" empty
  for ((burst = 1; burst <= BURSTS; burst++)); do
    # The daemon's slots are the 10 s periods of CLOCK_MONOTONIC (Python's
    # time.monotonic on Linux): a burst just after each boundary puts every
    # burst in a slot of its own, all of them within the minute.
    python3 -c 'import time; time.sleep(10 - time.monotonic() % 10 + 0.2)'
    Log "  burst $burst of $BURSTS: $CALLS calls and $SERVERS refusals"
    "$LOAD" raw --socket "$SOCK" --ns-prefix s --ns-count "$SERVERS" --conns 10 --inflight 1000 \
      --calls "$CALLS" --warmup 0 >"$TMP/load.out" 2>&1 || { cat "$TMP/load.out" >&2; exit 1; }
    "$LOAD" raw --socket "$SOCK" --ns-prefix s --ns-count "$SERVERS" --conns 10 --inflight 1000 \
      --calls "$SERVERS" --warmup 0 --tool no_such_tool >"$TMP/load.out" 2>&1 || true
  done
  Measure "$round" full
  Measure "$round" busy 1
  kill -TERM "$DAEMON_PID" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
done

MACHINE="$(python3 - "$MCPGWD" "$LOAD_START" "$SECONDS" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" "${BUILD_TYPE:-unknown}" <<'EOF'
import os, platform, subprocess, sys
def run(*c):
    try: return subprocess.run(c, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception: return "unknown"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
print(f"{os.cpu_count()} cores ({cpu}), Linux {platform.release()}; "
      f"{run(sys.argv[1], '--version')} (built {sys.argv[5]}, repository HEAD {sys.argv[4]}); "
      f"load average {float(sys.argv[2]):.1f} at the start and {os.getloadavg()[0]:.1f} at the end, "
      f"{int(sys.argv[3]) / 60:.1f} minutes in all")
EOF
)"
COMMAND="tests/bench/top_status.sh"
[ ${#ARGV[@]} -eq 0 ] || COMMAND="$COMMAND ${ARGV[*]}"
python3 - "$RESULTS" "$TMP/section.md" "$MACHINE" "$COMMAND" "$SERVERS" "$TOOLS" "$CALLS" "$BURSTS" <<'EOF'
import json, statistics, sys
results, out_path, machine, command, servers, tools, calls, bursts = sys.argv[1:9]
rows = [json.loads(l) for l in open(results) if l.strip()]
lines = []
out = lines.append
def fmt(v, whole=False):
    if whole or v >= 100:
        return f"{v:,.0f}"
    return f"{v:,.1f}" if v >= 1 else f"{v:.3f}"
def cell(label, key, scale=1.0, whole=False):
    vs = [r[key] * scale for r in rows if r["label"] == label]
    if not vs:
        return "—"
    if len(vs) == 1:
        return fmt(vs[0], whole)
    return f"{fmt(statistics.median(vs), whole)} ({fmt(min(vs), whole)}–{fmt(max(vs), whole)})"
def row(measure, key, scale=1.0, whole=False):
    out(f"| {measure} | " + " | ".join(cell(label, key, scale, whole) for label in ("empty", "full", "busy")) + " |")
n_rounds = len({r["round"] for r in rows})
n_requests = rows[0]["requests"] if rows else 0

out(f"## Status for mcpgw top at {int(servers)} servers")
out("")
out(f"Produced by `{command}` (`--smoke` for a quick check that writes nothing; "
    "`tests/bench/run.sh --top-status` builds the Release tree and runs it). `mcpgw top` "
    "sends one `status` request per refresh; this is what one costs the daemon at "
    f"{int(servers)} servers × {int(tools)} tools (one bench_upstream, one path per server). "
    f"Per round a fresh mcpgwd; {n_requests} status requests over one connection, 20 ms apart, "
    "once with every server's `minute` empty (3 s after all are ready, no call yet), and once "
    + (f"after {int(bursts)} bursts, one just after the start of each of {int(bursts)} consecutive "
       "10 s slots of the daemon's clock, each" if int(bursts) > 1 else "after a burst")
    + f" of {int(calls):,} calls spread over every server and {int(servers)} calls of an unknown "
    "tool (an `invalid_request` for each server)"
    + (", so that every slot of every server's minute holds calls and errors" if int(bursts) >= 6 else "")
    + "; and once more with a call to every server before each status request (its answers "
    "read, then 30 ms idle), so that every server's minute is worked out afresh (a minute "
    "is kept between two status requests while its server has no request). Daemon CPU is the sum "
    "over its threads of /proc/PID/task/*/schedstat read before the request is sent and after "
    "its answer is read: answering it whole, the server rows, `minute`, the process figures and "
    "the write to the socket.")
out("")
out(f"Machine: {machine}. Cells are medians over {n_rounds} round{'s' if n_rounds != 1 else ''} "
    "with the (min–max) range; each round's figure is the median (or 90th percentile) over its "
    "requests.")
out("")
out("| measure | every minute empty | every minute full, no request since the last status | every minute full, every server called since the last status |")
out("|---|---|---|---|")
row("daemon CPU per status, µs (median)", "cpu_us_p50")
row("daemon CPU per status, µs (90th percentile)", "cpu_us_p90")
row("… per server, µs", "cpu_us_p50", 1 / int(servers))
row("… at one refresh a second, % of a core", "cpu_us_p50", 1e-4)
row("round trip, client side, ms (median)", "rtt_ms_p50")
row("answer, bytes", "bytes", whole=True)
row("… of it the servers' `minute` members, bytes", "minute_bytes", whole=True)
row("… of it the daemon's `rss_bytes`, `cpu_s`, `calls`, `in_flight`, `queued`, `call_log`, bytes",
    "daemon_bytes", whole=True)
row("servers with calls in their minute", "servers_with_calls", whole=True)
row("calls in the servers' minutes", "minute_calls", whole=True)
row("daemon RSS, MB", "rss_kb", 1 / 1024)
out("")
out("A server's minute is 6 slots of 10 s with a 73-bucket latency histogram each (1,968 bytes "
    "per server, fixed, made at its first request). Most of a status' cost grows with the "
    "answer's bytes (the rows written, then checked and framed by the socket's writer), and "
    "in the last two columns with each server's `latency_p50_ms` (the median of its last 256 "
    "calls, worked out at every status); the last column adds reading every server's slots "
    "and histograms.")
open(out_path, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
# After the bursts every server's minute must hold its calls.
missing = [r for r in rows if r["label"] != "empty" and r["servers_with_calls"] != r["servers"]]
if missing:
    sys.exit(f"top_status: {len(missing)} measure(s) found servers without calls in their minute")
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
start = next((i for i, l in enumerate(lines) if l.startswith("## Status for mcpgw top at ")), None)
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
  Log "wrote the \"Status for mcpgw top\" section of $OUT"
fi
