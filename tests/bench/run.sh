#!/usr/bin/env bash
# The benchmark suite, one command: builds Release into build-bench, starts its
# own upstreams and daemons on loopback, measures mcpgw (libmcpgw and `mcpgw
# stdio`) beside direct libcurl and the Node peers (supergateway, mcp-remote),
# the system calls per call of the bridge and the daemon (strace -c), the
# 1000-server scale run and the callgrind instruction counts, prints a
# table and writes BENCHMARKS.md and tests/bench/plot.png (--out FILE: FILE and
# FILE's name with .png in place of .md).
#   tests/bench/run.sh [--smoke | --syscalls | --conns | --local-servers | --top-status | --learned-words] [--runs N] [--build-dir DIR] [--out FILE]
# --smoke: tiny counts, < 60 s, writes its report to a temp dir only; the
# peers are skipped when tests/bench/node_modules is missing.
# --syscalls: only the system calls per sequential call (section 1b), printed
# as JSON lines; no report is written. The SDK client it drives the bridge
# with comes from tests/fixtures/node_modules when tests/bench has none.
# --conns: only the kept-connection and TLS figures (section 1c), printed as
# JSON lines; no report is written.
# --local-servers: only tests/bench/local_servers.sh (local servers run by the
# daemon against hosts that run their own; real Node servers, ~5 minutes): it
# writes its "Local servers" section into the report (with --smoke: prints it
# only). The full run keeps that section of the report as it was.
# --top-status: only tests/bench/top_status.sh (what a `status` request, one
# refresh of `mcpgw top`, costs the daemon at 1000 servers; ~4 minutes): it
# writes its "Status for mcpgw top" section into the report (with --smoke:
# prints it only). The full run runs it too, after writing the report.
# --learned-words: only tests/bench/learned_words.py (search that learns:
# recall before and after through a real daemon, its control, query CPU and
# daemon RSS with learned words; ~3 minutes): it writes its "Learned words"
# section into the report (with --smoke: prints it only). The full run runs
# it too, after writing the report.
set -euo pipefail

# Bound the whole run; the timeout's SIGTERM reaches the cleanup trap.
if [ -z "${MCPGW_BENCH_BOUNDED:-}" ]; then
  export MCPGW_BENCH_BOUNDED=1
  exec timeout --kill-after=10 "${MCPGW_BENCH_TIMEOUT:-3000}" bash "$0" "$@"
fi

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/../.." && pwd)"
source "$ROOT/tests/fixtures/node.sh"  # NODE: the Node the SDK's code runs on
SMOKE=0
SYSCALLS_ONLY=0
CONNS_ONLY=0
LOCAL_ONLY=0
TOP_ONLY=0
LEARNED_ONLY=0
RUNS=3
BUILD=""
OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) SMOKE=1 ;;
    --syscalls) SYSCALLS_ONLY=1 ;;
    --conns) CONNS_ONLY=1 ;;
    --local-servers) LOCAL_ONLY=1 ;;
    --top-status) TOP_ONLY=1 ;;
    --learned-words) LEARNED_ONLY=1 ;;
    --runs) RUNS="$2"; shift ;;
    --build-dir) BUILD="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    *) echo "usage: $0 [--smoke | --syscalls | --conns | --local-servers | --top-status | --learned-words] [--runs N] [--build-dir DIR] [--out FILE]" >&2; exit 2 ;;
  esac
  shift
done

if [ "$SMOKE" = 1 ]; then
  RUNS=1; N_SEQ=200; N_CONC=400; N_PEER=15; SCALE_SERVERS=50; SCALE_TOOLS=100
  SCALE_INFLIGHT=500; SCALE_CALLS=1000; LIST_CALLS=50; CG_CALLS=200; CG_LISTS=2; CG_SERVERS=50
  STRACE_N1=20; STRACE_N2=120; N_CONN=50; FAN_CALLS=(2000 4000 12000)
else
  N_SEQ=3000; N_CONC=10000; N_PEER=500; SCALE_SERVERS=1000; SCALE_TOOLS=100
  SCALE_INFLIGHT=10000; SCALE_CALLS=30000; LIST_CALLS=200; CG_CALLS=5000; CG_LISTS=5; CG_SERVERS=1000
  STRACE_N1=200; STRACE_N2=2200; N_CONN=1000; FAN_CALLS=(20000 50000 60000)
