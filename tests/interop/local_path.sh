#!/usr/bin/env bash
# A local server's command found the way a service finds it (BEHAVIOR §17):
# mcpgwd runs under `env -i` with the short PATH a service manager gives,
# and `npx` lives only in a user-installed Node (an nvm-like layout under a
# temporary HOME) that the login shell's start-up file puts on PATH. The
# daemon must find it through the login shell, give the server a PATH on
# which its `#!/usr/bin/env node` finds node, and pass on nothing else of its
# environment.
# Usage: tests/interop/local_path.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

FAKE_HOME="$TMP/home"
NODE_BIN="$FAKE_HOME/.nvm/versions/node/v22.0.0/bin"
mkdir -p "$NODE_BIN"
ln -s "$NODE" "$NODE_BIN/node"
# `npx` here is a script run by node from PATH, as the real one is.
cat >"$NODE_BIN/npx" <<EOF
#!/usr/bin/env node
import("$FIXTURES/stdio-fault-server.mjs");
EOF
chmod 755 "$NODE_BIN/npx"
# nvm's installer appends to ~/.bashrc; a login shell reads ~/.profile, which
# reads ~/.bashrc.
cat >"$FAKE_HOME/.bashrc" <<EOF
export NVM_DIR="\$HOME/.nvm"
export PATH="$NODE_BIN:\$PATH"
EOF
printf '. "$HOME/.bashrc"\n' >"$FAKE_HOME/.profile"

cat >"$TMP/mcp.json" <<JSON
{"mcpServers": {
  "viansh": {"command": "npx", "args": ["--name", "viansh"], "env": {"FROM_ENTRY": "entry-value"}},
  "nowhere": {"command": "not-installed-anywhere"}
}}
JSON
chmod 600 "$TMP/mcp.json"

# The service's environment: a short PATH, a home, a shell; plus a variable
# of the daemon's own that must not reach the server.
env -i HOME="$FAKE_HOME" USER="$(id -un)" SHELL=/bin/bash PATH=/usr/bin:/bin \
  XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
  DAEMON_ONLY_SECRET=must-not-pass \
  "$MCPGWD" --config "$TMP/mcp.json" --socket "$SOCK" 2>>"$TMP/mcpgwd.log" &
DAEMON_PID=$!
PIDS+=("$DAEMON_PID")
WaitFor 20 test -S "$SOCK" || { cat "$TMP/mcpgwd.log" >&2; exit 1; }

Cli wait --timeout 60
ExpectRc 0 "mcpgw wait"
Check "npx from the nvm-like Node is found through the login shell's PATH: ready" \
  test "$(StatusField viansh status)" = ready

Cli call viansh env
ExpectRc 0 "call env"
printf '%s' "$OUT" >"$TMP/env.json"
Check "the server's PATH starts with the login shell's (nvm) directory" \
  test "$(Json 'd.PATH.split(":")[0]' <"$TMP/env.json")" = "$NODE_BIN"
Check "the server gets the entry's env" test "$(Json 'd.FROM_ENTRY' <"$TMP/env.json")" = entry-value
Check "the server gets HOME" test "$(Json 'd.HOME' <"$TMP/env.json")" = "$FAKE_HOME"
Check "nothing else of the daemon's environment reaches the server" \
  test "$(Json 'd.DAEMON_ONLY_SECRET === undefined && d.XDG_CONFIG_HOME === undefined' <"$TMP/env.json")" = true

Cli call viansh cwd
Check "the server runs in the user's home when the entry names no cwd" test "$OUT" = "$FAKE_HOME"

reason="$(StatusField nowhere reason)"
Check "a command found nowhere is an error naming it ($reason)" \
  grep -q "not-installed-anywhere not found in" <<<"$reason"
Check "the error names the login shell's directory among those searched" \
  grep -qF "$NODE_BIN" <<<"$reason"
Check "the error names the daemon's own PATH among those searched" grep -q "/usr/bin" <<<"$reason"

pid="$(Cli status --json >/dev/null; printf '%s' "$OUT" | Json 'd.servers.find((s) => s.namespace === "viansh").local.pid')"
Check "status shows the server's pid ($pid)" kill -0 "$pid"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
Check "the server ends within 6 s of the daemon's SIGKILL" \
  WaitFor 6 bash -c "! kill -0 $pid 2>/dev/null"
Finish
