# Shared by the interop scripts (sourced, not run): on top of tests/common.sh
# (time bound, build, temp dir, process cleanup, checks), finds the Node.js
# fixtures, starts fixture servers on loopback, and reads JSON with Node.
# A script sources it with the build dir as $1:  source "$(dirname "$0")/lib.sh" "$@"

BOUND_VAR=MCPGW_INTEROP_BOUNDED
BOUND_SECONDS="${MCPGW_INTEROP_TIMEOUT:-280}"
TMP_PREFIX=mcpgw-interop
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/common.sh" "$@"

INTEROP_DIR="$ROOT/tests/interop"
FIXTURES="$ROOT/tests/fixtures"

if [ ! -d "$FIXTURES/node_modules" ]; then
  echo "$SCRIPT_NAME: SKIP: tests/fixtures/node_modules is missing; run scripts/install-node-deps.sh" >&2
  exit 77
fi
source "$FIXTURES/node.sh"  # NODE22, and NODE: the Node the fixtures run on
if [ -z "$NODE" ]; then
  echo "$SCRIPT_NAME: no node: neither $NODE22 nor node on PATH" >&2
  exit 1
fi

SOCK="$TMP/mcpgw.sock"
export MCPGW_SOCKET="$SOCK"
# Keep the user's own settings and config out of the daemon under test.
export XDG_CONFIG_HOME="$TMP/config"
export XDG_RUNTIME_DIR="$TMP/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# StartServer VAR LOGNAME COMMAND...: runs COMMAND (a fixture server) in the
# background, waits for its `LISTENING <port>` line and stores the port in VAR.
StartServer() {
  local var="$1" name="$2"
  shift 2
  "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  PIDS+=($!)
  local pid=$! port=""
  for _ in $(seq 150); do
    # The file may not exist yet (the child opens it): no output, no error.
    port="$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$TMP/$name.out" 2>/dev/null | head -n 1 || true)"
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "$SCRIPT_NAME: $name did not start:" >&2
    cat "$TMP/$name.err" >&2
    exit 1
  fi
  printf -v "$var" '%s' "$port"
}

# Json EXPR: evaluates a JavaScript expression over `d`, the JSON read from
# stdin, and prints the value (strings bare, others as JSON). Input that is
# not JSON prints `<not json>`, a throwing expression `<error>`; it never fails,
# so a check compares its output instead of the script dying under set -e.
Json() {
  "$NODE" -e '
    let d;
    try { d = JSON.parse(require("fs").readFileSync(0, "utf8")); } catch (e) { console.log("<not json>"); process.exit(0); }
    let v;
    try { v = eval(process.argv[1]); } catch (e) { console.log("<error>"); process.exit(0); }
    console.log(typeof v === "string" ? v : JSON.stringify(v));
  ' "$1"
}

# HttpJson METHOD URL: prints the body of a loopback control request
# (nothing when the request fails).
HttpJson() {
  "$NODE" -e '
    fetch(process.argv[2], { method: process.argv[1], signal: AbortSignal.timeout(10000) })
      .then((r) => r.text()).then((t) => process.stdout.write(t))
      .catch((e) => console.error(String(e)));
  ' "$1" "$2"
}

# StatusField NAMESPACE FIELD: prints one field of a server's row of
# `mcpgw status --json` ("undefined" when there is no such row or field).
StatusField() {
  Cli status --json
  printf '%s' "$OUT" | NS="$1" FIELD="$2" Json '(d.servers.find((s) => s.namespace === process.env.NS) || {})[process.env.FIELD]'
}

# Snapshot: reads `mcpgw status --json` once for the checks that follow
# (one CLI and one node run, however many rows they look at).
# SnapshotField NAMESPACE FIELD then prints status, reason, proxy or
# http_version of a server's row ("null" for a null proxy or HTTP version;
# nothing when there is no such row).
Snapshot() {
  Cli status --json
  printf '%s' "$OUT" | Json 'd.servers.map((s) => [s.namespace, s.status, s.reason, s.proxy === null ? "null" : s.proxy, s.http_version === null ? "null" : s.http_version].join("\t")).join("\n")' >"$TMP/snapshot.tsv"
}
SnapshotField() {
  local col
  case "$2" in status) col=2 ;; reason) col=3 ;; proxy) col=4 ;; http_version) col=5 ;; *) return 1 ;; esac
  awk -F'\t' -v ns="$1" -v col="$col" '$1 == ns { print $col }' "$TMP/snapshot.tsv"
}

# ---- processes, read from /proc (the local-server tests) ------------------------------
# ProcTable: "pid state ppid pgid" for every process.
ProcTable() {
  local f s pid st pp pg rest
  for f in /proc/[0-9]*/stat; do
    { read -r s <"$f"; } 2>/dev/null || continue
    pid="${s%% *}"
    s="${s##*) }"
    read -r st pp pg rest <<<"$s"
    echo "$pid $st $pp $pg"
  done
}
# Descendants PID: "pid state pgid" of every process below PID.
Descendants() {
  ProcTable | awk -v root="$1" '
    { parent[$1] = $3; line[$1] = $1 " " $2 " " $4 }
    END {
      for (p in parent) {
        q = parent[p]
        for (n = 0; q != "" && q != 0 && n < 200; n++) {
          if (q == root) { print line[p]; break }
          q = parent[q]
        }
      }
    }'
}
# Leftover PIDS...: those still running (zombies do not count) among PIDS and
# in the process groups they lead.
Leftover() {
  ProcTable | awk -v list="$*" '
    BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    $2 != "Z" && (($1 in want) || ($4 in want)) { print $1 }'
}
NoLeftover() { [ -z "$(Leftover "$@")" ]; }
Cmdline() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }
# The daemon's last reload, Unix seconds ("null" before any).
LastReload() { Cli status --json; printf '%s' "$OUT" | Json 'String(d.daemon.last_reload_unix)'; }
# Config ENTRY...: an mcp.json of these entries.
Config() {
  local IFS=,
  printf '{"mcpServers": {%s}}\n' "$*"
}
# Reload ENTRY...: writes mcp.json with these entries, sends SIGHUP and waits
# until the daemon reports a reload.
Reload() {
  local before
  before="$(LastReload)"
  Config "$@" >"$TMP/mcp.json.new"
  chmod 0600 "$TMP/mcp.json.new"
  mv "$TMP/mcp.json.new" "$TMP/mcp.json"
  kill -HUP "$DAEMON_PID"
  ReloadedSince() { [ "$(LastReload)" != "$1" ]; }
  if ! WaitFor 10 ReloadedSince "$before"; then
    Fail "reload" "mcpgwd reported no reload within 10 s"
  fi
}
