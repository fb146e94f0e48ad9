#!/usr/bin/env bash
# Day one against the real hosts (docs/SETUP.md): on a temporary HOME holding all seven
# hosts' files (local, remote, switched-off, duplicate and clashing servers), `mcpgw import`
# adds the remote and local ones to mcp.json (a local server's literal env value copied, never
# printed) and the running mcpgwd picks them up and runs them; `mcpgw hosts add`
# registers `mcpgw stdio` in every host; then the real Claude Code (`claude mcp list`) and
# Gemini CLI (`gemini mcp list`) start it and report it connected, and the real Codex CLI
# (`codex mcp list`) lists it; `mcpgw doctor` passes every check but the stripped-socket
# one (the test's daemon is on a private socket), each local server's command found;
# `mcpgw hosts remove` leaves every host file as it was. The hosts are the pinned npm
# packages of tests/hosts, the local servers those of tests/fixtures, run offline
# (telemetry and updates off). No secret appears in any output. Loopback only; never
# skipped: a missing package fails it.
# Usage: tests/interop/hosts.sh BUILD_DIR
set -euo pipefail
MCPGW_INTEROP_TIMEOUT="${MCPGW_INTEROP_TIMEOUT:-110}"
source "$(dirname "$0")/lib.sh" "$@"

# Claude Code is a native program; Gemini CLI (Node 20 or newer) and Codex's launcher run
# on the fixtures' Node 22, whatever node the machine has.
HOSTS="$ROOT/tests/hosts/node_modules"
CLAUDE=("$HOSTS/@anthropic-ai/claude-code/bin/claude.exe")
GEMINI=("$NODE" "$HOSTS/@google/gemini-cli/bundle/gemini.js")
CODEX=("$NODE" "$HOSTS/@openai/codex/bin/codex.js")
for program in "${CLAUDE[0]}" "${GEMINI[1]}" "${CODEX[1]}"; do
  if [ ! -f "$program" ]; then
    Fail "${program#"$ROOT/"} is missing (run scripts/install-node-deps.sh)"
    Finish
  fi
done
# The local servers the hosts' files name: the fixtures' own, started by absolute paths.
FS_JS="$FIXTURES/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
MEMORY_JS="$FIXTURES/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
THINK_JS="$FIXTURES/node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js"
for f in "$FIXTURES/node_modules/@modelcontextprotocol/sdk/package.json" "$FS_JS" "$MEMORY_JS" "$THINK_JS"; do
  if [ ! -f "$f" ]; then
    Fail "${f#"$ROOT/"} is missing (run scripts/install-node-deps.sh)"
    Finish
  fi
done
echo "hosts: $("${CLAUDE[@]}" --version 2>/dev/null); gemini $("${GEMINI[@]}" --version 2>/dev/null); $("${CODEX[@]}" --version 2>/dev/null | head -1)"

StartServer PORT sdk-server "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 3
URL="http://127.0.0.1:$PORT/mcp"
SECRET="s3cret-header-value-$$"
ENV_SECRET="s3cret-env-value-$$"

# A HOME of its own; the daemon and every `mcpgw stdio` a host starts find the socket
# through XDG_RUNTIME_DIR, as with the user service. The hosts stay off the network.
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config"
mkdir -p "$HOME/proj" "$HOME/.claude" "$HOME/.cursor" "$HOME/.config/Code/User" \
  "$HOME/.codeium/windsurf" "$HOME/.gemini" "$HOME/.codex" "$HOME/.config/Claude"
unset MCPGW_SOCKET CLAUDE_CONFIG_DIR CODEX_HOME GEMINI_CLI_HOME
export DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 GEMINI_CLI_TRUST_WORKSPACE=true
export TEST_KEY="$SECRET"
cd "$HOME/proj"

