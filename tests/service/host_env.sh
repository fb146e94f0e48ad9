#!/usr/bin/env bash
# mcpgw as an MCP host starts it: installed into a prefix (`cmake --install
# --prefix`), run with an empty environment (`env -i`: no LD_LIBRARY_PATH, no
# XDG_RUNTIME_DIR, no MCPGW_SOCKET), and spoken to over stdio.
#  1. The installed mcpgw finds its own libmcpgw ($ORIGIN RUNPATH, no build
#     path) and, under env -i, answers `tools` and an MCP session on stdio
#     against the installed mcpgwd.
#  2. The socket fallback: a daemon started the way the user service starts it
#     (XDG_RUNTIME_DIR=/run/user/UID, no --socket) is reached by a host that
#     keeps only what the MCP SDK passes on (HOME, LOGNAME, PATH, SHELL, TERM,
#     USER). /run/user/UID is created for the test when it is missing (root
#     only) and removed again; a daemon already serving there is used as it is
#     and left alone. Runs of this test on one machine take turns (flock).
# Usage: tests/service/host_env.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
NeedTools readelf flock

P="$TMP/prefix"
InstallInto "$P"
LIBDIR="$(LibDir)"
printf '{"mcpServers":{"host-visible":{"command":"x"}}}\n' >"$TMP/mcp.json"

# ---- 1. the installed binaries under env -i ------------------------------------------
runpath="$(readelf -d "$P/bin/mcpgw" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p')"
Check "the installed mcpgw's RUNPATH is \$ORIGIN/../$LIBDIR (got '$runpath')" \
  test "$runpath" = "\$ORIGIN/../$LIBDIR"
Check "the installed mcpgw names no build path" \
  bash -c "! readelf -d '$P/bin/mcpgw' | grep -q -e '$BUILD' -e '$TMP'"
out="$(env -i "$P/bin/mcpgw" --version 2>&1)" && rc=0 || rc=$?
Check "env -i mcpgw --version from the prefix (exit $rc: $out)" test "$rc" -eq 0
# mcpgw loads neither libcurl nor toml++ (what a host's `mcpgw stdio` maps); import, hosts
# and doctor run in mcpgw-setup from the prefix's libexec/mcpgw, which finds libmcpgw too.
Check "the installed mcpgw needs no libcurl, OpenSSL or toml++" \
  bash -c "! readelf -d '$P/bin/mcpgw' | grep NEEDED | grep -q -e libcurl -e libssl -e libcrypto -e toml"
helper="$P/libexec/mcpgw/mcpgw-setup"
runpath="$(readelf -d "$helper" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p')"
Check "the installed mcpgw-setup's RUNPATH is \$ORIGIN/../../$LIBDIR (got '$runpath')" \
  test "$runpath" = "\$ORIGIN/../../$LIBDIR"
mkdir -p "$TMP/home/.claude"
out="$(env -i HOME="$TMP/home" "$P/bin/mcpgw" hosts 2>&1)" && rc=0 || rc=$?
Check "env -i mcpgw hosts runs mcpgw-setup from the prefix (exit $rc: $out)" \
  bash -c "[ $rc -eq 0 ] && grep -q claude-code <<<'$out'"
out="$(env -i HOME="$TMP/home" "$P/bin/mcpgw" hosts add claude-code 2>&1)" && rc=0 || rc=$?
Check "mcpgw hosts add registers the installed mcpgw, not its helper (exit $rc: $out)" \
  grep -q "\"command\": \"$P/bin/mcpgw\"" "$TMP/home/.claude.json"

SOCK="$TMP/s/mcpgw.sock"
env -i HOME="$HOME" "$P/bin/mcpgwd" --config "$TMP/mcp.json" --socket "$SOCK" \
  2>>"$TMP/mcpgwd.log" &
PIDS+=($!)
WaitFor 20 test -S "$SOCK" || { echo "host_env: the installed mcpgwd did not start" >&2; exit 1; }
out="$(env -i "$P/bin/mcpgw" --socket "$SOCK" tools 2>&1)" && rc=0 || rc=$?
Check "env -i mcpgw tools reaches the daemon (exit $rc)" grep -q '"namespace":"host-visible"' <<<"$out"

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host_env","version":"1"}}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'
LIST='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_dynamic_tools","arguments":{}}}'

