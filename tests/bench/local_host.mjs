// An MCP host on the official SDK's client (Client + StdioClientTransport),
// for tests/bench/local_servers.sh. Two modes:
//
//   node local_host.mjs host --servers FILE [--list-dynamic]
//     Starts every server of FILE (an mcp.json: {"mcpServers": {NAME:
//     {command, args, env, cwd}}}) at once, as a host starts its configured
//     servers, lists every page of each one's tools, then prints one JSON
//     line ({"servers": N, "tools": N, "pids": [...]}) and stays idle until
//     SIGTERM or SIGINT, when it closes its servers and exits. With
//     --list-dynamic it also calls get_dynamic_tools on each server (for
//     `mcpgw stdio`), once without arguments and once for each namespace it
//     names, so the host holds every tool's schema as a direct host does.
//
//   node local_host.mjs calls --calls N --warmup W --tool T --args JSON
//        --expect TEXT [--wrap-ns NS] [--pids P,...] [--server-root PID]
//        [--cwd DIR] [--env K=V ...] -- COMMAND ARGS...
//     Spawns COMMAND, makes W calls of T and then N more, one at a time
//     (through call_dynamic_tool on namespace NS with --wrap-ns), checks that
//     every result's first text is TEXT, and prints one JSON line: latency
//     p50/p99/mean of the N calls and, per call, the CPU (µs) of the spawned
//     process tree (spawned_cpu: the bridge for `mcpgw stdio`, the server with
//     its npm wrapper when the host spawns the server itself), of --pids (the
//     daemon), of the tree under --server-root (the daemon's server) and of
//     this client. CPU is read from /proc/<pid>/task/*/schedstat (nanoseconds:
//     the run time that utime + stime count in clock ticks).
// SDK: tests/fixtures/node_modules (scripts/install-node-deps.sh). Every loop
// is bounded; a call that fails makes the whole run fail (exit 1).
import fs from 'node:fs';

const kSdk = new URL('../fixtures/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', kSdk));
const { StdioClientTransport } = await import(new URL('client/stdio.js', kSdk));
const kMaxPages = 100;
const kClk = Number(process.env.CLK_TCK || 100);

function Fail(message) {
  process.stderr.write(`local_host: ${message}\n`);
  process.exit(1);
}

// ---- arguments --------------------------------------------------------------

const mode = process.argv[2];
const opts = { calls: 2000, warmup: 200, tool: 'echo', args: '{}', expect: '', wrapNs: '',
  pids: '', serverRoot: '', servers: '', cwd: '', env: [], listDynamic: false };
let command = null;
{
  const argv = process.argv.slice(3);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { command = argv.slice(i + 1); break; }
    const key = a.replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase());
    if (!(key in opts)) Fail(`unknown option ${a}`);
    if (typeof opts[key] === 'boolean') opts[key] = true;
    else if (Array.isArray(opts[key])) opts[key].push(argv[++i]);
    else opts[key] = argv[++i];
  }
}

// ---- /proc ------------------------------------------------------------------

function ReadStat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
  } catch { return null; }
}
// PID and every process below it.
function Tree(root) {
  if (!root) return [];
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = ReadStat(name);
    if (!s) continue;
    if (!children.has(s.ppid)) children.set(s.ppid, []);
    children.get(s.ppid).push(Number(name));
  }
  const out = [Number(root)];
  for (let i = 0; i < out.length && out.length < 2000; i++) out.push(...(children.get(out[i]) || []));
  return out;
}
// CPU (µs) of one process: its live threads' run time, plus its reaped children's.
function ProcessCpu(pid) {
  const s = ReadStat(pid);
  if (!s) return 0;
  let us = ((s.cutime + s.cstime) * 1e6) / kClk;
  let tasks = [];
  try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { /* gone */ }
  let any = false;
  for (const tid of tasks) {
    try {
      us += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e3;
      any = true;
    } catch { /* thread ended */ }
  }
  if (!any) us += ((s.utime + s.stime) * 1e6) / kClk;
  return us;
}
const TreeCpu = (root) => Tree(root).reduce((sum, pid) => sum + ProcessCpu(pid), 0);

// ---- host -------------------------------------------------------------------

function Transport(spec) {
  return new StdioClientTransport({
    command: spec.command, args: spec.args || [], env: spec.env || {},
    cwd: spec.cwd || undefined, stderr: 'ignore',
  });
}