cat >"$HOME/.claude.json" <<JSON
{
  "numStartups": 1,
  "mcpServers": {
    "alpha": {"type": "http", "url": "$URL", "headers": {"X-Key": "\${TEST_KEY}"}},
    "fs": {"type": "stdio", "command": "$NODE", "args": ["$FS_JS", "$HOME/proj"], "env": {"FS_KEY": "$ENV_SECRET"}}
  }
}
JSON
cat >"$HOME/.cursor/mcp.json" <<JSON
{
  // the same alpha as Claude Code's, and a different server also named beta
  "mcpServers": {
    "alpha": {"url": "$URL", "headers": {"X-Key": "\${env:TEST_KEY}"}},
    "beta": {"url": "$URL?from=cursor"}
  }
}
JSON
cat >"$HOME/.config/Code/User/mcp.json" <<JSON
// VS Code
{
  "servers": {
    "beta": {"type": "http", "url": "$URL?from=vscode",},
  },
}
JSON
printf '{"mcpServers": {"gamma": {"serverUrl": "%s?from=windsurf"}, "off": {"serverUrl": "%s", "disabled": true}}}\n' \
  "$URL" "$URL" >"$HOME/.codeium/windsurf/mcp_config.json"
printf '{\n  // Gemini\n  "mcpServers": {"delta": {"httpUrl": "%s?from=gemini"}}\n}\n' "$URL" \
  >"$HOME/.gemini/settings.json"
cat >"$HOME/.codex/config.toml" <<TOML
# Codex
[mcp_servers.epsilon]
url = "$URL?from=codex"
env_http_headers = { "X-Key" = "TEST_KEY" }

[mcp_servers.paused]
url = "$URL?from=paused"
enabled = false

[mcp_servers.think]
command = "$NODE"
args = ["$THINK_JS"]
TOML
printf '{"mcpServers": {"memory": {"command": "%s", "args": ["%s"], "env": {"MEMORY_FILE_PATH": "%s"}}}}\n' \
  "$NODE" "$MEMORY_JS" "$HOME/memory.jsonl" >"$HOME/.config/Claude/claude_desktop_config.json"
FILES=(.claude.json .cursor/mcp.json .config/Code/User/mcp.json .codeium/windsurf/mcp_config.json
  .gemini/settings.json .codex/config.toml .config/Claude/claude_desktop_config.json)
mkdir -p "$TMP/before"
for f in "${FILES[@]}"; do cp "$HOME/$f" "$TMP/before/$(echo "$f" | tr / _)"; done

# --- import, picked up by the running daemon ---
mkdir -p "$XDG_CONFIG_HOME/mcpgw"
echo '{"mcpServers": {}}' >"$XDG_CONFIG_HOME/mcpgw/mcp.json"
"$MCPGWD" 2>>"$TMP/mcpgwd.log" &
DAEMON_PID=$!
PIDS+=("$DAEMON_PID")
Check "mcpgwd listens on \$XDG_RUNTIME_DIR/mcpgw/mcpgw.sock" WaitFor 20 test -S "$XDG_RUNTIME_DIR/mcpgw/mcpgw.sock"
Cli import
ExpectRc 0 "mcpgw import"
printf '%s\n' "$OUT" "$ERR" >>"$TMP/outputs.txt"
Check "import adds alpha once, from both hosts" grep -q 'also cursor' <<<"$OUT"
Check "import suffixes the clashing beta" grep -q '+ beta-vscode' <<<"$OUT"
Check "import adds the local servers" \
  bash -c "grep -q -- '+ fs ' <<<\"\$1\" && grep -q -- '+ memory ' <<<\"\$1\" && grep -q -- '+ think ' <<<\"\$1\"" _ "$OUT"
Check "import skips the switched-off servers" \
  bash -c "grep -q -- '- off ' <<<\"\$1\" && grep -q -- '- paused ' <<<\"\$1\"" _ "$OUT"
