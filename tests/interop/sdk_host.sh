#!/usr/bin/env bash
# The official TypeScript SDK's Client as the MCP host of the built `mcpgw
# stdio`, spawned the way hosts spawn it (the SDK's reduced environment: no
# MCPGW_SOCKET, no XDG_RUNTIME_DIR, no LD_LIBRARY_PATH; the socket comes as
# --socket), through a real mcpgwd serving tests/fixtures/sdk-server.mjs:
# the two tools are listed; concurrent calls come back as they finish, not
# in the order sent; a call the host cancels is cancelled upstream and never
# answered; calls pending when the host closes stdin are all answered, then
# the bridge exits 0 by itself; with no daemon, the bridge says on stderr
# which socket it tried and how to start mcpgwd.
# Usage: tests/interop/sdk_host.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

StartServer UP_PORT up "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 5
UP="http://127.0.0.1:$UP_PORT"
printf '{"mcpServers": {"up": {"url": "%s/mcp"}}}\n' "$UP" >"$TMP/mcp.json"
StartDaemon "$TMP/mcp.json"
Cli wait --timeout 30
ExpectRc 0 "mcpgw wait: the upstream is ready"

# Host MODE [ARGS...]: one run of the SDK host; its JSON line in OUT, its
# stderr in ERR, its exit status in RC.
Host() {
  RC=0
  timeout 60 "$NODE" "$FIXTURES/sdk-host.mjs" "$@" >"$TMP/host.out" 2>"$TMP/host.err" || RC=$?
  OUT="$(cat "$TMP/host.out")"
  ERR="$(cat "$TMP/host.err")"
}
Aborted() { test "$(HttpJson GET "$UP/__log" | Json 'd.aborted.length')" -ge 1; }
# Values NAME=EXPR...: evaluates each JavaScript EXPR over `d`, the JSON in OUT,
# in one node run; the results (on one line each) in V[NAME], empty when OUT
# is not JSON.
declare -A V
Values() {
  local k v
  V=()
  while IFS=$'\t' read -r k v; do V[$k]="$v"; done < <(printf '%s' "$OUT" | "$NODE" -e '
    let d;
    try { d = JSON.parse(require("fs").readFileSync(0, "utf8")); } catch (e) { process.exit(0); }
    for (const a of process.argv.slice(1)) {
      const at = a.indexOf("=");
      let v;
      try { v = eval(a.slice(at + 1)); } catch (e) { v = "<error>"; }
      v = typeof v === "string" ? v : JSON.stringify(v);
      console.log(a.slice(0, at) + "\t" + String(v).replace(/[\t\n]/g, " "));
    }' "$@")
}

# ---- one session: list, concurrent calls, a cancel, stdin closed with calls pending ----
Host calls up -- "$MCPGW" --socket "$SOCK" stdio
ExpectRc 0 "the SDK host's session through mcpgw stdio"
Values \
  env='d.env' \
  env_ok='Array.isArray(d.env) && d.env.every((k) => ["HOME","LOGNAME","PATH","SHELL","TERM","USER"].includes(k))' \
  tools='d.tools.join(",")' \
  texts_ok='[0,1,2,3].every((i) => d.texts["echo/"+i] === "echo "+i && ["400","800","1200"].every((ms) => d.texts[ms+"/"+i] === "slept "+ms+" ms"))' \
  order='d.order.join(" ")' \
  order_ok='const k = ["echo","400","800","1200"]; d.order.every((l, i) => i === 0 || k.indexOf(d.order[i-1]) <= k.indexOf(l))' \
  cancel='d.cancel.outcome' \
  errors='d.errors.join("; ")' \
  errors_n='d.errors.length' \
  closing='d.closing.answers.join("; ")' \
  exit='[d.closing.exitCode, d.closing.signal, d.closing.closeMs + " ms"].join(" ")' \
  exit_ok='d.closing.exitCode === 0 && d.closing.signal === null && d.closing.closeMs < 2000'
Check "the bridge ran with only the SDK's environment (${V[env]})" test "${V[env_ok]}" = true
Check "tools/list gives exactly the two gateway tools" \
  test "${V[tools]}" = "call_dynamic_tool,get_dynamic_tools"
Check "all 16 concurrent calls answered with their own text" test "${V[texts_ok]}" = true
# Sent longest first: each shorter kind must be complete before any longer one.
Check "they came back as they finished, not as sent (${V[order]})" test "${V[order_ok]}" = true
Check "the cancelled call ended on the host's side (${V[cancel]})" test "${V[cancel]}" = rejected
Check "the cancel reached the upstream server, which stopped the call" WaitFor 10 Aborted
Check "nothing was answered for the cancelled call, nothing else went wrong (${V[errors]})" \
  test "${V[errors_n]}" = 0
Check "calls pending when stdin closed were all answered (${V[closing]})" \
  test "${V[closing]}" = "slept 600 ms; slept 300 ms; after stdin closed"
Check "then the bridge exited 0 by itself (${V[exit]})" test "${V[exit_ok]}" = true

# ---- no daemon: the host learns why on the bridge's stderr ---------------------------
export NOSOCK="$TMP/absent/mcpgw.sock"
Host unreachable -- "$MCPGW" --socket "$NOSOCK" stdio
ExpectRc 0 "the SDK host's session through mcpgw stdio without a daemon"
Values tools='d.tools.join(",")' text='d.text' unavailable='d.isError && d.text.startsWith("unavailable")' \
  stderr_ok='d.stderr.includes("cannot reach mcpgwd") && d.stderr.includes(process.env.NOSOCK) && d.stderr.includes("mcpgwd --config FILE")' \
  notes='d.stderr.split("\n").filter((l) => l.startsWith("mcpgw stdio: cannot reach mcpgwd")).length'
Check "tools/list still gives the two tools" \
  test "${V[tools]}" = "call_dynamic_tool,get_dynamic_tools"
Check "a call is an isError result saying unavailable (${V[text]})" \
  test "${V[unavailable]}" = true
Check "stderr says it cannot reach mcpgwd at $NOSOCK and how to start it" \
  test "${V[stderr_ok]}" = true
Check "it says so twice: at start and when the first call fails (${V[notes]} times)" test "${V[notes]}" = 2

Check "mcpgwd is still running" kill -0 "$DAEMON_PID"
StopDaemon
Finish
