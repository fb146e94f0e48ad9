#!/usr/bin/env bash
# The six real MCP servers of tests/fixtures as local (command) entries of one
# mcpgwd (BEHAVIOR.md §17). Five start the way hosts start them (`npx -y
# PACKAGE`, cwd tests/fixtures), the memory server by absolute paths. Every
# one becomes ready; the tools the gateway lists for each are the ones the
# official SDK's stdio client (tests/fixtures/stdio-reference.mjs) gets from
# the same command: the same names, input schemas and descriptions (as
# BEHAVIOR.md §4 derives them; the gateway shows only those three fields);
# calls that need no network print the text (BEHAVIOR.md §5) of what the reference client
# gets, a path outside the filesystem server's tree is refused by the server;
# status shows the stdio transport, a live pid and its memory; one process
# serves two hosts at once; and when mcpgwd is killed with SIGKILL every
# process of every server ends within 6 s.
# Usage: tests/interop/local_servers.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

BIN="$FIXTURES/node_modules/.bin"
MEMORY_JS="$FIXTURES/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
# The servers are fixtures of this test: a missing one fails it, never skips it.
for f in "$BIN/node" "$BIN/mcp-server-everything" "$BIN/mcp-server-filesystem" \
  "$BIN/mcp-server-sequential-thinking" "$BIN/playwright-mcp" "$BIN/context7-mcp" "$MEMORY_JS" \
  "$FIXTURES/stdio-reference.mjs"; do
  if [ ! -e "$f" ]; then
    echo "$SCRIPT_NAME: $f is missing; run scripts/install-node-deps.sh" >&2
    exit 1
  fi
done
# npx finds the packages installed in tests/fixtures, and node_modules/.bin
# holds the pinned Node 22 they run on: first on the daemon's PATH and on the
# reference client's.
export PATH="$BIN:$PATH"
if ! command -v npx >/dev/null; then
  echo "$SCRIPT_NAME: npx is not on PATH ($PATH); install npm" >&2
  exit 1
fi

# ---- the servers ----------------------------------------------------------------------
FILES="$TMP/files"
mkdir -p "$FILES/sub"
printf 'first line\nsecond line\n' >"$FILES/notes.txt"
printf 'inner\n' >"$FILES/sub/inner.txt"
printf 'outside the tree\n' >"$TMP/outside.txt"

cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "everything":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "cwd": "$FIXTURES"},
  "filesystem":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "$FILES"], "cwd": "$FIXTURES"},
  "memory":      {"command": "$NODE", "args": ["$MEMORY_JS"], "env": {"MEMORY_FILE_PATH": "$TMP/memory-gateway.jsonl"}},
  "thinking":    {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-sequential-thinking"], "cwd": "$FIXTURES"},
  "playwright":  {"command": "npx", "args": ["-y", "@playwright/mcp"], "cwd": "$FIXTURES"},
  "context7":    {"command": "npx", "args": ["-y", "@upstash/context7-mcp"], "cwd": "$FIXTURES"}
}}
EOF
chmod 600 "$TMP/mcp.json"
NAMESPACES=(everything filesystem memory thinking playwright context7)

