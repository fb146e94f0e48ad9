// The official SDK client as a host: spawns a stdio MCP server (mcpgw stdio,
// supergateway, mcp-remote) or connects straight to the upstream over
// Streamable HTTP ("direct", the baseline), calls one tool N times
// sequentially and at each --inflight level, and prints one JSON line per
// level: latency percentiles, calls/s, CPU per call, context switches per
// call and peak RSS of the spawned process tree plus --pids (the gateway
// side, never the client).
//   node peer_client.mjs --label L --calls N --inflight 1,32 [--pids P]
//        [--wrap-ns NS] (--url URL | -- COMMAND ARGS...)
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const argv = process.argv.slice(2);
const opts = { label: 'peer', calls: 200, inflight: '1,32', pids: '', wrapNs: '', url: '', warmup: 20 };
let command = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--') { command = argv.slice(i + 1); break; }
  const key = a.replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase());
  opts[key] = argv[++i];
}
const calls = Number(opts.calls);
const warmup = Number(opts.warmup);
const levels = String(opts.inflight).split(',').map(Number).filter((n) => n > 0);
const extraPids = String(opts.pids).split(',').filter(Boolean).map(Number);
const clk = Number(process.env.CLK_TCK || 100);

function readStat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields from index 3 (state) on: ppid=4, utime=14, stime=15, cutime=16, cstime=17
    return { ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
  } catch { return null; }
}
function statusKb(pid, key) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${key}:\\s+(\\d+)`, 'm'));
    return m ? Number(m[1]) : 0;
  } catch { return 0; }
}
function tree(root) {
  if (!root) return [];
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(name);
    if (!s) continue;
    if (!children.has(s.ppid)) children.set(s.ppid, []);
    children.get(s.ppid).push(Number(name));
  }
  const out = [root];
  for (let i = 0; i < out.length && out.length < 1000; i++) out.push(...(children.get(out[i]) || []));
  return out;
}
// CPU (µs) of one process: its live threads' nanosecond counters
// (/proc/<pid>/task/*/schedstat), plus its reaped children in clock ticks.
function processCpu(pid) {
  const s = readStat(pid);
  if (!s) return 0;
  let us = ((s.cutime + s.cstime) * 1e6) / clk;
  let tasks = [];
  try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { /* gone */ }
  let any = false;
  for (const tid of tasks) {
    try {
      us += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e3;
      any = true;
    } catch { /* thread ended */ }
  }
  if (!any) us += ((s.utime + s.stime) * 1e6) / clk;
  return us;
}
// CPU (µs) of the spawned process tree (for mcpgw: the bridge).
function treeCpu(root) {
  return tree(root).reduce((sum, pid) => sum + processCpu(pid), 0);
}
// CPU (µs) of the gateway side: the spawned process tree and --pids.
function gatewayCpu(root) {
  return treeCpu(root) + extraPids.reduce((sum, pid) => sum + processCpu(pid), 0);
}
// Context switches of the gateway side, summed over live threads: [voluntary
// (it waited), involuntary (it was preempted)]. A thread that ended is not
// counted, so this is exact only for gateways whose threads outlive the level.
function gatewaySwitches(root) {
  const sum = [0, 0];
  for (const pid of [...tree(root), ...extraPids]) {
    let tasks = [];
    try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tasks) {
      try {
        const text = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        sum[0] += Number((text.match(/^voluntary_ctxt_switches:\s+(\d+)/m) || [0, 0])[1]);
        sum[1] += Number((text.match(/^nonvoluntary_ctxt_switches:\s+(\d+)/m) || [0, 0])[1]);
      } catch { /* thread ended */ }
    }
  }
  return sum;
}
function gatewayHwmKb(root) {
  return [...tree(root), ...extraPids].reduce((sum, pid) => sum + statusKb(pid, 'VmHWM'), 0);
}

const transport = opts.url
  ? new StreamableHTTPClientTransport(new URL(opts.url))
  : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'ignore' });
const client = new Client({ name: 'mcpgw-bench', version: '1.0.0' });
await client.connect(transport);
const root = opts.url ? 0 : transport.pid;

const toolArgs = { text: 'hello' };
const request = opts.wrapNs
  ? { name: 'call_dynamic_tool', arguments: { namespace: opts.wrapNs, toolName: 'echo', arguments: toolArgs } }
  : { name: 'echo', arguments: toolArgs };
async function one() {
  const r = await client.callTool(request);
  if (r.isError || r.content?.[0]?.text !== 'hello') throw new Error(`bad result: ${JSON.stringify(r).slice(0, 200)}`);
}

for (let i = 0; i < warmup; i++) await one();
for (const inflight of levels) {
  const lat = [];
  let next = 0;
  let errors = 0;
  const cpu0 = gatewayCpu(root);
  const sw0 = gatewaySwitches(root);
  const tree0 = root ? treeCpu(root) : 0;
  const t0 = process.hrtime.bigint();
  async function worker() {
    while (next < calls) {
      next++;
      const s = process.hrtime.bigint();
      try { await one(); } catch { errors++; }
      lat.push(Number(process.hrtime.bigint() - s) / 1000);
    }
  }
  await Promise.all(Array.from({ length: inflight }, worker));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = gatewayCpu(root) - cpu0;
  const sw = gatewaySwitches(root).map((n, i) => n - sw0[i]);
  const treeUs = root ? treeCpu(root) - tree0 : 0;
  lat.sort((a, b) => a - b);
  const pct = (q) => lat[Math.round(q * (lat.length - 1))] || 0;
  console.log(JSON.stringify({
    mode: opts.label, op: 'call', inflight, calls: lat.length, errors, seconds,
    cps: lat.length / seconds, p50_us: pct(0.5), p99_us: pct(0.99),
    cpu_us_per_call: cpu / lat.length, bridge_cpu_us_per_call: treeUs / lat.length,
    waits_per_call: sw[0] / lat.length, preempted_per_call: sw[1] / lat.length,
    hwm_kb: gatewayHwmKb(root),
    rss_kb: [...tree(root), ...extraPids].reduce((s, p) => s + statusKb(p, 'VmRSS'), 0),
    anon_kb: [...tree(root), ...extraPids].reduce((s, p) => s + statusKb(p, 'RssAnon'), 0),
  }));
}
await client.close();
process.exit(0);
