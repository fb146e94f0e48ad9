#!/usr/bin/env bash
# Confined local servers (BEHAVIOR.md §18): Landlock, seccomp and resource
# limits set in the child before exec, seen from inside the server. The
# probe server (tests/fixtures/confine-probe-server.mjs) makes one attempt
# per call and says how it ended; the same attempts run unconfined (`open`)
# must all succeed, so a confinement that does nothing fails the test.
#   - `boxed` (read FIXTURES and inside/, write out/, TCP to port A only):
#     the secret tree and ~/.ssh unreadable, writes only in out/ (rename and
#     hard link out of it refused, a symlink does not reach the secret), TCP
#     to A only, no Unix socket; a child it starts is held the same way; its
#     private temp dir is TMPDIR, writable, shown in status, and removed
#     with the entry.
#   - `offline` (network false): no TCP, UDP or Unix socket; `online`
#     (network true): TCP anywhere.
#   - `limited` (open_files 64, memory_mb 256): too many descriptors EMFILE,
#     too much memory refused, a small allocation fine.
#   - `processes`: refused when the daemon runs as root (the kernel does not
#     count root's processes) unless confine_required is false; bounded as
#     any other user.
#   - `files`: the real @modelcontextprotocol/server-filesystem through npx,
#     confined to its tree (and tests/fixtures, where npx finds it): a
#     secret outside it, directly or through a symlink inside it, never
#     appears in an answer.
#   - status (JSON and text) and doctor show the confinement; entries with a
#     bad `confine` or `limits` are refused naming the key, the others
#     unharmed, no env value shown; the settings default
#     `local_servers_confine` applies to entries that say nothing, and
#     `"confine": false` opts out.
# Exits 77 (skip) only when the kernel has no Landlock at all.
# Usage: tests/interop/local_confine.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"

PROBE="$FIXTURES/confine-probe-server.mjs"
BIN="$FIXTURES/node_modules/.bin"
# The fixtures are this test's: a missing one fails it, never skips it.
for f in "$PROBE" "$BIN/mcp-server-filesystem"; do
  if [ ! -e "$f" ]; then
    echo "$SCRIPT_NAME: $f is missing; run scripts/install-node-deps.sh" >&2
    exit 1
  fi
done
# As tests/interop/local_servers.sh: npx finds the packages installed in
# tests/fixtures, and node_modules/.bin (the pinned Node) is first on PATH.
export PATH="$BIN:$PATH"
if ! command -v npx >/dev/null; then
  echo "$SCRIPT_NAME: npx is not on PATH ($PATH); install npm" >&2
  exit 1
fi
SECRET="a-distinctive-secret-value-456"
KEY_TEXT="confine-key-content-e4b1d0"
SSH_TEXT="confine-ssh-key-content-77a2"