fi
[ "$SYSCALLS_ONLY" = 1 ] && RUNS=0

source "$BENCH_DIR/scratch.sh"
Scratch bench
Log() { echo "bench: $*" >&2; }

# ---- build --------------------------------------------------------------------------
if [ -z "$BUILD" ]; then
  BUILD="$ROOT/build-bench"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
Log "building into $BUILD"
cmake --build "$BUILD" --target bench_tools >"$TMP/build.log" 2>&1 || {
  tail -n 30 "$TMP/build.log" >&2
  exit 1
}
BIN="$BUILD/tests/bench"
MCPGWD="$BUILD/daemon/mcpgwd"
MCPGW="$BUILD/client/mcpgw"
UPSTREAM="$BIN/bench_upstream"
LOAD="$BIN/load_client"
export LD_LIBRARY_PATH="$BUILD/client${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
export XDG_CONFIG_HOME="$TMP/config" XDG_RUNTIME_DIR="$TMP/run" XDG_STATE_HOME="$TMP/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
RESULTS="$TMP/results.jsonl"
: >"$RESULTS"

# ---- local servers (only with --local-servers) ----------------------------------------
if [ "$LOCAL_ONLY" = 1 ]; then
  local_args=(--build-dir "$BUILD")
  [ -z "$OUT" ] || local_args+=(--out "$OUT")
  [ "$SMOKE" = 0 ] || local_args+=(--smoke)
  Log "local servers: tests/bench/local_servers.sh ${local_args[*]}"
  bash "$BENCH_DIR/local_servers.sh" "${local_args[@]}"
  exit 0
fi

# ---- status for mcpgw top (only with --top-status; the full run ends with it) ----------
TopStatus() {
  local top_args=(--build-dir "$BUILD")
  [ -z "$OUT" ] || top_args+=(--out "$OUT")
  [ "$SMOKE" = 0 ] || top_args+=(--smoke)
  Log "status for mcpgw top: tests/bench/top_status.sh ${top_args[*]}"
  bash "$BENCH_DIR/top_status.sh" "${top_args[@]}"
}
if [ "$TOP_ONLY" = 1 ]; then
  TopStatus
  exit 0
fi

# ---- learned words (only with --learned-words; the full run ends with it) ------------
LearnedWords() {
  local args=("$BUILD")
  [ -z "$OUT" ] || args+=(--out "$OUT")
  [ "$SMOKE" = 0 ] || args+=(--smoke)
  Log "learned words: tests/bench/learned_words.py ${args[*]}"
  python3 "$BENCH_DIR/learned_words.py" "${args[@]}"
}
if [ "$LEARNED_ONLY" = 1 ]; then
  LearnedWords
  exit 0
fi

# Records one JSON line with the run number and a section name.
Record() { # RUN SECTION JSON
  [ -n "$3" ] || return 0
  printf '%s\n' "$3" | sed "s/^{/{\"run\":$1,\"section\":\"$2\",/" >>"$RESULTS"
  printf '%s\n' "$3" | sed "s/^{/{\"run\":$1,\"section\":\"$2\",/" | cut -c1-220 >&2
}

# Starts the upstream with the given flags; sets the variable named $1 to its port.
StartUpstream() { # VAR ARGS...
  local var="$1"; shift
  "$UPSTREAM" "$@" >"$TMP/$var.port" 2>"$TMP/$var.err" &
  PIDS+=($!)
  for _ in $(seq 50); do [ -s "$TMP/$var.port" ] && break; sleep 0.1; done
  printf -v "$var" '%s' "$(head -n1 "$TMP/$var.port")"
}

# Starts a Node fixture server that prints `LISTENING <port>` (its output in
# $TMP/NAME.port, errors in $TMP/NAME.err); sets the variable named VAR to its port.
StartNodeServer() { # VAR NAME SCRIPT ARGS...
  local var="$1" name="$2"
  shift 2
  "$NODE" "$@" >"$TMP/$name.port" 2>"$TMP/$name.err" &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q LISTENING "$TMP/$name.port" 2>/dev/null && break; sleep 0.1; done
  printf -v "$var" '%s' "$(sed -n 's/^LISTENING //p' "$TMP/$name.port")"
}

# Starts mcpgwd on CONFIG at SOCKET; sets DAEMON_PID and waits until ready.
StartDaemon() { # CONFIG SOCKET TIMEOUT
  "$MCPGWD" --config "$1" --socket "$2" 2>"$TMP/mcpgwd.$(basename "$2").log" &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  "$MCPGW" --socket "$2" wait --timeout "$3" >/dev/null
}