Check "mcp.json holds the local server's literal env value, mode 0600" \
  bash -c "grep -q -- '$ENV_SECRET' '$XDG_CONFIG_HOME/mcpgw/mcp.json' && test \"\$(stat -c %a '$XDG_CONFIG_HOME/mcpgw/mcp.json')\" = 600"
Check "the running daemon picked mcp.json up ($(grep 'mcpgwd' <<<"$OUT" | head -1))" \
  grep -q "the running mcpgwd (pid $DAEMON_PID) picked up mcp.json" <<<"$OUT"
Cli wait --timeout 20
ExpectRc 0 "every imported server stops loading"
Cli status --json
for ns in alpha beta beta-vscode gamma delta epsilon fs memory think; do
  Check "$ns is ready" test "$(printf '%s' "$OUT" | NS=$ns Json '(d.servers.find((s) => s.namespace === process.env.NS) || {}).status')" = ready
done
for f in "${FILES[@]}"; do
  Check "import left $f as it was" cmp -s "$HOME/$f" "$TMP/before/$(echo "$f" | tr / _)"
done

# --- every host registers mcpgw ---
for host in claude-desktop claude-code cursor vscode windsurf gemini codex; do
  Cli hosts add "$host"
  ExpectRc 0 "mcpgw hosts add $host"
done
Cli hosts list
Check "hosts list: all seven run mcpgw" test "$(grep -c 'runs mcpgw' <<<"$OUT")" = 7

out="$(timeout 60 "${CLAUDE[@]}" mcp list 2>&1 || true)"
echo "claude mcp list: $(grep mcpgw <<<"$out")"
Check "claude mcp list: mcpgw is connected" grep -q "^mcpgw: $MCPGW stdio - [^ ]* Connected" <<<"$out"
out="$(timeout 60 "${GEMINI[@]}" mcp list 2>&1 || true)"
echo "gemini mcp list: $(grep mcpgw <<<"$out")"
Check "gemini mcp list: mcpgw is connected" grep -q "mcpgw: $MCPGW stdio (stdio) - Connected" <<<"$out"
out="$(timeout 60 "${CODEX[@]}" mcp list 2>&1 || true)"
echo "codex mcp list: $(grep mcpgw <<<"$out")"
Check "codex mcp list: mcpgw is listed and enabled" grep -q "^mcpgw .*$MCPGW .*stdio .*enabled" <<<"$out"

# --- every host's entry, started as the host would start it, reaches the imported servers ---
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hosts.sh","version":"1"}}}'
LIST='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_dynamic_tools","arguments":{}}}'
# Serve OUT COMMAND...: initialize and one get_dynamic_tools over stdio, stdin held open
# until the answer is out (at most 20 s).
Serve() {
  local out="$1"
  shift
  : >"$out"
  {
    printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$LIST"
    for _ in $(seq 200); do
      grep -q '"id":2' "$out" && break
      sleep 0.1
    done
  } | timeout 30 env -i HOME="$HOME" PATH="$PATH" XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" "$@" >"$out" 2>"$out.err" || true
}
for pair in claude-desktop:.config/Claude/claude_desktop_config.json:mcpServers \
  claude-code:.claude.json:mcpServers cursor:.cursor/mcp.json:mcpServers \
  vscode:.config/Code/User/mcp.json:servers windsurf:.codeium/windsurf/mcp_config.json:mcpServers \
  gemini:.gemini/settings.json:mcpServers; do
  IFS=: read -r host file key <<<"$pair"
  mapfile -t argv < <("$NODE" -e '
    const fs = require("fs");
    // JSONC as the hosts read it: comments outside strings, then trailing commas.
    const strip = (t) => {
      let o = "", i = 0, str = false;
      while (i < t.length) {
        const c = t[i];
        if (str) {
          o += c;
          if (c === "\\") { o += t[i + 1]; i += 2; continue; }
          if (c === "\"") str = false;
          i++;
        } else if (c === "\"") { str = true; o += c; i++; }
        else if (t.startsWith("//", i)) { while (i < t.length && t[i] !== "\n") i++; }
        else if (t.startsWith("/*", i)) { i = t.indexOf("*/", i + 2) + 2; }
        else { o += c; i++; }
      }
      return o.replace(/,(\s*[}\]])/g, "$1");
    };
    const e = JSON.parse(strip(fs.readFileSync(process.argv[1], "utf8")))[process.argv[2]].mcpgw;
    console.log([e.command, ...e.args].join("\n"));' "$HOME/$file" "$key" 2>/dev/null || true)
  Serve "$TMP/serve-$host.out" "${argv[@]:-false}"
  Check "$host's entry (${argv[*]:-none}) serves the gateway's servers" \
    bash -c "grep -q '\"id\":2,\"result\"' '$TMP/serve-$host.out' && grep -q 'beta-vscode' '$TMP/serve-$host.out'"