# ---- helpers ----------------------------------------------------------------------------
# Snap: reads `mcpgw status --json` once into $TMP/status.json for the Row
# checks that follow.
Snap() {
  Cli status --json
  printf '%s' "$OUT" >"$TMP/status.json"
}
# Row NS EXPR: EXPR over `s`, the row of NS in the last Snap, and `l`, its
# "local" object ("undefined" when absent).
Row() {
  NS="$1" Json "(() => { const s = d.servers.find((x) => x.namespace === process.env.NS) || {}; const l = s.local || {}; return $2; })()" <"$TMP/status.json"
}
# Srv NS EXPR: Row over a fresh status.
Srv() { Snap; Row "$@"; }
Is() { test "$(Srv "$1" "$2")" = "$3"; }
# RowIs NAME NS EXPR WANT: checks one value of the last Snap.
RowIs() {
  local got
  got="$(Row "$2" "$3")"
  if [ "$got" = "$4" ]; then Pass "$1"; else Fail "$1" "$3 is ${got:0:400}, want $4"; fi
}
# Entry NAME [JSON...]: the probe server as a local entry, with more keys.
Entry() {
  local name="$1" extra=""
  shift
  [ $# -gt 0 ] && extra=", $*"
  printf '"%s": {"command": "node", "args": ["%s"]%s}' "$name" "$PROBE" "$extra"
}
ExpectStatusMatch() {  # NS STATUS REGEX: status is STATUS with a reason matching REGEX
  local status reason
  Snap
  status="$(Row "$1" s.status)"
  reason="$(Row "$1" s.reason)"
  if [ "$status" = "$2" ] && printf '%s' "$reason" | grep -Eq -- "$3"; then
    Pass "status $1: $2, \"${reason:0:200}\""
  else
    Fail "status $1" "status \"$status\", reason \"${reason:0:300}\", want $2 matching /$3/"
  fi
}
ReadyOrFail() {  # NS: waits up to 20 s for ready
  if WaitFor 20 Is "$1" s.status ready; then
    Pass "$1: ready"
  else
    Fail "$1: ready" "status $(Row "$1" s.status): $(Row "$1" s.reason)"
  fi
}

# Outcome of a probe's JSON: "ok" or its code; of a spawn, the inner probe's
# ("spawn failed: CODE" when the child could not run).
OUTCOME='d.ok ? "ok" : d.code'
INNER='d.ok ? (d.inner.ok ? "ok" : d.inner.code) : "spawn failed: " + d.code'
# ExpectProbe NS LABEL ARGS WANT [OUTCOME_EXPR]: calls the probe tool of NS
# with ARGS; WANT is "ok", "!ok" (any failure) or an ERE of codes.
ExpectProbe() {
  local ns="$1" label="$2" args="$3" want="$4" expr="${5:-$OUTCOME}" got
  Cli call "$ns" probe "$args"
  if [ "$RC" -ne 0 ]; then
    Fail "$ns: $label" "the call failed (exit $RC): ${ERR:0:300}"
    return
  fi
  got="$(printf '%s' "$OUT" | Json "$expr")"
  if { [ "$want" = "!ok" ] && [ "$got" != ok ] && [ "$got" != "<not json>" ] && [ "$got" != "<error>" ]; } ||
    { [ "$want" != "!ok" ] && [[ "$got" =~ ^($want)$ ]]; }; then
    if [ "$got" = ok ]; then
      Pass "$ns: $label: ok"
    else
      Pass "$ns: $label: $got ($(printf '%s' "$OUT" | Json 'd.message || (d.inner && d.inner.message)' | head -c 100))"
    fi
  else
    Fail "$ns: $label" "got $got ($(printf '%s' "$OUT" | head -c 300)), want $want"
  fi
}
# Absent NAME PATH: checks that PATH does not exist.
Absent() {
  if [ -e "$2" ] || [ -L "$2" ]; then Fail "$1" "$2 exists"; else Pass "$1"; fi
}
# NoText NAME TEXT FILE...: checks that TEXT is in none of FILEs.
NoText() {
  local name="$1" text="$2" f found=""
  shift 2
  for f in "$@"; do grep -qF -- "$text" "$f" 2>/dev/null && found="$found $(basename "$f")"; done
  if [ -z "$found" ]; then Pass "$name"; else Fail "$name" "found in:$found"; fi
}

# ---- the tree, the HOME, the listeners ----------------------------------------------------
mkdir -p "$TMP/inside" "$TMP/out" "$TMP/secret"
printf 'inside text\n' >"$TMP/inside/a.txt"
printf '%s\n' "$KEY_TEXT" >"$TMP/secret/key.txt"
# A symlink inside the filesystem server's tree to the secret.
ln -s "$TMP/secret/key.txt" "$TMP/inside/link.txt"
export HOME="$TMP/home"
mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
printf '%s\n' "$SSH_TEXT" >"$HOME/.ssh/id_test"
chmod 600 "$HOME/.ssh/id_test"
OUTSIDE_TMP="/tmp/mcpgw-confine-$$"

cat >"$TMP/listen.mjs" <<'JS'
// listen.mjs tcp | udp | unix PATH: a loopback listener that prints
// LISTENING <port> (0 for a Unix socket), then a line per connection or datagram.
import net from 'node:net';
import dgram from 'node:dgram';
const [mode, where] = process.argv.slice(2);
if (mode === 'tcp') {
  const s = net.createServer((c) => { console.log('CONNECTION'); c.destroy(); });
  s.listen(0, '127.0.0.1', () => console.log(`LISTENING ${s.address().port}`));
} else if (mode === 'udp') {
  const s = dgram.createSocket('udp4');
  s.on('message', () => console.log('DATAGRAM'));
  s.bind(0, '127.0.0.1', () => console.log(`LISTENING ${s.address().port}`));
} else {
  const s = net.createServer((c) => { console.log('CONNECTION'); c.destroy(); });
  s.listen(where, () => console.log('LISTENING 0'));
}
JS
StartServer PORT_A tcp-a "$NODE" "$TMP/listen.mjs" tcp
StartServer PORT_B tcp-b "$NODE" "$TMP/listen.mjs" tcp
StartServer PORT_UDP udp "$NODE" "$TMP/listen.mjs" udp
UNIX_SOCK="$TMP/unix.sock"
StartServer UNIX_READY unix "$NODE" "$TMP/listen.mjs" unix "$UNIX_SOCK"

# ---- the entries --------------------------------------------------------------------------
RW="\"read\": [\"$FIXTURES\", \"$TMP/inside\"], \"write\": [\"$TMP/out\"]"
E_OPEN="$(Entry open)"
E_BOXED="$(Entry boxed "\"confine\": {$RW, \"network\": [\"127.0.0.1:$PORT_A\"]}")"
E_OFFLINE="$(Entry offline "\"confine\": {$RW, \"network\": false}")"
E_ONLINE="$(Entry online "\"confine\": {$RW, \"network\": true}")"
E_LIMITED="$(Entry limited '"limits": {"open_files": 64, "memory_mb": 256}')"
# npx finds the package in tests/fixtures/node_modules (its cwd), which must
# be readable (BEHAVIOR.md §18: a project's node_modules is listed in read).
E_FILES="\"files\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"$TMP/inside\"], \"cwd\": \"$FIXTURES\", \"confine\": {\"read\": [\"$TMP/inside\", \"$FIXTURES\"], \"write\": []}}"
# processes: the kernel does not count root's processes (RLIMIT_NPROC).
if [ "$(id -u)" = 0 ]; then
  AS_ROOT=true
  E_PROCS="$(Entry procs '"limits": {"processes": 500}')"
  E_PROCS_OK="$(Entry procs_ok '"limits": {"processes": 500}, "confine_required": false')"
  PROCS_ENTRIES=("$E_PROCS" "$E_PROCS_OK")