StopPid() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
}

KbOf() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# Writes an mcp.json naming COUNT servers p0..p<COUNT-1> on one upstream port.
WriteConfig() { # FILE PREFIX COUNT PORT
  {
    echo '{"mcpServers": {'
    for ((i = 0; i < $3; i++)); do
      [ "$i" -gt 0 ] && echo ','
      printf '"%s%d": {"url": "http://127.0.0.1:%s/s/%d/mcp"}' "$2" "$i" "$4" "$i"
    done
    echo '}}'
  } >"$1"
}

# ---- 1c. kept connections and TLS handshakes ----------------------------------------
# tests/fixtures/drop-server.mjs (no SDK needed) answering tools/call as JSON, as
# SSE the way the SDKs' servers do (a notification, the response, the end of the
# stream), and as JSON with Connection: close, each over plain HTTP/1.1 and over
# TLS with HTTP/1.1 only (as a Python SDK server behind uvicorn). The daemon
# trusts the fixture's CA through SSL_CERT_FILE set to the system bundle plus that
# CA, with the system's hashed directory beside it: a store as large as a user's.
# Each server is called sequentially; its log counts the connections accepted.
ConnsSection() {
  local dir="$TMP/conns" name line before after run ns
  mkdir -p "$dir"
  bash "$ROOT/tests/fixtures/make-certs.sh" "$dir/certs" >/dev/null
  cat /etc/ssl/certs/ca-certificates.crt "$dir/certs/ca.pem" >"$dir/bundle.pem"
  declare -A h1 h1s
  for name in json sse close; do
    local flag=()
    [ "$name" = json ] || flag=(--"$name")
    "$NODE" "$ROOT/tests/fixtures/drop-server.mjs" --log "$dir/$name.jsonl" \
      --tls-dir "$dir/certs" "${flag[@]}" >"$dir/$name.out" 2>"$dir/$name.err" &
    PIDS+=($!)
    for _ in $(seq 100); do grep -q LISTENING "$dir/$name.out" 2>/dev/null && break; sleep 0.1; done
    h1[$name]="$(sed -n 's/.* h1=\([0-9]*\).*/\1/p' "$dir/$name.out")"
    h1s[$name]="$(sed -n 's/.* h1s=\([0-9]*\).*/\1/p' "$dir/$name.out")"
  done
  {
    echo '{"mcpServers": {'
    for name in json sse close; do
      printf '"%s-h1": {"url": "http://127.0.0.1:%s/mcp"},\n' "$name" "${h1[$name]}"
      printf '"%s-tls": {"url": "https://localhost:%s/mcp"}' "$name" "${h1s[$name]}"
      [ "$name" = close ] || echo ','
    done
    echo '}}'
  } >"$dir/mcp.json"
  local saved_file="${SSL_CERT_FILE-}" saved_dir="${SSL_CERT_DIR-}"
  export SSL_CERT_FILE="$dir/bundle.pem"
  unset SSL_CERT_DIR
  StartDaemon "$dir/mcp.json" "$TMP/run/conns.sock" 30
  if [ -n "$saved_file" ]; then export SSL_CERT_FILE="$saved_file"; else unset SSL_CERT_FILE; fi
  [ -z "$saved_dir" ] || export SSL_CERT_DIR="$saved_dir"
  for ((run = 1; run <= (RUNS > 0 ? RUNS : 1); run++)); do
    for ns in json-h1 sse-h1 close-h1 json-tls sse-tls close-tls; do
      before="$(grep -c '"accept"' "$dir/${ns%-*}.jsonl" || true)"
      line="$("$LOAD" lib --socket "$TMP/run/conns.sock" --ns "$ns" --tool run \
        --args '{"nonce":"bench"}' --inflight 1 --calls "$N_CONN" --warmup 20 \
        --pids "$DAEMON_PID" 2>/dev/null || true)"
      after="$(grep -c '"accept"' "$dir/${ns%-*}.jsonl" || true)"
      [ -n "$line" ] && Record "$run" conns "${line/\{/\{\"label\":\"$ns\",\"conns\":$((after - before)),}"
    done
  done
  StopPid "$DAEMON_PID"
}
if [ -n "$NODE" ]; then
  Log "connections: JSON and SSE answers, plain and TLS, kept and closed"
  ConnsSection