# Stdio OUT COMMAND...: an MCP session as a host runs it: initialize, then a
# get_dynamic_tools call; stdin stays open until the call's answer is out (or
# 20 s pass). The host's lines go to OUT, its stderr to OUT.err.
Stdio() {
  local out="$1"
  shift
  : >"$out"
  {
    printf '%s\n' "$INIT" "$INITIALIZED" "$LIST"
    for _ in $(seq 200); do
      grep -q '"id":2' "$out" && break
      sleep 0.1
    done
  } | timeout 30 "$@" >"$out" 2>"$out.err" || true
}

Stdio "$TMP/stdio1.out" env -i MCPGW_SOCKET="$SOCK" "$P/bin/mcpgw" stdio
Check "env -i mcpgw stdio from the prefix answers initialize" grep -q '"id":1,"result"' "$TMP/stdio1.out"
Check "env -i mcpgw stdio from the prefix lists the daemon's servers" \
  grep -q 'host-visible' "$TMP/stdio1.out"

# ---- 2. the /run/user/UID fallback with the SDK's reduced environment ------------------
U="$(id -u)"
NAME="$(id -un)"
RUNDIR="/run/user/$U"
DEFAULT_SOCK="$RUNDIR/mcpgw/mcpgw.sock"
exec 9>"/tmp/mcpgw-host-env-test-$U.lock"
flock -w 120 9 || { echo "host_env: another run holds the lock" >&2; exit 1; }

MADE_RUNDIR=false
MADE_SOCKDIR=false
RemoveRunDir() {
  if $MADE_RUNDIR; then
    rm -rf "$RUNDIR"
  elif $MADE_SOCKDIR; then
    rm -rf "$RUNDIR/mcpgw"
  fi
}
trap 'Cleanup; RemoveRunDir' EXIT

if [ ! -e "$RUNDIR" ]; then
  if [ "$U" -ne 0 ]; then
    Fail "$RUNDIR exists" "it is missing and only root can make it; log in through systemd-logind"
    Finish
  fi
  mkdir -p /run/user
  mkdir -m 0700 "$RUNDIR"
  MADE_RUNDIR=true
fi
Check "$RUNDIR is the user's runtime directory (owner $U, mode 700)" \
  test "$(stat -c '%u %a' "$RUNDIR")" = "$U 700"
[ -d "$RUNDIR/mcpgw" ] || MADE_SOCKDIR=true

HOST_ENV=(env -i HOME="$HOME" LOGNAME="$NAME" PATH="$PATH" SHELL=/bin/sh TERM=xterm USER="$NAME")
if "${HOST_ENV[@]}" "$P/bin/mcpgw" status >/dev/null 2>&1; then
  echo "host_env: a daemon already serves $DEFAULT_SOCK; using it and leaving it alone"
else
  env -i HOME="$HOME" PATH="$PATH" XDG_RUNTIME_DIR="$RUNDIR" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
    "$P/bin/mcpgwd" --config "$TMP/mcp.json" 2>>"$TMP/mcpgwd-default.log" &
  DEFAULT_PID=$!
  PIDS+=("$DEFAULT_PID")
  Check "mcpgwd with XDG_RUNTIME_DIR=$RUNDIR listens on $DEFAULT_SOCK" WaitFor 20 test -S "$DEFAULT_SOCK"
fi

out="$("${HOST_ENV[@]}" "$P/bin/mcpgw" status --json 2>&1)" && rc=0 || rc=$?
Check "a host with the SDK's environment reaches the daemon: status (exit $rc)" test "$rc" -eq 0
Check "the daemon it reached serves $DEFAULT_SOCK" grep -q "\"socket\":\"$DEFAULT_SOCK\"" <<<"$out"
Stdio "$TMP/stdio2.out" "${HOST_ENV[@]}" "$P/bin/mcpgw" stdio
Check "a host with the SDK's environment gets answers over stdio" \
  grep -q '"id":2,"result"' "$TMP/stdio2.out"
Check "no 'unavailable' on the way" bash -c "! grep -q unavailable '$TMP/stdio2.out'"
if [ -n "${DEFAULT_PID:-}" ]; then
  Check "the host listed this daemon's servers" grep -q 'host-visible' "$TMP/stdio2.out"
  kill -TERM "$DEFAULT_PID"
  rc=0
  wait "$DEFAULT_PID" || rc=$?
  Check "the daemon on $DEFAULT_SOCK stopped cleanly (exit $rc)" test "$rc" -eq 0
fi

Finish
