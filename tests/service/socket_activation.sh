#!/usr/bin/env bash
# Socket activation as systemd does it, without a running systemd:
# systemd-socket-activate listens on the socket and starts mcpgwd on the
# first connection with LISTEN_FDS; a datagram listener stands in for
# NOTIFY_SOCKET. The daemon must serve the inherited socket (not make its
# own), answer the connection that started it, and report READY=1,
# RELOADING=1 then READY=1 on SIGHUP, and STOPPING=1 on SIGTERM, then exit 0.
# Usage: tests/service/socket_activation.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
NeedTools systemd-socket-activate python3

NOTIFY="$TMP/notify.sock"
NOTIFY_LOG="$TMP/notify.log"
SOCK="$XDG_RUNTIME_DIR/activated.sock"
OWN_SOCK="$TMP/own.sock"  # --socket: must stay unused when a socket is passed
printf '{"mcpServers":{"local":{"command":"some-server"}}}\n' >"$TMP/mcp.json"

python3 "$SERVICE_DIR/notify_listener.py" "$NOTIFY" "$NOTIFY_LOG" 200 &
PIDS+=($!)
WaitFor 10 grep -q LISTENING "$NOTIFY_LOG" || { echo "notify listener did not start" >&2; exit 1; }
Notified() { grep -c -x "$1" "$NOTIFY_LOG" || true; }
# For WaitFor, which re-runs its command: the count is read on every try.
NotifiedAtLeast() { [ "$(Notified "$1")" -ge "$2" ]; }

# systemd-socket-activate execs the daemon in its own process on the first
# connection, so this pid becomes mcpgwd's.
systemd-socket-activate -l "$SOCK" -E NOTIFY_SOCKET="$NOTIFY" -E MCPGW_LOG=debug \
  "$MCPGWD" --config "$TMP/mcp.json" --socket "$OWN_SOCK" 2>>"$TMP/mcpgwd.log" &
PID=$!
PIDS+=("$PID")
WaitFor 10 test -S "$SOCK" || { echo "systemd-socket-activate did not listen" >&2; exit 1; }
Check "nothing is started before the first connection" test "$(Notified READY=1)" = 0

Cli --socket "$SOCK" status --json
if [ "$RC" -eq 0 ]; then Pass "mcpgw status through the activated socket"; else Fail "mcpgw status through the activated socket" "exit $RC: $ERR"; fi
Check "status names the configuration" grep -q "$TMP/mcp.json" <<<"$OUT"
Check "the daemon sent READY=1" WaitFor 10 NotifiedAtLeast READY=1 1
Check "the daemon runs as the activating process (MAINPID)" \
  grep -q mcpgwd "/proc/$PID/cmdline"
Check "the daemon did not make its own socket" test ! -e "$OWN_SOCK"
Cli --socket "$SOCK" tools
Check "mcpgw tools lists the configured server" grep -q '"namespace":"local"' <<<"$OUT"

printf '{"mcpServers":{"local":{"command":"some-server"},"added":{"command":"x"}}}\n' >"$TMP/mcp.json"
kill -HUP "$PID"
Check "SIGHUP: RELOADING=1" WaitFor 10 NotifiedAtLeast RELOADING=1 1
Check "SIGHUP: READY=1 again after the reload" WaitFor 10 NotifiedAtLeast READY=1 2
Cli --socket "$SOCK" tools
Check "the reloaded server is listed" grep -q '"namespace":"added"' <<<"$OUT"

start=$SECONDS
kill -TERM "$PID"
# Reap it (a zombie still answers kill -0); a watchdog bounds the wait.
(sleep 8 && kill -KILL "$PID" 2>/dev/null) &
WATCHDOG=$!
rc=0
wait "$PID" || rc=$?
kill "$WATCHDOG" 2>/dev/null || true
Check "SIGTERM: STOPPING=1" WaitFor 5 NotifiedAtLeast STOPPING=1 1
Check "SIGTERM: exit 0 (got $rc)" test "$rc" -eq 0
Check "SIGTERM: exit within 5 s" test $((SECONDS - start)) -le 5

Finish