else
  Log "SKIP connections: no Node.js for the fixture server"
fi
if [ "$CONNS_ONLY" = 1 ]; then
  grep '"section":"conns"' "$RESULTS"
  exit 0
fi

# ---- 1. call path: libmcpgw vs direct libcurl ------------------------------------
StartUpstream PORT --tools 5
URL="http://127.0.0.1:$PORT/s/0/mcp"
WriteConfig "$TMP/mcp.json" b 10 "$PORT"
SOCK="$TMP/run/mcpgw.sock"
StartDaemon "$TMP/mcp.json" "$SOCK" 30
sleep 1
IDLE_RSS_KB="$(KbOf "$DAEMON_PID" VmRSS)"
Record 0 idle "{\"servers\":10,\"rss_kb\":$IDLE_RSS_KB}"

NODE_MODULES="$BENCH_DIR/node_modules"
HAVE_PEERS=0
FLOOR_PORT=""
if [ -d "$NODE_MODULES/supergateway" ] && [ -d "$NODE_MODULES/mcp-remote" ] && [ -n "$NODE" ]; then
  HAVE_PEERS=1
elif [ "$SMOKE" = 0 ] && [ "$SYSCALLS_ONLY" = 0 ]; then
  echo "bench: tests/bench/node_modules is missing: run (cd tests/bench && npm ci)" >&2
  exit 1
else
  Log "SKIP peers: tests/bench/node_modules is missing"
fi

# The relay floor under the real host: relay_floor --answer is a minimal MCP server
# (newline JSON-RPC over loopback TCP); the SDK client spawns `relay_floor --stdio`,
# two processes that only relay bytes to it, as it spawns `mcpgw stdio`.
if [ "$HAVE_PEERS" = 1 ]; then
  "$BIN/relay_floor" --answer >"$TMP/floor.port" 2>"$TMP/floor.err" &
  PIDS+=($!)
  for _ in $(seq 50); do [ -s "$TMP/floor.port" ] && break; sleep 0.1; done
  FLOOR_PORT="$(head -n1 "$TMP/floor.port")"
fi

for ((run = 1; run <= RUNS; run++)); do
  Log "run $run/$RUNS: libmcpgw and libcurl"
  for c in 1 32 256; do
    n=$([ "$c" = 1 ] && echo "$N_SEQ" || echo "$N_CONC")
    Record "$run" call "$("$LOAD" curl --url "$URL" --inflight "$c" --calls "$n" 2>/dev/null || true)"
    Record "$run" call "$("$LOAD" lib --socket "$SOCK" --ns b0 --inflight "$c" --calls "$n" --pids "$DAEMON_PID" 2>/dev/null || true)"
    # b1 is sharded onto the second worker: its calls cross from the main loop
    # (the host socket) to that worker's thread and back.
    [ "$c" = 256 ] || Record "$run" callw "$("$LOAD" lib --socket "$SOCK" --ns b1 --inflight "$c" --calls "$n" --pids "$DAEMON_PID" 2>/dev/null || true)"
  done
  if [ "$HAVE_PEERS" = 1 ]; then
    Log "run $run/$RUNS: SDK client over stdio to mcpgw stdio and the peers"
    peer=("$NODE" "$BENCH_DIR/peer_client.mjs" --calls "$N_PEER" --inflight 1,32)
    while read -r line; do Record "$run" peer "$line"; done < <("${peer[@]}" --label sdk-direct --url "$URL" 2>/dev/null || true)
    while read -r line; do Record "$run" peer "$line"; done < <("${peer[@]}" --label mcpgw-stdio --pids "$DAEMON_PID" --wrap-ns b0 -- "$MCPGW" --socket "$SOCK" stdio 2>/dev/null || true)
    while read -r line; do Record "$run" peer "$line"; done < <("${peer[@]}" --label supergateway -- "$NODE" "$NODE_MODULES/supergateway/dist/index.js" --streamableHttp "$URL" --logLevel none 2>/dev/null || true)
    [ -z "$FLOOR_PORT" ] || while read -r line; do Record "$run" peer "$line"; done < <("${peer[@]}" --label floor-sdk -- "$BIN/relay_floor" --stdio "$FLOOR_PORT" 2>/dev/null || true)
    while read -r line; do Record "$run" peer "$line"; done < <(MCP_REMOTE_CONFIG_DIR="$TMP/mcp-remote" "${peer[@]}" --label mcp-remote -- "$NODE" "$NODE_MODULES/mcp-remote/dist/proxy.js" "$URL" --allow-http --transport http-only 2>/dev/null || true)
  fi
  # Two processes that do nothing but relay bytes along the stdio path's shape, in
  # the same run: the floor the stdio rows stand on.
  Record "$run" floor "$("$BIN/relay_floor" --calls "$N_SEQ" 2>/dev/null || true)"
