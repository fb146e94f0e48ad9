#!/usr/bin/env python3
"""Stands in for systemd's notification socket: binds a datagram Unix socket
at PATH and appends every message it receives (READY=1, STOPPING=1, ...) to
LOG, one per line, until it is terminated or MAX_SECONDS pass.
Usage: notify_listener.py PATH LOG [MAX_SECONDS]"""
import os
import signal
import socket
import sys
import time


def main():
    path, log = sys.argv[1], sys.argv[2]
    deadline = time.monotonic() + (float(sys.argv[3]) if len(sys.argv) > 3 else 120)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    with open(log, "a", buffering=1) as out:
        out.write("LISTENING\n")
        while time.monotonic() < deadline:
            try:
                data = sock.recv(4096)
            except socket.timeout:
                continue
            for line in data.decode("utf-8", "replace").splitlines():
                out.write(line + "\n")
    os.unlink(path)


if __name__ == "__main__":
    main()