else
  AS_ROOT=false
  NPROC=$(($(ps -L -u "$(id -u)" --no-headers | wc -l) + 150))
  E_PROCS="$(Entry procs "\"limits\": {\"processes\": $NPROC}")"
  PROCS_ENTRIES=("$E_PROCS")
fi
Config "$E_OPEN" "$E_BOXED" "$E_OFFLINE" "$E_ONLINE" "$E_LIMITED" "$E_FILES" "${PROCS_ENTRIES[@]}" >"$TMP/mcp.json"
chmod 0600 "$TMP/mcp.json"
T0=$SECONDS
StartDaemon "$TMP/mcp.json"
Cli wait --timeout 60
ExpectRc 0 "mcpgw wait: no server is loading"

# ---- the kernel: no Landlock at all skips the test --------------------------------------
Snap
ABI="$(Json 'String(d.daemon.confinement?.landlock_abi)' <"$TMP/status.json")"
if [ "$ABI" = 0 ]; then
  echo "$SCRIPT_NAME: SKIP: the kernel has no Landlock (daemon.confinement.landlock_abi 0)" >&2
  exit 77
fi
if [[ "$ABI" =~ ^[0-9]+$ ]] && [ "$ABI" -ge 1 ]; then
  Pass "status: daemon.confinement.landlock_abi is $ABI"
else
  Fail "status: daemon.confinement.landlock_abi is a number >= 1" "got $ABI ($(Json 'JSON.stringify(d.daemon.confinement)' <"$TMP/status.json" | head -c 300))"
fi
for ns in open boxed offline online limited files; do
  if [ "$(Row "$ns" s.status)" = ready ]; then
    Pass "$ns: ready"
  else
    Fail "$ns: ready" "status $(Row "$ns" s.status): $(Row "$ns" s.reason)"
  fi
done

# ---- status -----------------------------------------------------------------------------
export WANT_READ="[\"$FIXTURES\",\"$TMP/inside\"]" WANT_WRITE="[\"$TMP/out\"]"
RowIs "boxed: local.confine is an object" boxed 'l.confine !== null && typeof l.confine' object
RowIs "boxed: local.confine.read as configured" boxed 'JSON.stringify(l.confine.read) === process.env.WANT_READ' true
RowIs "boxed: local.confine.write as configured" boxed 'JSON.stringify(l.confine.write) === process.env.WANT_WRITE' true
RowIs "boxed: local.confine.network is \"ports\"" boxed 'l.confine.network' ports
RowIs "boxed: local.confine.ports is [$PORT_A]" boxed 'JSON.stringify(l.confine.ports)' "[$PORT_A]"
RowIs "boxed: local.confine.connect is [\"127.0.0.1:$PORT_A\"]" boxed 'JSON.stringify(l.confine.connect)' "[\"127.0.0.1:$PORT_A\"]"
RowIs "boxed: local.confine.not_enforced is an array mentioning UDP" boxed \
  'Array.isArray(l.confine.not_enforced) && l.confine.not_enforced.some((x) => /udp/i.test(x))' true