# The calls each server gets, through the gateway and through the reference
# client, in this order (tool and arguments, tab-separated).
ENTITIES='{"entities":[{"name":"mcpgw","entityType":"project","observations":["runs local MCP servers"]},{"name":"stdio","entityType":"transport","observations":["newline-delimited JSON-RPC"]}]}'
THOUGHT='{"thought":"A gateway that runs a local server once serves every host.","nextThoughtNeeded":false,"thoughtNumber":1,"totalThoughts":1}'
declare -A CALLS
CALLS[everything]="echo	{\"message\":\"hello from a local server\"}
get-sum	{\"a\":19,\"b\":23}"
CALLS[filesystem]="list_directory	{\"path\":\"$FILES\"}
read_text_file	{\"path\":\"$FILES/notes.txt\"}
read_text_file	{\"path\":\"$FILES/sub/inner.txt\"}
read_text_file	{\"path\":\"$TMP/outside.txt\"}"
CALLS[memory]="create_entities	$ENTITIES
read_graph	{}"
CALLS[thinking]="sequentialthinking	$THOUGHT"
CALLS[playwright]=""
CALLS[context7]=""

StartDaemon "$TMP/mcp.json"
T0=$SECONDS

# The reference client, for each server at once while the daemon starts them:
# the same command, cwd and env; its JSON in ref-NS.json.
declare -A REF_PID
Reference() {
  local ns="$1" line tool args
  shift
  local -a call_args=()
  while IFS=$'\t' read -r tool args; do
    [ -n "$tool" ] && call_args+=(--call "$tool" "$args")
  done <<<"${CALLS[$ns]}"
  timeout 90 "$NODE" "$FIXTURES/stdio-reference.mjs" "${call_args[@]}" "$@" \
    >"$TMP/ref-$ns.json" 2>"$TMP/ref-$ns.err" &
  REF_PID[$ns]=$!
  PIDS+=($!)
}
Reference everything --cwd "$FIXTURES" -- npx -y @modelcontextprotocol/server-everything
Reference filesystem --cwd "$FIXTURES" -- npx -y @modelcontextprotocol/server-filesystem "$FILES"
Reference memory --env "MEMORY_FILE_PATH=$TMP/memory-reference.jsonl" -- "$NODE" "$MEMORY_JS"
Reference thinking --cwd "$FIXTURES" -- npx -y @modelcontextprotocol/server-sequential-thinking
Reference playwright --cwd "$FIXTURES" -- npx -y @playwright/mcp
Reference context7 --cwd "$FIXTURES" -- npx -y @upstash/context7-mcp

# ---- ready --------------------------------------------------------------------------
Cli wait --timeout 90
ExpectRc 0 "mcpgw wait: no server is loading"
Check "all six servers loaded within 90 s ($((SECONDS - T0)) s)" test $((SECONDS - T0)) -le 90
Cli status --json
printf '%s' "$OUT" >"$TMP/status.json"
# Row NS: "status|transport|pid|rss_bytes|restarts|tools|reason" of a server's row.
Row() {
  NS="$1" Json '(() => { const s = d.servers.find((s) => s.namespace === process.env.NS) || {}; const l = s.local || {};
    return [s.status, s.transport, l.pid, l.rss_bytes, l.restarts, s.tools, s.reason].join("|"); })()' <"$TMP/status.json"
}
declare -A SERVER_PID
for ns in "${NAMESPACES[@]}"; do
  IFS='|' read -r status transport pid rss restarts tools reason <<<"$(Row "$ns")"
  SERVER_PID[$ns]="$pid"
  if [ "$status" = ready ]; then Pass "$ns: ready ($tools tools)"; else Fail "$ns: ready" "status $status: $reason"; fi
  Check "$ns: transport stdio" test "$transport" = stdio
  if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    Pass "$ns: status pid $pid is a live process"
  else
    Fail "$ns: status pid" "\"$pid\" is not a live process"
  fi
  if [[ "$rss" =~ ^[0-9]+$ ]] && [ "$rss" -gt 0 ]; then
    Pass "$ns: rss_bytes $rss > 0"
  else
    Fail "$ns: rss_bytes" "\"$rss\""
  fi
  Check "$ns: restarts 0" test "$restarts" = 0
done

# ---- the reference client's view ------------------------------------------------------
for ns in "${NAMESPACES[@]}"; do
  rc=0
  wait "${REF_PID[$ns]}" || rc=$?
  if [ "$rc" -ne 0 ]; then
    Fail "stdio-reference.mjs against $ns" "exit $rc: $(tail -n 5 "$TMP/ref-$ns.err")"
  fi
done

cat >"$TMP/compare.js" <<'JS'
// compare.js tools GATEWAY_JSON REFERENCE_JSON: the gateway's listing of a
// server against the reference client's; prints "ok N" or the differences.
// compare.js call REFERENCE_JSON INDEX STDOUT STDERR RC: one `mcpgw call`
// against the reference's result of the same call; prints "ok" or why not.
const fs = require('fs');
const [mode, ...args] = process.argv.slice(2);
const Read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
// BEHAVIOR.md §4: invisible characters are removed from what hosts see.
const Strip = (s) => s.replace(/[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060\uFEFF]/gu, '');
const Canon = (v) =>
  Array.isArray(v) ? v.map(Canon)
  : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, Canon(v[k])]))
  : typeof v === 'string' ? Strip(v) : v;
