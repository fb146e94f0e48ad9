#!/usr/bin/env bash
# The gateway's policy and call log (BEHAVIOR.md §8), through a real daemon: a denied
# tool is not listed and a call to it fails as denied (exit 6) without a byte
# reaching the server (sdk-server.mjs counts what it receives); a namespace
# denied entirely is hidden; read_only keeps only readOnlyHint tools; a SIGHUP
# reloads the policy. The call log gets one line per call, file mode 0600,
# with the request digest of BEHAVIOR.md §14 (SHA-256 of the canonical
# namespace, tool and arguments), recomputed here from the arguments the
# server received, and no argument values. The same holds for a server on the
# 2026-07-28 wire (the echo server's /modern path).
# Usage: tests/security/policy.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/../interop/lib.sh" "$@"
source "$ROOT/tests/security/lib.sh"

StartServer SDK_PORT sdk-server "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 5
StartServer ECHO_PORT echo-server "$NODE" "$ROOT/tests/security/echo-server.mjs" --port 0
S="http://127.0.0.1:$SDK_PORT"
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "sdk":    {"url": "$S/mcp"},
  "hidden": {"url": "$S/mcp"},
  "ro":     {"url": "http://127.0.0.1:$ECHO_PORT/mcp"},
  "modern": {"url": "http://127.0.0.1:$ECHO_PORT/modern/mcp"}
}}
EOF
Settings() {  # Settings DENY_JSON_ARRAY
  cat >"$TMP/settings.json" <<EOF
{"call_log": {"path": "$TMP/calls.jsonl"},
 "policy": {"deny": $1, "read_only": ["ro", "modern"]}}
EOF
}
Settings '["sdk/add", "hidden"]'
StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
ToolsCalls() { HttpJson GET "$S/__log" | Json 'd.requests.filter((r) => r.method === "tools/call").length'; }

Cli wait --timeout 60
ExpectRc 0 "mcpgw wait: every server listed"

# ---- listing ------------------------------------------------------------------------
Cli tools
Check "the listing omits the denied tool" test "$(printf '%s' "$OUT" | Json 'd.servers.find((s) => s.namespace === "sdk").tools.includes("add")')" = false
Check "the listing keeps the other tools" test "$(printf '%s' "$OUT" | Json 'd.servers.find((s) => s.namespace === "sdk").tools.includes("echo")')" = true
Check "a namespace denied entirely is not listed" test "$(printf '%s' "$OUT" | Json 'd.servers.some((s) => s.namespace === "hidden")')" = false
Check "read_only keeps only readOnlyHint tools" test "$(printf '%s' "$OUT" | Json 'd.servers.find((s) => s.namespace === "ro").tools.join(",")')" = "ok,text"
Cli tools sdk
Check "the namespace view omits the denied tool" test "$(printf '%s' "$OUT" | Json 'd.tools.some((t) => t.name === "add")')" = false
Cli tools sdk add
ExpectRc 6 "looking up the denied tool by name is denied"

# ---- denied calls send nothing --------------------------------------------------------
Check "no tools/call has reached the server yet" test "$(ToolsCalls)" = 0
Cli call sdk add '{"a": 1, "b": 2}'
ExpectRc 6 "a call to the denied tool exits 6 (denied)"
Check "the denied message names the rule" grep -q 'sdk/add' "$TMP/cli.err"
Cli call hidden echo '{"text": "x"}'
ExpectRc 6 "a call into a denied namespace exits 6"
Cli call ro rpc
ExpectRc 6 "a call to a tool read_only filters out exits 6"
Check "denied calls sent the server zero tools/call" test "$(ToolsCalls)" = 0
Cli call sdk echo '{"text": "ARGVALUE_4c1d"}'
ExpectRc 0 "an allowed call succeeds"
Check "its result is the tool's" test "$OUT" = ARGVALUE_4c1d
Check "exactly one tools/call reached the server" test "$(ToolsCalls)" = 1

# ---- call log ----------------------------------------------------------------------------
Cli call ro ok '{"note": "ARGVALUE_77aa", "n": [1, 2.5, true, null], "s": "caf\u00e9"}'
ExpectRc 0 "a readOnlyHint tool of the read_only server can be called"
Check "the call log is mode 0600" test "$(stat -c %a "$TMP/calls.jsonl")" = 600
Check "the call log has one line per call (5)" test "$(wc -l <"$TMP/calls.jsonl")" = 5
Check "the call log holds no argument or result value" bash -c "! grep -q 'ARGVALUE' '$TMP/calls.jsonl'"
Check "the three denied calls are logged as denied, each with its request digest" \
  test "$(grep '"outcome":"denied"' "$TMP/calls.jsonl" | grep -cE '"request_digest":"[0-9a-f]{64}"')" = 3