RowIs "boxed: local.confine.temp_dir is a string" boxed 'typeof l.confine.temp_dir' string
RowIs "boxed: local.limits is null" boxed 'l.limits' null
BOXED_TEMP="$(Row boxed 'l.confine.temp_dir')"
RowIs "offline: local.confine.network is \"none\" or false" offline \
  'l.confine.network === "none" || l.confine.network === false' true
RowIs "online: local.confine.network is \"all\" or true" online \
  'l.confine.network === "all" || l.confine.network === true' true
RowIs "limited: local.confine is null" limited 'l.confine' null
RowIs "limited: local.limits is {memory_mb: 256, open_files: 64, processes: null}" limited \
  'JSON.stringify([l.limits.memory_mb, l.limits.open_files, l.limits.processes])' "[256,64,null]"
RowIs "open: local.confine is null" open 'l.confine' null
RowIs "open: local.limits is null" open 'l.limits' null
RowIs "files: local.confine.network is \"none\" or false (no network key)" files \
  'l.confine.network === "none" || l.confine.network === false' true
Cli status
printf '%s\n' "$OUT" >"$TMP/status.txt"
# boxed's row and the indented lines under it.
awk '/^[^ ]/ { inrow = ($0 ~ /(^|[^a-z_])boxed([^a-z_]|$)/) } inrow' "$TMP/status.txt" >"$TMP/status-boxed.txt"
if grep -q confined "$TMP/status-boxed.txt"; then
  Pass "mcpgw status: boxed shows a line containing \"confined\" ($(grep confined "$TMP/status-boxed.txt" | head -n 1 | sed 's/^ *//' | cut -c1-120))"
else
  Fail "mcpgw status: boxed shows a line containing \"confined\"" "its lines: $(head -c 600 "$TMP/status-boxed.txt")"
fi
Cli doctor
printf '%s\n%s\n' "$OUT" "$ERR" >"$TMP/doctor.txt"
if grep -q Landlock "$TMP/doctor.txt" && grep Landlock "$TMP/doctor.txt" | grep -qw -- "$ABI"; then
  Pass "mcpgw doctor: Landlock and ABI $ABI ($(grep Landlock "$TMP/doctor.txt" | head -n 1 | cut -c1-120))"
else
  Fail "mcpgw doctor mentions Landlock and ABI $ABI" "$(grep -i -m3 'landlock\|confine' "$TMP/doctor.txt" || head -c 400 "$TMP/doctor.txt")"
fi