// BEHAVIOR.md §4: description, else title, else annotations.title, else the name.
const Description = (t) => Strip([t.description, t.title, t.annotations?.title, t.name]
  .find((s) => typeof s === 'string' && s !== ''));
// BEHAVIOR.md §5: the result as text.
const Block = (b) => {
  switch (b.type) {
    case 'text': return b.text;
    case 'image': case 'audio': return `[${b.type} omitted: ${b.mimeType || 'unknown'}]`;
    case 'resource':
      return typeof b.resource?.text === 'string' ? b.resource.text : `[resource omitted: ${b.resource?.mimeType || 'unknown'}]`;
    case 'resource_link': return `[resource: ${b.uri}]`;
    default: return `[${b.type} omitted]`;
  }
};
const Text = (r) => Array.isArray(r.content) && r.content.length > 0 ? r.content.map(Block).join('\n\n')
  : r.structuredContent !== undefined ? JSON.stringify(r.structuredContent) : '';
const Short = (s) => JSON.stringify(String(s).slice(0, 300));

if (mode === 'tools') {
  const gw = Read(args[0]).tools || [];
  const ref = Read(args[1]).tools;
  const problems = [];
  const gwNames = gw.map((t) => t.name).sort();
  const refNames = ref.map((t) => Strip(t.name)).sort();
  if (JSON.stringify(gwNames) !== JSON.stringify(refNames)) {
    problems.push(`names: gateway ${JSON.stringify(gwNames)}, reference ${JSON.stringify(refNames)}`);
  }
  for (const r of ref) {
    const g = gw.find((t) => t.name === Strip(r.name));
    if (!g) continue;
    const extra = Object.keys(g).filter((k) => !['name', 'description', 'inputSchema'].includes(k));
    if (extra.length) problems.push(`${r.name}: fields the gateway does not document: ${extra}`);
    if (g.description !== Description(r)) {
      problems.push(`${r.name}: description ${Short(g.description)}, reference ${Short(Description(r))}`);
    }
    const gs = JSON.stringify(Canon(g.inputSchema)), rs = JSON.stringify(Canon(r.inputSchema));
    if (gs !== rs) problems.push(`${r.name}: inputSchema ${gs.slice(0, 400)}, reference ${rs.slice(0, 400)}`);
  }
  console.log(problems.length ? problems.join('; ') : `ok ${ref.length}`);
} else if (mode === 'call') {
  const [refFile, index, outFile, errFile, rc] = args;
  const r = Read(refFile).calls[Number(index)].result;
  const want = Text(r);
  const out = fs.readFileSync(outFile, 'utf8'), err = fs.readFileSync(errFile, 'utf8');
  if (r.isError) {
    if (rc !== '1') console.log(`exit ${rc}, want 1 (backend) for the server's error ${Short(want)}; stdout ${Short(out)}`);
    else if (!err.includes(`backend: ${want}`)) console.log(`stderr ${Short(err)}, want the server's error ${Short(want)}`);
    else console.log('ok');
  } else if (rc !== '0') {
    console.log(`exit ${rc}, want 0; stderr ${Short(err)}`);
  } else if (out !== want + '\n') {
    console.log(`printed ${Short(out)}, reference ${Short(want + '\n')}`);
  } else {
    console.log('ok');
  }
}
JS

