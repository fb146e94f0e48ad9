#!/usr/bin/env bash
# The systemd user units as installed: `cmake --install` into a temp prefix,
# then `systemd-analyze --user verify` on the installed mcpgwd.socket and
# mcpgwd.service. verify loads the units the way a user manager would, offline
# (--generators=no; a private XDG_RUNTIME_DIR stands in for the user's), and
# reports unknown or unparsable settings, a missing or non-executable
# ExecStart, dependency problems, and a Documentation=man: page that `man`
# cannot find (MANPATH points at the installed pages). It exits 0 even after
# printing such warnings, so any output at all fails this test. It does not
# start the units: the settings' behaviour is covered by socket_activation.sh.
# Usage: tests/service/units.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
NeedTools systemd-analyze man

P="$TMP/prefix"
InstallInto "$P"
UNITS="$P/lib/systemd/user"
SERVICE="$UNITS/mcpgwd.service"
SOCKET="$UNITS/mcpgwd.socket"
Check "mcpgwd.service is installed in lib/systemd/user" test -f "$SERVICE"
Check "mcpgwd.socket is installed in lib/systemd/user" test -f "$SOCKET"
[ -f "$SERVICE" ] && [ -f "$SOCKET" ] || Finish

# Verify prints problems on stderr (and some on stdout); both count.
Verify() {
  MANPATH="$P/share/man" systemd-analyze --user --generators=no verify "$@" 2>&1
}

out="$(Verify "$SOCKET" "$SERVICE")" && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
  Pass "systemd-analyze --user verify accepts the installed units, man page included"
else
  Fail "systemd-analyze --user verify" "exit $rc: $out"
fi

# The checker itself catches what matters: an unknown key, a bad value, an
# ExecStart that is not there, a man page that is not installed.
mkdir -p "$TMP/broken"
sed -e 's|^ExecStart=.*|ExecStart=/nonexistent/mcpgwd|' -e 's|^Restart=.*|Restart=sometimes|' \
  -e 's|^Documentation=.*|Documentation=man:mcpgwd-nonexistent(1)|' "$SERVICE" >"$TMP/broken/mcpgwd.service"
printf 'ListenStreem=%%t/x.sock\n' >>"$TMP/broken/mcpgwd.service"
cp "$SOCKET" "$TMP/broken/mcpgwd.socket"
bad="$(Verify "$TMP/broken/mcpgwd.socket" "$TMP/broken/mcpgwd.service" || true)"
for what in "/nonexistent/mcpgwd" "sometimes" "mcpgwd-nonexistent" "ListenStreem"; do
  Check "verify reports a broken unit's $what" grep -q -- "$what" <<<"$bad"
done

# What the units say.
Key() { sed -n "s/^$2=//p" "$1"; }
Check "ExecStart names the installed daemon" test "$(Key "$SERVICE" ExecStart)" = "$P/bin/mcpgwd"
Check "the service is Type=notify" test "$(Key "$SERVICE" Type)" = notify
Check "the service restarts on failure" test "$(Key "$SERVICE" Restart)" = on-failure
Check "the service reloads with SIGHUP" grep -q '^ExecReload=.*-HUP \$MAINPID' "$SERVICE"
Check "the service reads proxies and SSL_CERT_FILE from an optional environment file" \
  test "$(Key "$SERVICE" EnvironmentFile)" = "-%E/mcpgw/environment"
Check "the service sets NoNewPrivileges" test "$(Key "$SERVICE" NoNewPrivileges)" = yes
Check "the service may use only unix, inet, inet6 and netlink sockets (Node asks netlink for interfaces)" \
  test "$(Key "$SERVICE" RestrictAddressFamilies)" = "AF_UNIX AF_INET AF_INET6 AF_NETLINK"
Check "the service allows Landlock's system calls beside @system-service (confined local servers)" \
  test "$(Key "$SERVICE" SystemCallFilter | tr '\n' ' ')" = "@system-service landlock_create_ruleset landlock_add_rule landlock_restrict_self "
Check "the service lets local servers' JITs map executable memory (V8)" \
  test -z "$(Key "$SERVICE" MemoryDenyWriteExecute)"
# A user manager gets mount namespaces only through unprivileged user
# namespaces; where those are refused, these would keep the daemon from starting.
for key in ProtectSystem ProtectHome PrivateTmp PrivateDevices ProtectKernelTunables \
  ProtectKernelModules ProtectControlGroups ReadWritePaths; do
  Check "the service does without $key (needs a mount namespace)" \
    test -z "$(Key "$SERVICE" "$key")"
done
Check "the socket is %t/mcpgw/mcpgw.sock" test "$(Key "$SOCKET" ListenStream)" = "%t/mcpgw/mcpgw.sock"
Check "the socket is 0600" test "$(Key "$SOCKET" SocketMode)" = 0600
Check "the socket's directory is 0700" test "$(Key "$SOCKET" DirectoryMode)" = 0700

# The service passes no --config: the daemon must find the user's mcp.json by
# itself, as a user manager starts it (HOME set, XDG_CONFIG_HOME usually not).
mkdir -p "$HOME/.config/mcpgw"
printf '{"mcpServers":{"from-home":{"url":"http://127.0.0.1:1/mcp"}}}\n' >"$HOME/.config/mcpgw/mcp.json"
check="$(env -u XDG_CONFIG_HOME "$P/bin/mcpgwd" --check 2>&1 || true)"
Check "without --config mcpgwd reads ~/.config/mcpgw/mcp.json" grep -q "from-home" <<<"$check"
mkdir -p "$TMP/xdg/mcpgw"
printf '{"mcpServers":{"from-xdg":{"url":"http://127.0.0.1:1/mcp"}}}\n' >"$TMP/xdg/mcpgw/mcp.json"
check="$(XDG_CONFIG_HOME="$TMP/xdg" "$P/bin/mcpgwd" --check 2>&1 || true)"
Check "without --config mcpgwd reads \$XDG_CONFIG_HOME/mcpgw/mcp.json" grep -q "from-xdg" <<<"$check"

Finish