done
Record 0 daemon "{\"label\":\"after calls\",\"rss_kb\":$(KbOf "$DAEMON_PID" VmRSS),\"hwm_kb\":$(KbOf "$DAEMON_PID" VmHWM)}"
StopPid "$DAEMON_PID"

# ---- 2c. the same, with the official SDK's server as the upstream -----------------------
# The peers above call bench_upstream (C++, JSON answers). Here the upstream is
# tests/fixtures/sdk-server.mjs, a stateful server on the SDK that answers calls with
# SSE as the SDKs do by default: a Node process sharing the cores with the client and
# the gateway, as on a user's machine. mcpgw stdio and supergateway call it side by side.
SdkUpstreamSection() {
  local dir="$TMP/sdkup" sport url
  mkdir -p "$dir"
  StartNodeServer sport sdkup "$ROOT/tests/fixtures/sdk-server.mjs" --tools 5
  url="http://127.0.0.1:$sport/mcp"
  printf '{"mcpServers":{"sdk":{"url":"%s"}}}\n' "$url" >"$dir/mcp.json"
  StartDaemon "$dir/mcp.json" "$TMP/run/sdkup.sock" 30
  for ((run = 1; run <= RUNS; run++)); do
    Log "run $run/$RUNS: SDK client over stdio to mcpgw stdio and supergateway, SDK upstream"
    peer=("$NODE" "$BENCH_DIR/peer_client.mjs" --calls "$N_PEER" --inflight 1,32)
    while read -r line; do Record "$run" peer-sdk "$line"; done < <("${peer[@]}" --label mcpgw-stdio --pids "$DAEMON_PID" --wrap-ns sdk -- "$MCPGW" --socket "$TMP/run/sdkup.sock" stdio 2>/dev/null || true)
    while read -r line; do Record "$run" peer-sdk "$line"; done < <("${peer[@]}" --label supergateway -- "$NODE" "$NODE_MODULES/supergateway/dist/index.js" --streamableHttp "$url" --logLevel none 2>/dev/null || true)
  done
  StopPid "$DAEMON_PID"
}
if [ "$HAVE_PEERS" = 1 ] && [ -d "$ROOT/tests/fixtures/node_modules/@modelcontextprotocol/sdk" ]; then
  SdkUpstreamSection
elif [ "$HAVE_PEERS" = 1 ]; then
  Log "SKIP peers with an SDK upstream: tests/fixtures/node_modules is missing"
fi

# ---- 1d. fan-out: 32, 1,000 and 10,000 calls in flight to one server ----------------
# A host program on libmcpgw's pollable interface with 10 handles keeps that many calls
# outstanding to one upstream (bench_upstream, JSON); a fresh daemon per level, so its
# peak RSS is the level's own. Daemon CPU per call should not grow with the load.
# Right after each 32-in-flight run a bare libcurl client makes as many requests to
# the same upstream, so the two are compared side by side, not minutes apart.
FanOut() {
  local i c
  local levels=(32 1000 10000)
  WriteConfig "$TMP/fan.json" f 1 "$PORT"
  for ((run = 1; run <= RUNS; run++)); do
    for i in 0 1 2; do
      c="${levels[$i]}"
      StartDaemon "$TMP/fan.json" "$TMP/run/fan.sock" 30
      Record "$run" fanout "$("$LOAD" poll --socket "$TMP/run/fan.sock" --ns f0 --conns 10 \
        --inflight "$c" --calls "${FAN_CALLS[$i]}" --warmup 200 --pids "$DAEMON_PID" 2>/dev/null || true)"
      StopPid "$DAEMON_PID"
      if [ "$i" = 0 ]; then
        Record "$run" fanbare "$("$LOAD" curl --url "http://127.0.0.1:$PORT/s/0/mcp" \
          --inflight "$c" --calls "${FAN_CALLS[$i]}" 2>/dev/null || true)"
      fi
    done
  done
}
Log "fan-out: 32, 1,000 and 10,000 calls in flight over 10 pollable handles"
FanOut