for ns in "${NAMESPACES[@]}"; do
  [ -s "$TMP/ref-$ns.json" ] || continue
  Cli tools "$ns" --json
  printf '%s' "$OUT" >"$TMP/gw-$ns.json"
  verdict="$("$NODE" "$TMP/compare.js" tools "$TMP/gw-$ns.json" "$TMP/ref-$ns.json" 2>&1 || true)"
  if [[ "$verdict" == ok* ]]; then
    Pass "$ns: the gateway lists the reference client's ${verdict#ok } tools (names, input schemas, descriptions)"
  else
    Fail "$ns: the gateway's tools are the reference client's" "$verdict"
  fi
  want_tools="$(Json 'd.tools.length' <"$TMP/ref-$ns.json")"
  Check "$ns: status counts $want_tools tools" test "$(Json "d.servers.find((s) => s.namespace === '$ns').tools" <"$TMP/status.json")" = "$want_tools"

  i=0
  while IFS=$'\t' read -r tool args; do
    [ -n "$tool" ] || continue
    Cli call "$ns" "$tool" "$args" </dev/null
    cp "$TMP/cli.out" "$TMP/call.out"
    cp "$TMP/cli.err" "$TMP/call.err"
    verdict="$("$NODE" "$TMP/compare.js" call "$TMP/ref-$ns.json" "$i" "$TMP/call.out" "$TMP/call.err" "$RC" 2>&1 || true)"
    if [ "$verdict" = ok ]; then
      Pass "$ns: call $tool gives the reference client's result"
    else
      Fail "$ns: call $tool $args" "$verdict"
    fi
    i=$((i + 1))
  done <<<"${CALLS[$ns]}"
done

# What those results mean, beyond being the same as the reference's.
Cli call everything get-sum '{"a":19,"b":23}'
Check "everything: get-sum says 42" grep -q 42 "$TMP/cli.out"
Cli call filesystem read_text_file "{\"path\":\"$TMP/outside.txt\"}"
ExpectRc 1 "filesystem: a path outside its tree is refused by the server (backend)"
Check "filesystem: the refusal names the path" grep -qF "$TMP/outside.txt" "$TMP/cli.err"
Cli call filesystem list_directory "{\"path\":\"$FILES\"}"
Check "filesystem: list_directory shows notes.txt and sub" \
  bash -c "grep -q 'notes.txt' '$TMP/cli.out' && grep -q 'sub' '$TMP/cli.out'"
Cli call memory read_graph '{}'
Check "memory: read_graph holds the two entities created" \
  test "$(Json 'd.entities.map((e) => e.name).sort().join(",")' <"$TMP/cli.out")" = "mcpgw,stdio"
Check "memory: the gateway's server wrote its own MEMORY_FILE_PATH (env reached it)" \
  grep -q '"mcpgw"' "$TMP/memory-gateway.jsonl"

# ---- one process, two hosts at once -----------------------------------------------------
EV_PID="${SERVER_PID[everything]}"
LONG='{"duration":4,"steps":2}'
LONG_TEXT="Long running operation completed. Duration: 4 seconds, Steps: 2."
t_start=$SECONDS
# Host 1: mcpgw call. Host 2: an SDK host through mcpgw stdio (another connection).
timeout 60 "$MCPGW" call everything trigger-long-running-operation "$LONG" \
  >"$TMP/host1.out" 2>"$TMP/host1.err" &
H1=$!
PIDS+=("$H1")
timeout 60 "$NODE" "$FIXTURES/stdio-reference.mjs" \
  --call call_dynamic_tool "{\"namespace\":\"everything\",\"toolName\":\"trigger-long-running-operation\",\"arguments\":$LONG}" \
  -- "$MCPGW" --socket "$SOCK" stdio >"$TMP/host2.json" 2>"$TMP/host2.err" &
