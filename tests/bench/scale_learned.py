#!/usr/bin/env python3
"""Daemon memory at 1000 servers x 100 tools, with and without learned words.

    scale_learned.py BUILD_DIR [--queries N,N,...] [--runs R] [--servers S]

For each count of learned queries (default 0, 500 and 2000, the most the
daemon keeps): a fresh state directory, bench_upstream serving S servers of
100 tools (the scale benchmark's fixture) and a fresh mcpgwd. The queries
are taught the way hosts teach them: through `mcpgw stdio`, each a
get_dynamic_tools query (the evaluation set's dev and uses.json requests,
made distinct by the server's name) followed by a call of a tool on its
connection. Then the daemon is restarted, so it reads them back from the
learned file, and measured: VmRSS once ready, and after one query. Prints
one JSON line per run and a Markdown table of medians (min-max).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from mcp_stdio import Stdio, stop

HERE = os.path.dirname(os.path.abspath(__file__))


def kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def texts():
    out = []
    for name in ("requests.json", "uses.json"):
        with open(os.path.join(HERE, "search", name)) as f:
            out += [r["request"] for r in json.load(f) if r.get("split", "dev") == "dev"]
    return out


def run(build, servers, queries, words):
    mcpgwd = os.path.join(build, "daemon", "mcpgwd")
    mcpgw = os.path.join(build, "client", "mcpgw")
    tmp = tempfile.mkdtemp(prefix="mcpgw-scale-learned-")
    env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "XDG_STATE_HOME": os.path.join(tmp, "state"),
           "XDG_CONFIG_HOME": os.path.join(tmp, "config")}
    procs = []
    try:
        up = subprocess.Popen([os.path.join(build, "tests", "bench", "bench_upstream"), "--tools", "100",
                               "--page-size", "50"], stdout=subprocess.PIPE, text=True)
        procs.append(up)
        port = int(up.stdout.readline())
        config = os.path.join(tmp, "scale.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": {f"s{i}": {"url": f"http://127.0.0.1:{port}/s/{i}/mcp"}
                                      for i in range(servers)}}, f)
        os.chmod(config, 0o600)
        socket = os.path.join(tmp, "scale.sock")

        def start():
            d = subprocess.Popen([mcpgwd, "--config", config, "--socket", socket],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            procs.append(d)
            subprocess.run([mcpgw, "--socket", socket, "wait", "--timeout", "120"], check=True,
                           stdout=subprocess.DEVNULL, env=env)
            return d

        d = start()
        if queries:
            host = Stdio(mcpgw, socket, "scale-learned")
            for i in range(queries):
                ns = f"s{i % servers}"
                host.tool("get_dynamic_tools", {"query": f"{words[i % len(words)]} {ns}", "limit": 5})
                text, err = host.tool("call_dynamic_tool", {"namespace": ns,
                                                            "toolName": f"tool_{1 + i // servers % 99}",
                                                            "arguments": {"text": "x"}})
                if err:
                    raise RuntimeError(f"call failed: {text}")
            host.close()
        d.terminate()
        d.wait(timeout=30)
        d = start()
        time.sleep(0.5)
        ready = kb(d.pid, "VmRSS")
        host = Stdio(mcpgw, socket, "scale-learned")
        host.tool("get_dynamic_tools", {"query": "echo the text back", "limit": 10})
        host.close()
        after = kb(d.pid, "VmRSS")
        learned = os.path.join(tmp, "state", "mcpgw", "learned.json")
        size = os.path.getsize(learned) if os.path.exists(learned) else 0
        if size and os.environ.get("SCALE_LEARNED_KEEP"):  # for a heap profile by hand
            subprocess.run(["cp", learned, f"{os.environ['SCALE_LEARNED_KEEP']}.{queries}"])
        return {"queries": queries, "rss_ready_kb": ready, "rss_after_query_kb": after,
                "file_bytes": size}
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    build = args[0]
    counts = [int(x) for x in (args[args.index("--queries") + 1] if "--queries" in args else "0,500,2000").split(",")]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    servers = int(args[args.index("--servers") + 1]) if "--servers" in args else 1000
    words = texts()
    results = {n: [] for n in counts}
    for _ in range(runs):
        for n in counts:  # the counts taken in turn, so each sees the same machine
            r = run(build, servers, n, words)
            print(json.dumps(r), flush=True)
            results[n].append(r)

    def cell(values):
        v = [x / 1024 for x in values]
        return f"{statistics.median(v):.1f} ({min(v):.1f}–{max(v):.1f})"

    print(f"\n| learned queries | daemon RSS when ready, MB | after a query, MB | learned file |")
    print("|---:|---:|---:|---:|")
    for n in counts:
        rs = results[n]
        print(f"| {n:,} | {cell([r['rss_ready_kb'] for r in rs])} | {cell([r['rss_after_query_kb'] for r in rs])} "
              f"| {statistics.median([r['file_bytes'] for r in rs]) / 1024:.0f} KiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