# ---- 1b. system calls per sequential call (strace -c) -------------------------------
# The SDK client calls through `mcpgw stdio` sequentially, the bridge and a daemon of
# its own each under `strace -f -c`, once with STRACE_N1 calls and once with STRACE_N2:
# the difference over N2 - N1 calls leaves start-up and shutdown out.
# Starts a daemon of its own under `strace -f -c` (counts in $TMP/strace.NAME.N),
# runs CLIENT... against SOCKET once it is ready, then stops the daemon.
TracedDaemon() { # NAME N SOCKET CLIENT...
  local name="$1" n="$2" sock="$3" tracer
  shift 3
  strace -f -c -o "$TMP/strace.$name.$n" "$MCPGWD" --config "$TMP/mcp.json" --socket "$sock" \
    2>"$TMP/mcpgwd.strace-$name.log" &
  tracer=$!
  PIDS+=("$tracer")
  "$MCPGW" --socket "$sock" wait --timeout 30 >/dev/null
  "$@" >/dev/null 2>&1 || true
  StopPid "$(pgrep -P "$tracer" | head -n1)"
  wait "$tracer" 2>/dev/null || true
}

# The SDK client needs only @modelcontextprotocol/sdk: the peers' copy, else
# the fixtures' (peer_client.mjs copied beside a link to their node_modules).
SDK_CLIENT=""
if [ -d "$NODE_MODULES/@modelcontextprotocol/sdk" ]; then
  SDK_CLIENT="$BENCH_DIR/peer_client.mjs"
elif [ -d "$ROOT/tests/fixtures/node_modules/@modelcontextprotocol/sdk" ]; then
  mkdir -p "$TMP/sdk-client"
  cp "$BENCH_DIR/peer_client.mjs" "$TMP/sdk-client/"
  ln -s "$ROOT/tests/fixtures/node_modules" "$TMP/sdk-client/node_modules"
  SDK_CLIENT="$TMP/sdk-client/peer_client.mjs"
fi
if [ -n "$SDK_CLIENT" ] && [ -n "$NODE" ]; then
  Log "strace: system calls per sequential call"
  TSOCK="$TMP/run/strace.sock"
  for n in "$STRACE_N1" "$STRACE_N2"; do
    TracedDaemon daemon "$n" "$TSOCK" \
      "$NODE" "$SDK_CLIENT" --calls "$n" --inflight 1 --label strace --wrap-ns b0 \
      -- strace -f -c -o "$TMP/strace.bridge.$n" "$MCPGW" --socket "$TSOCK" stdio
  done
  for process in bridge daemon; do
    Record 0 syscalls "$(python3 "$BENCH_DIR/strace_per_call.py" "$process" \
      "$STRACE_N1" "$TMP/strace.$process.$STRACE_N1" "$STRACE_N2" "$TMP/strace.$process.$STRACE_N2")"
  done
fi

# The daemon alone, with libmcpgw's load_client calling sequentially (no bridge, no
# Node): the same subtraction of two runs.
Log "strace: the daemon's system calls per sequential call (load_client)"
LSOCK="$TMP/run/strace-lib.sock"
for n in "$STRACE_N1" "$STRACE_N2"; do
  TracedDaemon daemon-lib "$n" "$LSOCK" \
    "$LOAD" lib --socket "$LSOCK" --ns b0 --inflight 1 --calls "$n" --warmup 0
done
Record 0 syscalls "$(python3 "$BENCH_DIR/strace_per_call.py" daemon-lib \
  "$STRACE_N1" "$TMP/strace.daemon-lib.$STRACE_N1" "$STRACE_N2" "$TMP/strace.daemon-lib.$STRACE_N2")"
if [ "$SYSCALLS_ONLY" = 1 ]; then
  grep '"section":"syscalls"' "$RESULTS"
  exit 0
fi