async function ListAll(client) {
  let tools = 0;
  let cursor;
  for (let page = 0; page < kMaxPages; page++) {
    const r = await client.listTools(cursor ? { cursor } : {});
    tools += r.tools.length;
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

async function Host() {
  const file = JSON.parse(fs.readFileSync(opts.servers, 'utf8'));
  const entries = Object.entries(file.mcpServers || {});
  const clients = [];
  const counts = await Promise.all(entries.map(async ([name, spec]) => {
    const transport = Transport(spec);
    const client = new Client({ name: `bench-host-${name}`, version: '1.0.0' });
    await client.connect(transport);
    clients.push({ client, transport });
    let tools = await ListAll(client);
    if (opts.listDynamic) {
      const Dynamic = async (args) => {
        const r = await client.callTool({ name: 'get_dynamic_tools', arguments: args });
        if (r.isError) throw new Error(`get_dynamic_tools: ${JSON.stringify(r).slice(0, 200)}`);
        return JSON.parse(r.content[0].text);
      };
      for (const s of (await Dynamic({})).servers || []) {
        tools += ((await Dynamic({ namespace: s.namespace })).tools || []).length;
      }
    }
    return tools;
  }));
  let stopping = false;
  const Stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.allSettled(clients.map(({ client }) => client.close()));
    process.exit(0);
  };
  process.on('SIGTERM', Stop);
  process.on('SIGINT', Stop);
  console.log(JSON.stringify({ servers: entries.length, tools: counts.reduce((a, b) => a + b, 0),
    pids: clients.map(({ transport }) => transport.pid) }));
  setInterval(() => {}, 1 << 30);  // idle until a signal
}

// ---- calls ------------------------------------------------------------------

async function Calls() {
  if (!command || command.length === 0) Fail('no command after --');
  const env = {};
  for (const kv of opts.env) {
    const eq = kv.indexOf('=');
    if (eq <= 0) Fail(`--env wants K=V, got ${kv}`);
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const transport = Transport({ command: command[0], args: command.slice(1), env, cwd: opts.cwd });
  const client = new Client({ name: 'bench-calls', version: '1.0.0' });
  await client.connect(transport);
  const root = transport.pid;
  const daemonPids = String(opts.pids).split(',').filter(Boolean).map(Number);
  const toolArgs = JSON.parse(opts.args);
  const request = opts.wrapNs
    ? { name: 'call_dynamic_tool', arguments: { namespace: opts.wrapNs, toolName: opts.tool, arguments: toolArgs } }
    : { name: opts.tool, arguments: toolArgs };
  const One = async () => {
    const r = await client.callTool(request);
    if (r.isError || r.content?.[0]?.text !== opts.expect) throw new Error(`bad result: ${JSON.stringify(r).slice(0, 200)}`);
  };
  const calls = Number(opts.calls);
  for (let i = 0; i < Number(opts.warmup); i++) await One();
  const Snapshot = () => ({
    spawned: TreeCpu(root),
    daemon: daemonPids.reduce((s, p) => s + ProcessCpu(p), 0),
    server: opts.serverRoot ? TreeCpu(Number(opts.serverRoot)) : 0,
    self: (() => { const u = process.cpuUsage(); return u.user + u.system; })(),
  });
  const lat = new Array(calls);
  const c0 = Snapshot();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const s = process.hrtime.bigint();
    await One();
    lat[i] = Number(process.hrtime.bigint() - s) / 1000;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const c1 = Snapshot();
  lat.sort((a, b) => a - b);
  const Pct = (q) => lat[Math.round(q * (lat.length - 1))];
  const per = (k) => (c1[k] - c0[k]) / calls;
  console.log(JSON.stringify({
    calls, seconds, p50_us: Pct(0.5), p99_us: Pct(0.99), mean_us: lat.reduce((a, b) => a + b, 0) / calls,
    spawned_cpu_us: per('spawned'), daemon_cpu_us: per('daemon'), server_cpu_us: per('server'),
    client_cpu_us: per('self'),
  }));
  await client.close();
  process.exit(0);
}

try {
  if (mode === 'host') await Host();
  else if (mode === 'calls') await Calls();
  else Fail('usage: local_host.mjs host --servers FILE [--list-dynamic] | calls ... -- COMMAND ARGS...');
} catch (e) {
  Fail(String(e?.stack || e));
}