# ---- boxed and open: the same attempts -----------------------------------------------------
# Files: label, args (@ is the entry's name), what boxed gets; open gets ok.
FILE_PROBES=(
  "read secret/key.txt|{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}|EACCES"
  "list secret/|{\"op\":\"list\",\"path\":\"$TMP/secret\"}|EACCES"
  "read inside/a.txt|{\"op\":\"read\",\"path\":\"$TMP/inside/a.txt\"}|ok"
  "write out/x|{\"op\":\"write\",\"path\":\"$TMP/out/x-@\"}|ok"
  "write inside/y|{\"op\":\"write\",\"path\":\"$TMP/inside/y-@\"}|EACCES"
  "write secret/z|{\"op\":\"write\",\"path\":\"$TMP/secret/z-@\"}|EACCES"
  "write $OUTSIDE_TMP|{\"op\":\"write\",\"path\":\"$OUTSIDE_TMP-@\"}|EACCES"
  "rename out/x to secret/x|{\"op\":\"rename\",\"path\":\"$TMP/out/x-@\",\"to\":\"$TMP/secret/x-@\"}|EXDEV|EACCES|EPERM"
  "hard link secret/key.txt to out/k|{\"op\":\"link\",\"path\":\"$TMP/secret/key.txt\",\"to\":\"$TMP/out/k-@\"}|!ok"
  "read secret/key.txt through a symlink out/s|{\"op\":\"symlink_read\",\"path\":\"$TMP/secret/key.txt\",\"to\":\"$TMP/out/s-@\"}|!ok"
  "read ~/.ssh/id_test|{\"op\":\"read\",\"path\":\"$HOME/.ssh/id_test\"}|EACCES"
  "connect to port A ($PORT_A)|{\"op\":\"connect\",\"port\":$PORT_A}|ok"
  "connect to port B ($PORT_B)|{\"op\":\"connect\",\"port\":$PORT_B}|EACCES|EPERM"
  "connect to a Unix socket|{\"op\":\"unix\",\"path\":\"$UNIX_SOCK\"}|!ok"
)
for ns in boxed open; do
  for p in "${FILE_PROBES[@]}"; do
    label="${p%%|*}"
    rest="${p#*|}"
    args="${rest%%|*}"
    want="${rest#*|}"
    [ "$ns" = open ] && want=ok
    ExpectProbe "$ns" "$label" "${args//@/$ns}" "$want"
  done
  want_inner_read=EACCES want_inner_connect='!ok'
  [ "$ns" = open ] && want_inner_read=ok want_inner_connect=ok
  ExpectProbe "$ns" "a child it starts reads secret/key.txt" \
    "{\"op\":\"spawn\",\"inner\":{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}}" "$want_inner_read" "$INNER"
  ExpectProbe "$ns" "a child it starts connects to port B" \
    "{\"op\":\"spawn\",\"inner\":{\"op\":\"connect\",\"port\":$PORT_B}}" "$want_inner_connect" "$INNER"
done
Absent "boxed: secret/x-boxed does not exist after the refused rename" "$TMP/secret/x-boxed"
Check "boxed: out/x-boxed is still there" test -f "$TMP/out/x-boxed"
Absent "boxed: out/k-boxed does not exist after the refused link" "$TMP/out/k-boxed"
Absent "boxed: inside/y-boxed does not exist" "$TMP/inside/y-boxed"
Absent "boxed: secret/z-boxed does not exist" "$TMP/secret/z-boxed"
Absent "boxed: $OUTSIDE_TMP-boxed does not exist" "$OUTSIDE_TMP-boxed"
Check "open: the rename did happen (secret/x-open)" test -f "$TMP/secret/x-open"
Check "open: the link did happen (out/k-open)" test -f "$TMP/out/k-open"
rm -f "$OUTSIDE_TMP-open" "$OUTSIDE_TMP-boxed"

# Its private temp dir: TMPDIR, writable, the one status shows.
Cli call boxed probe '{"op":"tmpdir"}'
printf '%s' "$OUT" >"$TMP/tmpdir.json"
got="$(Json '[d.ok, d.writable, d.tmpdir].join(" ")' <"$TMP/tmpdir.json")"
if [ "$got" = "true true $BOXED_TEMP" ]; then
  Pass "boxed: os.tmpdir() is local.confine.temp_dir ($BOXED_TEMP), writable"
else
  Fail "boxed: os.tmpdir() is local.confine.temp_dir, writable" "got \"$got\" ($(head -c 300 "$TMP/tmpdir.json")), status temp_dir \"$BOXED_TEMP\""
fi
Check "boxed: the temp dir exists while it runs ($BOXED_TEMP)" test -d "$BOXED_TEMP"

# ---- offline and online -------------------------------------------------------------------
ExpectProbe offline "connect to port A ($PORT_A)" "{\"op\":\"connect\",\"port\":$PORT_A}" "EACCES|EPERM"
ExpectProbe offline "send a UDP datagram" "{\"op\":\"udp\",\"port\":$PORT_UDP}" '!ok'
ExpectProbe offline "connect to a Unix socket" "{\"op\":\"unix\",\"path\":\"$UNIX_SOCK\"}" '!ok'
ExpectProbe offline "read inside/a.txt" "{\"op\":\"read\",\"path\":\"$TMP/inside/a.txt\"}" ok
ExpectProbe online "connect to port A ($PORT_A)" "{\"op\":\"connect\",\"port\":$PORT_A}" ok
ExpectProbe online "connect to port B ($PORT_B)" "{\"op\":\"connect\",\"port\":$PORT_B}" ok
ExpectProbe online "read secret/key.txt" "{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}" EACCES
ExpectProbe open "send a UDP datagram" "{\"op\":\"udp\",\"port\":$PORT_UDP}" ok
Check "the UDP receiver got open's datagram and none from offline" \
  WaitFor 3 test "$(grep -c DATAGRAM "$TMP/udp.out")" = 1

