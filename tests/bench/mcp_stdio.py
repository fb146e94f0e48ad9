"""`mcpgw stdio` as an MCP host runs it, for the benchmark scripts: JSON-RPC
lines on its stdin and stdout, an environment of PATH alone."""
import json
import subprocess


class Stdio:
    def __init__(self, mcpgw, socket, name):
        self.p = subprocess.Popen([mcpgw, "--socket", socket, "stdio"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env={"PATH": "/usr/bin:/bin"}, text=True, bufsize=1)
        self.next_id = 1
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": name, "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def rpc(self, method, params):
        """The result of one request; an error answer raises."""
        i = self.next_id
        self.next_id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("mcpgw stdio ended")
            msg = json.loads(line)
            if msg.get("id") == i:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def tool(self, name, arguments):
        """A tools/call's text and whether it is an error."""
        r = self.rpc("tools/call", {"name": name, "arguments": arguments})
        return r["content"][0]["text"], r.get("isError", False)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def stop(procs):
    """Ends the processes a script started: SIGTERM, then SIGKILL after 10 s."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
