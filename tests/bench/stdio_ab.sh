#!/usr/bin/env bash
# `mcpgw stdio` of two builds side by side, same daemon, same upstream, same
# session: the official SDK client (peer_client.mjs) calls through each bridge
# in turn, sequentially and at 32 in flight, for --rounds rounds; then each
# bridge's system calls per sequential call under strace -c (two run lengths
# subtracted). Prints one table. Both builds need mcpgw; the newer one also
# mcpgwd and bench_upstream (cmake --build DIR --target bench_tools).
#   tests/bench/stdio_ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [--calls N] [--rounds R]
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD_DIR NEW_BUILD_DIR [--calls N] [--rounds R]" >&2; exit 2; }
OLD="$(cd "$1" && pwd)"; NEW="$(cd "$2" && pwd)"; shift 2
CALLS=2000
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --calls) CALLS="$2"; shift ;;
    --rounds) ROUNDS="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -d "$BENCH_DIR/node_modules/@modelcontextprotocol/sdk" ] || {
  echo "stdio_ab: tests/bench/node_modules is missing: run (cd tests/bench && npm ci)" >&2
  exit 1
}

TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcpgw-ab.XXXXXX")"
PIDS=()
Cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  sleep 0.5
  rm -rf "$TMP"
}
trap Cleanup EXIT

"$NEW/tests/bench/bench_upstream" --tools 5 >"$TMP/port" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT="$(head -n1 "$TMP/port")"
echo "{\"mcpServers\":{\"b0\":{\"url\":\"http://127.0.0.1:$PORT/s/0/mcp\"}}}" >"$TMP/mcp.json"
SOCK="$TMP/s.sock"
"$NEW/daemon/mcpgwd" --config "$TMP/mcp.json" --socket "$SOCK" 2>"$TMP/mcpgwd.log" &
DAEMON=$!
PIDS+=("$DAEMON")
"$NEW/client/mcpgw" --socket "$SOCK" wait --timeout 30 >/dev/null

: >"$TMP/rows"
for ((round = 1; round <= ROUNDS; round++)); do
  for side in old new; do
    dir="$OLD"; [ "$side" = new ] && dir="$NEW"
    node "$BENCH_DIR/peer_client.mjs" --calls "$CALLS" --inflight 1,32 --label "$side" \
      --pids "$DAEMON" --wrap-ns b0 -- "$dir/client/mcpgw" --socket "$SOCK" stdio >>"$TMP/rows"
  done
done
for side in old new; do
  dir="$OLD"; [ "$side" = new ] && dir="$NEW"
  for n in 200 1200; do
    node "$BENCH_DIR/peer_client.mjs" --calls "$n" --inflight 1 --label x --wrap-ns b0 \
      -- strace -f -c -o "$TMP/strace.$side.$n" "$dir/client/mcpgw" --socket "$SOCK" stdio >/dev/null
  done
  python3 "$BENCH_DIR/strace_per_call.py" "$side" 200 "$TMP/strace.$side.200" 1200 \
    "$TMP/strace.$side.1200" >>"$TMP/syscalls"
done

python3 - "$TMP/rows" "$TMP/syscalls" "$ROUNDS" "$CALLS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sc = {r["process"]: r for r in (json.loads(l) for l in open(sys.argv[2]) if l.strip())}
print(f"{sys.argv[3]} rounds of {sys.argv[4]} calls; medians (min-max)")
print("| bridge | in flight | bridge CPU µs/call | bridge + daemon CPU µs/call | p50 µs | calls/s |")
print("|---|---|---|---|---|---|")
def cell(v):
    return f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})"
for side in ("old", "new"):
    for c in (1, 32):
        rs = [r for r in rows if r["mode"] == side and r["inflight"] == c]
        print(f"| {side} | {c} | {cell([r['bridge_cpu_us_per_call'] for r in rs])} | "
              f"{cell([r['cpu_us_per_call'] for r in rs])} | {cell([r['p50_us'] for r in rs])} | "
              f"{cell([r['cps'] for r in rs])} |")
print()
print("| bridge | system calls per sequential call | by call |")
print("|---|---|---|")
for side in ("old", "new"):
    r = sc[side]
    print(f"| {side} | {r['per_call']:.1f} | " + ", ".join(f"{k} {v:g}" for k, v in r["by_syscall"].items()) + " |")
EOF