# ---- limits ----------------------------------------------------------------------------------
ExpectProbe limited "open /dev/null 200 times (open_files 64)" '{"op":"open_many","count":200}' EMFILE
ExpectProbe open "open /dev/null 200 times" '{"op":"open_many","count":200}' ok
ExpectProbe limited "allocate 512 MiB (memory_mb 256)" '{"op":"alloc","mb":512}' '!ok'
ExpectProbe limited "allocate 16 MiB" '{"op":"alloc","mb":16}' ok
ExpectProbe open "allocate 512 MiB" '{"op":"alloc","mb":512}' ok
ExpectProbe limited "read secret/key.txt (files not confined)" "{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}" ok
Snap
if $AS_ROOT; then
  ExpectStatusMatch procs error "processes"
  Check "procs: the reason says root" grep -q root <<<"$(Row procs s.reason)"
  RowIs "procs: no process" procs 'l.pid ?? null' null
  RowIs "procs_ok (confine_required false): ready" procs_ok s.status ready
  got="$(Row procs_ok 'Array.isArray((l.limits || {}).not_enforced) && (l.limits || {}).not_enforced.every((x) => typeof x === "string") && (l.limits || {}).not_enforced.some((x) => /processes/.test(x))')"
  if [ "$got" = true ]; then
    Pass "procs_ok: local.limits.not_enforced is an array of strings naming processes"
  else
    Fail "procs_ok: local.limits.not_enforced is an array of strings naming processes" \
      "local.limits.not_enforced is $(Row procs_ok 'JSON.stringify((l.limits || {}).not_enforced)'); local.limits is $(Row procs_ok 'JSON.stringify(l.limits)' | head -c 300)"
  fi
  ExpectProbe procs_ok "runs (unbounded): read inside/a.txt" "{\"op\":\"read\",\"path\":\"$TMP/inside/a.txt\"}" ok
else
  RowIs "procs: ready" procs s.status ready
  ExpectProbe procs "start 400 processes (processes $NPROC)" '{"op":"fork_many","count":400}' EAGAIN
fi

# ---- the real filesystem server, confined to its tree --------------------------------------
Cli call files list_allowed_directories '{}'
if [ "$RC" -eq 0 ] && grep -qF "$TMP/inside" <<<"$OUT"; then
  Pass "files: list_allowed_directories names $TMP/inside"
else
  Fail "files: list_allowed_directories" "exit $RC: ${OUT:0:200} ${ERR:0:300}"
fi
Cli call files list_directory "{\"path\":\"$TMP/inside\"}"
if [ "$RC" -eq 0 ] && grep -q a.txt <<<"$OUT"; then
  Pass "files: list_directory shows a.txt"
else
  Fail "files: list_directory" "exit $RC: ${OUT:0:200} ${ERR:0:300}"
fi
Cli call files read_text_file "{\"path\":\"$TMP/inside/a.txt\"}"
if [ "$RC" -eq 0 ] && [ "$OUT" = "inside text" ]; then
  Pass "files: read_text_file inside/a.txt"
else
  Fail "files: read_text_file inside/a.txt" "exit $RC: ${OUT:0:200} ${ERR:0:300}"
fi
for target in "$TMP/secret/key.txt" "$TMP/inside/link.txt"; do
  Cli call files read_text_file "{\"path\":\"$target\"}"
  printf '%s\n%s\n' "$OUT" "$ERR" >>"$TMP/files-answers.txt"
  if [ "$RC" -ne 0 ] && ! grep -qF "$KEY_TEXT" <<<"$OUT$ERR"; then
    Pass "files: read_text_file $target is refused (exit $RC), the key's text not in the answer"
  else
    Fail "files: read_text_file $target is refused without the key's text" "exit $RC: ${OUT:0:200} ${ERR:0:300}"
  fi
done