# ---- 2. scale: many servers × 100 tools ---------------------------------------------
Log "scale: $SCALE_SERVERS servers x $SCALE_TOOLS tools"
StartUpstream SPORT --tools "$SCALE_TOOLS" --page-size 50
WriteConfig "$TMP/scale.json" s "$SCALE_SERVERS" "$SPORT"
SSOCK="$TMP/run/scale.sock"
for ((run = 1; run <= RUNS; run++)); do
  t0=$(date +%s%N)
  ready=1
  StartDaemon "$TMP/scale.json" "$SSOCK" 60 || ready=0
  t1=$(date +%s%N)
  Record "$run" scale "{\"servers\":$SCALE_SERVERS,\"tools\":$SCALE_TOOLS,\"ready\":$ready,\"ready_ms\":$(((t1 - t0) / 1000000)),\"rss_kb\":$(KbOf "$DAEMON_PID" VmRSS),\"hwm_kb\":$(KbOf "$DAEMON_PID" VmHWM)}"
  Record "$run" scale "$("$LOAD" lib --socket "$SSOCK" --op list --calls "$LIST_CALLS" --warmup 5 --pids "$DAEMON_PID" 2>/dev/null || true)"
  Record "$run" scale "$("$LOAD" lib --socket "$SSOCK" --op list-ns --ns-prefix s --ns-count "$SCALE_SERVERS" --calls "$LIST_CALLS" --warmup 5 --pids "$DAEMON_PID" 2>/dev/null || true)"
  Record "$run" scale "$("$LOAD" raw --socket "$SSOCK" --ns-prefix s --ns-count "$SCALE_SERVERS" --conns 10 --inflight "$SCALE_INFLIGHT" --calls "$SCALE_CALLS" --pids "$DAEMON_PID" 2>/dev/null || true)"
  Record "$run" scale "{\"label\":\"after 10k in flight\",\"rss_kb\":$(KbOf "$DAEMON_PID" VmRSS),\"hwm_kb\":$(KbOf "$DAEMON_PID" VmHWM)}"
  StopPid "$DAEMON_PID"
done

# ---- 3. instruction counts (callgrind) ----------------------------------------------
if command -v valgrind >/dev/null; then
  Log "callgrind: hot paths"
  Instructions() { # OUTFILE ARGS...
    local out="$1"; shift
    valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN/hotpath_bench" "$@" >/dev/null 2>&1
    awk '/^(summary|totals):/ {print $2; exit}' "$out"
  }
  for path in call call-sse list; do
    if [ "$path" = list ]; then n="$CG_LISTS"; servers="$CG_SERVERS"; else n="$CG_CALLS"; servers=1; fi
    base="$(Instructions "$TMP/cg.$path.0" "$path" 0 "$servers" 100)"
    full="$(Instructions "$TMP/cg.$path.n" "$path" "$n" "$servers" 100)"
    Record 0 callgrind "{\"path\":\"$path\",\"n\":$n,\"instructions_per_iter\":$(((full - base) / n))}"
  done
  Record 0 hotpath "$("$BIN/hotpath_bench" call "$((CG_CALLS * 20))" 1 100)"
  Record 0 hotpath "$("$BIN/hotpath_bench" list 20 "$CG_SERVERS" 100)"
fi

# ---- 3b. tool search (get_dynamic_tools' query) -----------------------------------------
Log "search: recall on the recorded listings, cost at $SCALE_SERVERS servers x 100 tools"
SEARCH_DATA="$BENCH_DIR/search"
{
  for split in dev test all; do "$BIN/search_bench" "$SEARCH_DATA" --split "$split"; done
  "$BIN/search_bench" "$SEARCH_DATA" --scale "$SCALE_SERVERS" --repeat "$([ "$SMOKE" = 1 ] && echo 1 || echo 10)"
} >"$TMP/search.md"

