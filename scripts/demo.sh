#!/usr/bin/env bash
# Runs the mcpgw demo: installs what is missing, builds, starts the demo MCP
# server (demo/demo-server.mjs) and mcpgwd with demo/mcp.json on a private
# socket, then shows `mcpgw status`, one call and `mcpgw tools`. Stops both at
# the end, or leaves them running with --keep. Safe to run again: every run
# gets its own socket, and a free port when 8931 is taken.
# Usage: scripts/demo.sh [--keep]     (MCPGW_BUILD_DIR overrides build/)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

KEEP=false
case "${1:-}" in
  "") ;;
  --keep) KEEP=true ;;
  *) echo "usage: scripts/demo.sh [--keep]" >&2; exit 2 ;;
esac

Say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# ---- dependencies and build ----------------------------------------------------
# Idempotent: installs only the Debian and npm packages that are missing.
Say "checking dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh

BUILD="${MCPGW_BUILD_DIR:-build}"
Say "building mcpgwd and mcpgw ($BUILD/, Release)"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only what the demo runs: the test suite is built by scripts/test.sh.
cmake --build "$BUILD" --target mcpgwd mcpgw
# The demo server runs on the Node 22 of tests/fixtures when it is there.
source "$ROOT/tests/fixtures/node.sh"
BUILD="$(cd "$BUILD" && pwd)"
MCPGWD="$BUILD/daemon/mcpgwd"
MCPGW="$BUILD/client/mcpgw"

# ---- start the demo server and the daemon ------------------------------------------
RUN="$(mktemp -d "${TMPDIR:-/tmp}/mcpgw-demo.XXXXXX")"
chmod 700 "$RUN"
export MCPGW_SOCKET="$RUN/mcpgw.sock"
SERVER_PID=""
DAEMON_PID=""
Stop() {
  local pid
  for pid in $DAEMON_PID $SERVER_PID; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $DAEMON_PID $SERVER_PID; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$RUN"
}
trap Stop EXIT

# StartDemoServer PORT: starts the server and sets PORT to the port it
# listens on; fails when it does not come up (e.g. the port is taken).
StartDemoServer() {
  PORT=""
  : >"$RUN/demo-server.out"
  nohup "$NODE" "$ROOT/demo/demo-server.mjs" --port "$1" >"$RUN/demo-server.out" 2>"$RUN/demo-server.log" &
  SERVER_PID=$!
  for _ in $(seq 100); do
    PORT="$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$RUN/demo-server.out" | head -n 1)"
    [ -n "$PORT" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

Say "starting the demo MCP server"
if ! StartDemoServer 8931; then
  echo "port 8931 is not free; using a free port"
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  if ! StartDemoServer 0; then
    cat "$RUN/demo-server.log" >&2
    echo "the demo server did not start" >&2
    exit 1
  fi
fi
echo "demo server: http://127.0.0.1:$PORT/mcp (pid $SERVER_PID)"
# demo/mcp.json with this checkout's paths: the remote server's port, and the
# local one (the same tools on stdio, run by mcpgwd itself) as absolute paths
# to Node and the script.
CONFIG="$RUN/mcp.json"
"$NODE" -e '
  const fs = require("fs");
  const [from, port, node, script, to] = process.argv.slice(1);
  const c = JSON.parse(fs.readFileSync(from, "utf8"));
  c.mcpServers.demo.url = `http://127.0.0.1:${port}/mcp`;
  c.mcpServers["local-example"].command = node;
  c.mcpServers["local-example"].args = [script, "--stdio"];
  fs.writeFileSync(to, JSON.stringify(c, null, 2) + "\n", { mode: 0o600 });
' "$ROOT/demo/mcp.json" "$PORT" "$NODE" "$ROOT/demo/demo-server.mjs" "$CONFIG"

Say "starting mcpgwd --config ${CONFIG#"$ROOT"/} --socket $MCPGW_SOCKET"
nohup "$MCPGWD" --config "$CONFIG" --socket "$MCPGW_SOCKET" >/dev/null 2>"$RUN/mcpgwd.log" &
DAEMON_PID=$!
echo "mcpgwd pid $DAEMON_PID, log $RUN/mcpgwd.log"

# ---- show it ---------------------------------------------------------------------------
Say "mcpgw wait"
if ! timeout 40 "$MCPGW" wait --timeout 30; then
  echo "mcpgwd did not become ready; its log:" >&2
  tail -n 30 "$RUN/mcpgwd.log" >&2
  exit 1
fi
Say "mcpgw status"
"$MCPGW" status
Say "mcpgw call demo echo '{\"text\":\"hello from mcpgw\"}'"
"$MCPGW" call demo echo '{"text":"hello from mcpgw"}'
Say "mcpgw call local-example add '{\"a\":2,\"b\":3}'  (a local server mcpgwd runs)"
"$MCPGW" call local-example add '{"a":2,"b":3}'
Say "mcpgw tools"
"$MCPGW" tools
echo

if $KEEP; then
  trap - EXIT
  Say "left running"
  cat <<EOF
Try:   MCPGW_SOCKET=$MCPGW_SOCKET $MCPGW tools demo echo
       MCPGW_SOCKET=$MCPGW_SOCKET $MCPGW call demo add '{"a":2,"b":3}'
Stop:  kill $DAEMON_PID $SERVER_PID; rm -rf $RUN
EOF
fi