# ---- bad confine or limits: refused naming the key, the others unharmed ----------------------
ENV_SECRET="\"env\": {\"API_KEY\": \"$SECRET\"}"
BAD=(
  "$(Entry bad_missing "\"confine\": {\"read\": [\"$TMP/no-such-dir\"]}, $ENV_SECRET")"
  "$(Entry bad_relative '"confine": {"read": ["relative/dir"]}' ", $ENV_SECRET")"
  "$(Entry bad_port '"confine": {"network": ["127.0.0.1:70000"]}' ", $ENV_SECRET")"
  "$(Entry bad_noport '"confine": {"network": ["nohost"]}' ", $ENV_SECRET")"
  "$(Entry bad_key "\"confine\": {\"read\": [\"$FIXTURES\"], \"exec\": true}, $ENV_SECRET")"
  "$(Entry bad_limits '"limits": {"open_files": 64, "cpu_seconds": 10}' ", $ENV_SECRET")"
)
E_GOOD="$(Entry good "\"confine\": {$RW, \"network\": false}, $ENV_SECRET")"
Reload "${BAD[@]}" "$E_GOOD"
ReadyOrFail good
ExpectProbe good "answers: read inside/a.txt" "{\"op\":\"read\",\"path\":\"$TMP/inside/a.txt\"}" ok
ExpectProbe good "read secret/key.txt" "{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}" EACCES
ExpectStatusMatch bad_missing error 'confine\.read\[0\]'
ExpectStatusMatch bad_relative error 'confine\.read\[0\]'
ExpectStatusMatch bad_port error 'confine\.network\[0\]'
ExpectStatusMatch bad_noport error 'confine\.network\[0\]'
ExpectStatusMatch bad_key error 'confine: unknown key.*exec'
ExpectStatusMatch bad_limits error 'limits: unknown key.*cpu_seconds'
Snap
for ns in bad_missing bad_relative bad_port bad_noport bad_key bad_limits; do
  RowIs "$ns: no process" "$ns" 'l.pid ?? null' null
done
# boxed is gone with that reload: its temp dir too.
if [[ "$BOXED_TEMP" == /* ]]; then
  Check "boxed's temp dir is removed once a reload removed boxed ($BOXED_TEMP)" WaitFor 5 test ! -e "$BOXED_TEMP"
else
  Fail "boxed's temp dir is removed once a reload removed boxed" "status showed no temp_dir: $BOXED_TEMP"
fi
Cli status
printf '%s\n' "$OUT" >"$TMP/status-bad.txt"
cp "$TMP/status.json" "$TMP/status-bad.json"
NoText "the env value is in neither status nor the log" "$SECRET" \
  "$TMP/status-bad.json" "$TMP/status-bad.txt" "$TMP/mcpgwd.log"
NoText "the secret key's text is in no status, log or answer" "$KEY_TEXT" \
  "$TMP/status.json" "$TMP/status-bad.txt" "$TMP/status.txt" "$TMP/mcpgwd.log" "$TMP/files-answers.txt"
GOOD_TEMP="$(Row good 'l.confine && l.confine.temp_dir')"
StopDaemon
if [[ "$GOOD_TEMP" == /* ]]; then
  Absent "good's temp dir is removed once the daemon stopped ($GOOD_TEMP)" "$GOOD_TEMP"
else
  Fail "good's temp dir is removed once the daemon stopped" "status showed no temp_dir: $GOOD_TEMP"
fi

# ---- the settings default: local_servers_confine (read at start-up) ---------------------------
mkdir -p "$TMP/dflt"
echo "{\"local_servers_confine\": {\"read\": [\"$FIXTURES\"], \"write\": [], \"network\": false}}" \
  >"$TMP/dflt/settings.json"
Config "$(Entry dflt)" "$(Entry nobox '"confine": false')" >"$TMP/mcp.json"
chmod 0600 "$TMP/mcp.json"
StartDaemon "$TMP/mcp.json" "$SOCK" --settings "$TMP/dflt/settings.json"
Cli wait --timeout 30
ExpectRc 0 "settings default: mcpgw wait"
Snap
RowIs "dflt: ready" dflt s.status ready
RowIs "nobox: ready" nobox s.status ready
RowIs "dflt: local.confine.source is \"settings\"" dflt 'l.confine && l.confine.source' settings
RowIs "nobox (\"confine\": false): local.confine is null" nobox 'l.confine' null
ExpectProbe dflt "read secret/key.txt (the settings default)" "{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}" EACCES
ExpectProbe nobox "read secret/key.txt (confine false)" "{\"op\":\"read\",\"path\":\"$TMP/secret/key.txt\"}" ok
StopDaemon
Check "the whole test took $((SECONDS - T0)) s (< 60)" test $((SECONDS - T0)) -lt 60
Finish