done
# Codex's own reading of its table: `codex mcp get --json`.
mapfile -t argv < <("${CODEX[@]}" mcp get mcpgw --json 2>/dev/null |
  Json '[d.transport.command, ...d.transport.args].join("\n")')
Serve "$TMP/serve-codex.out" "${argv[@]:-false}"
Check "codex's entry (${argv[*]:-none}, as codex mcp get reads it) serves the gateway's servers" \
  bash -c "grep -q '\"id\":2,\"result\"' '$TMP/serve-codex.out' && grep -q 'beta-vscode' '$TMP/serve-codex.out'"

# --- doctor: everything holds but the stripped socket, which is not this test's ---
mkdir -p "$XDG_CONFIG_HOME/systemd/user/sockets.target.wants"
cp "$ROOT/packaging/mcpgwd.socket" "$XDG_CONFIG_HOME/systemd/user/"
ln -s ../mcpgwd.socket "$XDG_CONFIG_HOME/systemd/user/sockets.target.wants/mcpgwd.socket"
Cli doctor
printf '%s\n' "$OUT" "$ERR" >>"$TMP/outputs.txt"
ExpectRc 1 "mcpgw doctor exits 1 while one check fails"
Check "doctor: one failed check, the stripped-environment socket ($(grep '✗' <<<"$OUT" | head -2 | tr '\n' ' '))" \
  bash -c "test \"\$(grep -c '^✗' <<<\"\$1\")\" = 1 && grep -q \"^✗ hosts' socket\" <<<\"\$1\"" _ "$OUT"
Check "doctor: each local server's command is found" test "$(grep -c '^✓ local server' <<<"$OUT")" = 3
Check "doctor: the daemon, the service, the config, nine servers, three commands and seven hosts hold" \
  test "$(grep -c '^✓' <<<"$OUT")" -ge 22

# --- remove: every host file as it was ---
for host in claude-desktop claude-code cursor vscode windsurf gemini codex; do
  Cli hosts remove "$host"
  ExpectRc 0 "mcpgw hosts remove $host"
done
for f in .cursor/mcp.json .config/Code/User/mcp.json .codeium/windsurf/mcp_config.json \
  .gemini/settings.json .codex/config.toml .config/Claude/claude_desktop_config.json; do
  Check "after remove, $f is as it was" cmp -s "$HOME/$f" "$TMP/before/$(echo "$f" | tr / _)"
done
# Claude Code rewrites ~/.claude.json itself as it runs: its servers are as they were.
Check "after remove, Claude Code's servers are as they were" \
  test "$(Json 'JSON.stringify(d.mcpServers)' <"$HOME/.claude.json")" = \
  "$(Json 'JSON.stringify(d.mcpServers)' <"$TMP/before/.claude.json")"

Check "no output holds the header's secret value" bash -c "! grep -q '$SECRET' '$TMP/outputs.txt' '$TMP/mcpgwd.log'"
Check "no output holds the local server's env value" bash -c "! grep -q '$ENV_SECRET' '$TMP/outputs.txt' '$TMP/mcpgwd.log'"
Finish
