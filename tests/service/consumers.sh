#!/usr/bin/env bash
# libmcpgw as a host project sees it after `cmake --install`: a C program
# built with `pkg-config --cflags --libs mcpgw`, and a CMake project with
# find_package(mcpgw) and mcpgw::mcpgw, both compiled, linked and run against
# a running daemon (get_dynamic_tools → ok and the listing).
# Usage: tests/service/consumers.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
NeedTools cc pkg-config cmake

P="$TMP/prefix"
InstallInto "$P"
LIBDIR="$P/$(LibDir)"
Check "mcpgw.h is installed" test -f "$P/include/mcpgw.h"
Check "mcpgw.pc is installed" test -f "$LIBDIR/pkgconfig/mcpgw.pc"

export MCPGW_SOCKET="$XDG_RUNTIME_DIR/mcpgw/mcpgw.sock"
printf '{"mcpServers":{"consumer-visible":{"command":"x","disabled":true}}}\n' >"$TMP/mcp.json"
StartDaemon "$TMP/mcp.json" "$MCPGW_SOCKET"
WANT='ok {"servers":[{"namespace":"consumer-visible","status":"error","reason":"disabled in the configuration","tools":[]}]}'

# ---- pkg-config ------------------------------------------------------------------
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
flags="$(pkg-config --cflags --libs mcpgw 2>&1)" && rc=0 || rc=$?
Check "pkg-config finds mcpgw in the prefix" test "$rc" -eq 0
# The .pc file is relocatable (paths from ${pcfiledir}): its -L must resolve to the prefix.
ldir="$(pkg-config --libs-only-L mcpgw | sed 's/^ *-L//; s/ *$//')"
Check "pkg-config's -L is the installed libdir ($ldir)" \
  test "$(cd "$ldir" 2>/dev/null && pwd -P)" = "$(cd "$LIBDIR" && pwd -P)"
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Werror -o "$TMP/consumer-pc" "$SERVICE_DIR/consumer/consumer.c" \
  $(pkg-config --cflags --libs mcpgw) -Wl,-rpath,"$LIBDIR" 2>"$TMP/cc.log"; then
  Pass "a C program compiles and links with pkg-config's flags"
  out="$(timeout 20 "$TMP/consumer-pc" 2>&1)" && rc=0 || rc=$?
  Check "the pkg-config consumer gets the listing (exit $rc): $out" test "$rc" -eq 0 -a "$out" = "$WANT"
else
  Fail "a C program compiles and links with pkg-config's flags" "$(cat "$TMP/cc.log")"
fi

# ---- CMake find_package ------------------------------------------------------------
if cmake -S "$SERVICE_DIR/consumer" -B "$TMP/consumer-build" -DCMAKE_PREFIX_PATH="$P" \
  >"$TMP/cmake-consumer.log" 2>&1 &&
  cmake --build "$TMP/consumer-build" >>"$TMP/cmake-consumer.log" 2>&1; then
  Pass "a CMake project builds with find_package(mcpgw) and mcpgw::mcpgw"
  out="$(timeout 20 "$TMP/consumer-build/consumer" 2>&1)" && rc=0 || rc=$?
  Check "the CMake consumer gets the listing (exit $rc): $out" test "$rc" -eq 0 -a "$out" = "$WANT"
else
  Fail "a CMake project builds with find_package(mcpgw)" "$(tail -n 20 "$TMP/cmake-consumer.log")"
fi

# Without a daemon both report unavailable rather than hang or crash.
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || true
out="$(timeout 20 "$TMP/consumer-build/consumer" 2>&1)" && rc=0 || rc=$?
Check "with the daemon stopped the consumer reports unavailable (exit $rc)" test "$rc" -eq 7

Finish