# ---- 3c. large results (a 4 MB result, whole and cut to 100 KB) -------------------------
# The official SDK's server (tests/fixtures/large-result-server.mjs) answers a
# text of 4,000,000 bytes of 4-byte characters as SSE; libmcpgw calls it with
# no bound and with max_text_bytes 100000 (what `mcpgw stdio` asks for), and a
# 100 KB result with no bound is the baseline. The daemon writes the whole
# text to $XDG_RUNTIME_DIR/mcpgw/results when it cuts.
FIXTURE_NODE_MODULES="$ROOT/tests/fixtures/node_modules"
if [ -d "$FIXTURE_NODE_MODULES/@modelcontextprotocol/sdk" ] && [ -n "$NODE" ]; then
  Log "large results: 4 MB whole and cut, 100 KB whole"
  StartNodeServer LPORT large "$ROOT/tests/fixtures/large-result-server.mjs" --port 0
  printf '{"mcpServers":{"big":{"url":"http://127.0.0.1:%s/mcp"}}}\n' "$LPORT" >"$TMP/large.json"
  StartDaemon "$TMP/large.json" "$TMP/run/large.sock" 30
  LCALLS=$([ "$SMOKE" = 1 ] && echo 5 || echo 40)
  EMOJI=$'\xF0\x9F\x98\x80'
  for ((run = 1; run <= RUNS; run++)); do
    for spec in "4mb-whole 4000000 -1" "4mb-cut 4000000 100000" "100kb-whole 100000 -1"; do
      read -r label bytes bound <<<"$spec"
      line="$("$LOAD" lib --socket "$TMP/run/large.sock" --ns big --tool text \
        --args "{\"unit\":\"$EMOJI\",\"bytes\":$bytes}" --max-bytes "$bound" \
        --calls "$LCALLS" --warmup 2 --pids "$DAEMON_PID" 2>/dev/null || true)"
      Record "$run" large "${line/\{/\{\"label\":\"$label\",}"
    done
  done
  Record 0 large "{\"label\":\"daemon\",\"hwm_kb\":$(KbOf "$DAEMON_PID" VmHWM),\"files\":$(ls "$TMP/run/mcpgw/results" 2>/dev/null | wc -l)}"
  StopPid "$DAEMON_PID"
else
  Log "SKIP large results: tests/fixtures/node_modules is missing (scripts/install-node-deps.sh)"
fi

# ---- 4. report ----------------------------------------------------------------------
VERSIONS="$TMP/versions.json"
python3 - "$VERSIONS" "$MCPGWD" "$NODE_MODULES" "${NODE:-node}" <<'EOF'
import json, platform, subprocess, sys, os
out, mcpgwd, nm, node = sys.argv[1:5]
def run(*cmd):
    try: return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception: return "unknown"
def pkg(name):
    try: return json.load(open(os.path.join(nm, name, "package.json")))["version"]
    except Exception: return "not installed"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
json.dump({"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
           "mcpgw": run(mcpgwd, "--version").splitlines()[0] if run(mcpgwd, "--version") else "unknown",
           "curl": run("curl-config", "--version"), "node": run(node, "--version"),
           "supergateway": pkg("supergateway"), "mcp-remote": pkg("mcp-remote"),
           "sdk": pkg("@modelcontextprotocol/sdk")}, open(out, "w"))
EOF
# The plot goes beside the report: --out FILE leaves BENCHMARKS.md and
# tests/bench/plot.png as they are and writes FILE and FILE's name with .png.
if [ -n "$OUT" ]; then
  PLOT="${OUT%.md}.png"
elif [ "$SMOKE" = 1 ]; then
  OUT="$TMP/BENCHMARKS.md"; PLOT="$TMP/plot.png"
else
  OUT="$ROOT/BENCHMARKS.md"; PLOT="$BENCH_DIR/plot.png"
fi
python3 "$BENCH_DIR/report.py" "$RESULTS" "$VERSIONS" "$OUT" "$PLOT" "$TMP" "$SMOKE" "$RUNS"
# The report is written afresh above; its "Status for mcpgw top" section is
# measured again and put back before "## Targets".
[ "$SMOKE" = 1 ] || TopStatus
[ "$SMOKE" = 1 ] || LearnedWords
if [ "$SMOKE" = 1 ]; then
  # The smoke run passes when every section produced numbers without errors.
  HAVE_FIXTURES=0
  [ -d "$FIXTURE_NODE_MODULES/@modelcontextprotocol/sdk" ] && HAVE_FIXTURES=1
  python3 - "$RESULTS" "$HAVE_PEERS" "$HAVE_FIXTURES" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
need = {"call", "scale", "idle", "fanout"} | ({"peer", "syscalls"} if sys.argv[2] == "1" else set())
need |= {"large", "conns"} if sys.argv[3] == "1" else set()
need |= {"peer-sdk"} if sys.argv[2] == "1" and sys.argv[3] == "1" else set()
missing = need - {r["section"] for r in rows}
bad = [r for r in rows if r.get("errors")]
if missing or bad:
    print("bench smoke: FAIL missing=%s errors=%s" % (sorted(missing), [(r["section"], r.get("mode"), r.get("first_error")) for r in bad]))
    sys.exit(1)
print("bench smoke: ok (%d result rows)" % len(rows))
EOF
fi
