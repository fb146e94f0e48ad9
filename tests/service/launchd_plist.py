#!/usr/bin/env python3
"""The launchd agent as `cmake --install` writes it (ctest service:launchd_plist).

Installs the build into a staging folder (DESTDIR) twice, with the configured
prefix and with another one, reads each installed
share/mcpgw/com.mcpgw.mcpgwd.plist with plistlib and checks that:
  - it runs the mcpgwd the same install put into PREFIX/BINDIR;
  - launchd owns the socket (Sockets), under the name the daemon asks
    launch_activate_socket() for (daemon/ipc/launchd_macos.cc), at the path
    clients look at by default on macOS (proto/socket_path_macos.cc), mode 0600;
  - socket activation decides when it runs: no RunAtLoad, KeepAlive only
    after a failure; its log goes to ~/Library/Logs/mcpgw/.

Usage: launchd_plist.py BUILD_DIR BINDIR PLISTDIR
  (CMake's CMAKE_INSTALL_BINDIR and MCPGW_LAUNCHD_PLIST_DIR, relative to the prefix)
"""

import os
import plistlib
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOME = "/Users/USERNAME"  # the plist's stand-in for the home folder (launchd expands no ~)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def source_string(path, pattern):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        m = re.search(pattern, f.read())
    if not m:
        sys.exit(f"launchd_plist: {path} no longer matches {pattern!r}; update this test")
    return m.group(1)


def cache_value(build_dir, name):
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    sys.exit(f"launchd_plist: {name} is not in {build_dir}/CMakeCache.txt")


def install(build_dir, destdir, prefix):
    env = dict(os.environ, DESTDIR=destdir)
    r = subprocess.run(["cmake", "--install", build_dir, "--prefix", prefix], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"launchd_plist: cmake --install failed:\n{r.stdout}{r.stderr}")


def check_plist(destdir, prefix, bindir, plistdir):
    installed = os.path.join(prefix, plistdir, "com.mcpgw.mcpgwd.plist")
    path = destdir + installed
    if not os.path.isfile(path):
        failures.append(f"{prefix}: no agent at {path}")
        return
    with open(path, "rb") as f:
        plist = plistlib.load(f)
    where = f"{prefix}: com.mcpgw.mcpgwd.plist"

    check(plist.get("Label") == "com.mcpgw.mcpgwd", f"{where}: Label is {plist.get('Label')!r}")
    program = (plist.get("ProgramArguments") or [None])[0]
    mcpgwd = os.path.join(prefix, bindir, "mcpgwd")
    check(program == mcpgwd, f"{where}: runs {program!r}, the install puts mcpgwd at {mcpgwd}")
    check(os.path.isfile(destdir + mcpgwd), f"{where}: the install has no {mcpgwd}")
    check("Program" not in plist, f"{where}: Program and ProgramArguments both set")

    listener = source_string("daemon/ipc/launchd_macos.cc", r'launch_activate_socket\("([^"]+)"')
    under_home = source_string("proto/socket_path_macos.cc", r'kSocketUnderHome\[\] = "([^"]+)"')
    sockets = plist.get("Sockets") or {}
    check(list(sockets) == [listener], f"{where}: Sockets are {list(sockets)}, the daemon takes {listener!r}")
    sock = sockets.get(listener) or {}
    want = f"{HOME}/{under_home}"
    check(sock.get("SockPathName") == want,
          f"{where}: socket at {sock.get('SockPathName')!r}, clients look at {want!r}")
    check(sock.get("SockPathMode") == 0o600, f"{where}: SockPathMode is {sock.get('SockPathMode')!r}, not 384 (0600)")
    check(sock.get("SockType", "stream") == "stream", f"{where}: not a stream socket")

    check(plist.get("RunAtLoad") is False, f"{where}: RunAtLoad should be false (the socket starts it)")
    keep = plist.get("KeepAlive")
    check(keep == {"SuccessfulExit": False},
          f"{where}: KeepAlive is {keep!r}; want a restart after a failure only")
    for key in ("StandardErrorPath", "StandardOutPath"):
        log = plist.get(key, "")
        check(log.startswith(f"{HOME}/Library/Logs/mcpgw/"), f"{where}: {key} is {log!r}")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    check(re.search(r"@[A-Z_]+@", text) is None, f"{where}: a @VARIABLE@ was left unconfigured")
    check(installed in text, f"{where}: its install steps do not name {installed}")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: launchd_plist.py BUILD_DIR BINDIR PLISTDIR")
    build_dir, bindir, plistdir = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        for n, prefix in enumerate([cache_value(build_dir, "CMAKE_INSTALL_PREFIX"), "/opt/mcpgw-test"]):
            destdir = os.path.join(tmp, str(n))
            install(build_dir, destdir, prefix)
            check_plist(destdir, prefix, bindir, plistdir)
    for f in failures:
        print(f"launchd_plist: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print("launchd_plist: the installed agent runs the installed mcpgwd on the clients' socket")


if __name__ == "__main__":
    main()