H2=$!
PIDS+=("$H2")
InFlightTwo() { test "$(StatusField everything in_flight)" = 2; }
if WaitFor 10 InFlightTwo; then
  Pass "everything: two hosts' calls in flight at once"
else
  Fail "everything: two hosts' calls in flight at once" "in_flight $(StatusField everything in_flight)"
fi
rc1=0
wait "$H1" || rc1=$?
rc2=0
wait "$H2" || rc2=$?
elapsed=$((SECONDS - t_start))
Check "host 1 (mcpgw call) gets the long operation's result (exit $rc1)" \
  bash -c "[ $rc1 -eq 0 ] && [ \"\$(cat '$TMP/host1.out')\" = '$LONG_TEXT' ]"
Check "host 2 (SDK host via mcpgw stdio) gets the same result (exit $rc2)" \
  test "$(Json 'd.calls[0].result.isError ? "error" : d.calls[0].result.content[0].text' <"$TMP/host2.json")" = "$LONG_TEXT"
Check "the two 4 s calls ran side by side (${elapsed} s in all, < 7)" test "$elapsed" -lt 7
Check "everything: the same process served both (pid $EV_PID)" test "$(StatusField everything local | Json 'd.pid')" = "$EV_PID"
Check "everything: restarts still 0" test "$(StatusField everything local | Json 'd.restarts')" = 0
# Every process below mcpgwd that runs server-everything's code is in one
# process group, the status pid's, and one node process runs the server.
Descendants "$DAEMON_PID" >"$TMP/tree.txt"
ev_groups=""
ev_nodes=0
while read -r p st pg; do
  cmd="$(Cmdline "$p")"
  [[ "$cmd" == *server-everything* ]] || continue
  [[ " $ev_groups " == *" $pg "* ]] || ev_groups="$ev_groups $pg"
  [[ "$cmd" =~ (^|/)node\ .*(mcp-server-everything|server-everything/dist/index.js) ]] && ev_nodes=$((ev_nodes + 1))
done <"$TMP/tree.txt"
Check "one process group runs server-everything, the status pid's (groups:$ev_groups)" test "$ev_groups" = " $EV_PID"
Check "one node process runs server-everything ($ev_nodes)" test "$ev_nodes" = 1

# ---- search: local servers' tools are found like remote ones (BEHAVIOR.md §10) -------------
Cli tools --query "add two numbers and return their sum" --json
ExpectRc 0 "mcpgw tools --query"
Check "the query finds everything's get-sum among the first three" \
  test "$(printf '%s' "$OUT" | Json 'JSON.stringify(d).includes("get-sum") && (d.tools || d.results || []).slice(0, 3).some((t) => JSON.stringify(t).includes("get-sum"))')" = true
Cli tools --query "read the contents of a text file" --json
Check "the query finds filesystem's read_text_file among the first three" \
  test "$(printf '%s' "$OUT" | Json '(d.tools || d.results || []).slice(0, 3).some((t) => JSON.stringify(t).includes("read_text_file"))')" = true

# ---- mcpgwd killed with SIGKILL: every server process ends ----------------------------------
Descendants "$DAEMON_PID" >"$TMP/tree.txt"
watch=""
for ns in "${NAMESPACES[@]}"; do watch="$watch ${SERVER_PID[$ns]}"; done
while read -r p st pg; do watch="$watch $p"; done <"$TMP/tree.txt"
Check "before the kill: every server's process runs ($(Leftover $watch | wc -l) processes)" \
  test "$(Leftover $watch | wc -l)" -ge "${#NAMESPACES[@]}"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
t_kill=$SECONDS
if WaitFor 6 NoLeftover $watch; then
  Pass "mcpgwd killed: no process of any server is left after $((SECONDS - t_kill)) s"
else
  left=""
  for p in $(Leftover $watch); do left="$left [$p: $(Cmdline "$p" | cut -c1-80)]"; done
  Fail "mcpgwd killed: no process of any server left within 6 s" "still running:$left"
fi
Finish