LAST="$(tail -n 1 "$TMP/calls.jsonl")"
Check "the line records namespace, tool, outcome and uid" test "$(printf '%s' "$LAST" | Json '[d.namespace, d.tool, d.outcome, d.uid].join(" ")')" = "ro ok ok $(id -u)"
Check "the arguments reached the server byte for byte" \
  grep -qF '"arguments":{"note": "ARGVALUE_77aa", "n": [1, 2.5, true, null], "s": "caf\u00e9"}' \
  "$TMP/echo-server.out"
# The digest recomputed from what the server read: the canonical form of
# {"arguments":A,"namespace":N,"tool":T} (members sorted at every level, no
# white space; the test's numbers print the same in JavaScript as written).
ExpectDigest() {  # ExpectDigest NAME NAMESPACE: the last call log line against the last body
  local body want got
  body="$(sed -n 's/^BODY //p' "$TMP/echo-server.out" | tail -n 1)"
  want="$(printf '%s' "$body" | "$NODE" -e '
  const canon = (v) => Array.isArray(v) ? "[" + v.map(canon).join(",") + "]"
    : v !== null && typeof v === "object"
      ? "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}"
      : JSON.stringify(v);
  const p = JSON.parse(require("fs").readFileSync(0, "utf8")).params;
  const text = canon({ arguments: p.arguments || {}, namespace: process.argv[1], tool: p.name });
  console.log(require("crypto").createHash("sha256").update(text, "utf8").digest("hex"));' "$2")"
  got="$(tail -n 1 "$TMP/calls.jsonl" | Json 'd.request_digest')"
  if [ "$got" = "$want" ]; then
    Pass "$1: request_digest is the canonical request digest of what the server received"
  else
    Fail "$1: request_digest" "logged $got, the arguments the server received give $want"
  fi
}
ExpectDigest "2025-11-25" ro

# ---- the same policy and call log on the 2026-07-28 wire --------------------------------
Check "modern speaks 2026-07-28" test "$(StatusField modern protocol_version)" = 2026-07-28
Cli tools
Check "read_only keeps only readOnlyHint tools on the 2026-07-28 wire too" test "$(printf '%s' "$OUT" | Json 'd.servers.find((s) => s.namespace === "modern").tools.join(",")')" = "ok,text"
Bodies() { grep -c '^BODY ' "$TMP/echo-server.out" || true; }
bodies="$(Bodies)"
Cli call modern rpc
ExpectRc 6 "a call to a tool read_only filters out exits 6 on the 2026-07-28 wire"
Check "... and sent the server nothing" test "$(Bodies)" = "$bodies"
Cli call modern ok '{"note": "ARGVALUE_m0d3", "n": [1, 2.5, true, null]}'
ExpectRc 0 "a readOnlyHint tool on the 2026-07-28 wire can be called"
Check "the call log has a line for each of the two calls (7)" test "$(wc -l <"$TMP/calls.jsonl")" = 7
Check "the call log holds no argument value of the modern call" bash -c "! grep -q 'ARGVALUE' '$TMP/calls.jsonl'"
Check "the line records the modern call" test "$(tail -n 1 "$TMP/calls.jsonl" | Json '[d.namespace, d.tool, d.outcome].join(" ")')" = "modern ok ok"
ExpectDigest "2026-07-28" modern

# ---- reload ------------------------------------------------------------------------------
Settings '["hidden"]'
kill -HUP "$DAEMON_PID"
WaitFor 20 bash -c "\"$MCPGW\" tools sdk | grep -q '\"name\":\"add\"'" || true
Cli tools sdk
Check "after SIGHUP the no longer denied tool is listed" test "$(printf '%s' "$OUT" | Json 'd.tools.some((t) => t.name === "add")')" = true
Cli call sdk add '{"a": 1, "b": 2}'
ExpectRc 0 "after SIGHUP the call goes through"
Check "and its answer is the server's" test "$OUT" = 3
Check "the server received it" test "$(ToolsCalls)" = 2
Cli call hidden echo '{"text": "x"}'
ExpectRc 6 "the namespace still denied stays denied"
StopDaemon
Finish
