// Records the real tools/list answer of published MCP servers into
// listings/<namespace>.json, the tool catalogue that the tool-search benchmark
// ranks against. Run once by hand; the listings are committed and nothing at
// test time installs or starts these servers.
//
//   node record.mjs install [--dir D] [--only ns1,ns2]   npm-installs each package@version into D/<ns>
//   node record.mjs record  [--dir D] [--only ns1,ns2]   starts each one (stdio), initialize + tools/list
//
// D defaults to /tmp/mcp-search-listings (scratch, outside the repo). The
// record step runs in a network namespace of its own with only loopback
// (`unshare --net`, when run as root), so no server can reach the network;
// tokens are dummies. The script resolves @modelcontextprotocol/sdk
// from tests/bench/node_modules (`npm ci` in tests/bench).

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

// namespace, npm package, exact version, the bin to start, its arguments and
// the environment it needs to start (dummy values only: listing tools must
// not need a real account). "{dir}" in args and env is the server's scratch
// folder; npmArgs are extra flags for its npm install; stub: 'redis' starts a
// loopback stand-in that answers +OK to everything (the server connects to
// Redis before it serves MCP), its port is "{stub}"; plainHost hides a
// container marker file from a server that otherwise writes the recording
// machine's container mounts into its tool descriptions.
const SERVERS = [
  { ns: 'everything', pkg: '@modelcontextprotocol/server-everything', version: '2026.8.31', bin: 'mcp-server-everything', args: ['stdio'] },
  { ns: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', bin: 'mcp-server-filesystem', args: ['{dir}/files'] },
  { ns: 'memory', pkg: '@modelcontextprotocol/server-memory', version: '2026.8.31', bin: 'mcp-server-memory', env: { MEMORY_FILE_PATH: '{dir}/memory.jsonl' } },
  { ns: 'sequential-thinking', pkg: '@modelcontextprotocol/server-sequential-thinking', version: '2026.8.31', bin: 'mcp-server-sequential-thinking' },
  { ns: 'github', pkg: '@modelcontextprotocol/server-github', version: '2025.4.8', bin: 'mcp-server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'dummy' } },
  { ns: 'gitlab', pkg: '@modelcontextprotocol/server-gitlab', version: '2025.4.25', bin: 'mcp-server-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'dummy', GITLAB_API_URL: 'http://127.0.0.1:9/api/v4' } },
  { ns: 'slack', pkg: '@modelcontextprotocol/server-slack', version: '2025.4.25', bin: 'mcp-server-slack', env: { SLACK_BOT_TOKEN: 'dummy', SLACK_TEAM_ID: 'T00000000' } },
  { ns: 'postgres', pkg: '@modelcontextprotocol/server-postgres', version: '0.6.2', bin: 'mcp-server-postgres', args: ['postgresql://127.0.0.1:9/none'] },
  { ns: 'puppeteer', pkg: '@modelcontextprotocol/server-puppeteer', version: '2025.5.12', bin: 'mcp-server-puppeteer' },
  { ns: 'brave-search', pkg: '@modelcontextprotocol/server-brave-search', version: '0.6.2', bin: 'mcp-server-brave-search', env: { BRAVE_API_KEY: 'dummy' } },
  { ns: 'google-maps', pkg: '@modelcontextprotocol/server-google-maps', version: '0.6.2', bin: 'mcp-server-google-maps', env: { GOOGLE_MAPS_API_KEY: 'dummy' } },
  { ns: 'redis', pkg: '@modelcontextprotocol/server-redis', version: '2025.4.25', bin: 'mcp-server-redis', args: ['redis://127.0.0.1:{stub}'], stub: 'redis' },
  { ns: 'playwright', pkg: '@playwright/mcp', version: '0.0.83', bin: 'playwright-mcp', args: ['--headless'] },
  { ns: 'notion', pkg: '@notionhq/notion-mcp-server', version: '2.5.2', bin: 'notion-mcp-server', env: { NOTION_TOKEN: 'dummy' } },
  { ns: 'context7', pkg: '@upstash/context7-mcp', version: '4.1.1', bin: 'context7-mcp' },
  { ns: 'chrome-devtools', pkg: 'chrome-devtools-mcp', version: '1.11.0', bin: 'chrome-devtools-mcp', args: ['--headless', '--no-usage-statistics'] },
  { ns: 'kubernetes', pkg: 'mcp-server-kubernetes', version: '4.1.7', bin: 'mcp-server-kubernetes' },
  { ns: 'firecrawl', pkg: 'firecrawl-mcp', version: '3.26.0', bin: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: 'fc-dummy' } },
  { ns: 'desktop-commander', pkg: '@wonderwhy-er/desktop-commander', version: '0.2.52', bin: 'desktop-commander', plainHost: true },
  { ns: 'mongodb', pkg: 'mongodb-mcp-server', version: '3.0.4', bin: 'mongodb-mcp-server', env: { MDB_MCP_TELEMETRY: 'disabled' } },
  { ns: 'azure-devops', pkg: '@azure-devops/mcp', version: '2.10.0', bin: 'mcp-server-azuredevops', args: ['contoso'], npmArgs: ['--nodedir=/usr'] },
  { ns: 'jira', pkg: '@aashari/mcp-server-atlassian-jira', version: '3.3.0', bin: 'mcp-atlassian-jira', env: { ATLASSIAN_SITE_NAME: 'example', ATLASSIAN_USER_EMAIL: 'nobody@example.com', ATLASSIAN_API_TOKEN: 'dummy' } },
  { ns: 'linear', pkg: '@tacticlaunch/mcp-linear', version: '1.4.3', bin: 'mcp-linear', env: { LINEAR_API_TOKEN: 'dummy' } },
  { ns: 'sentry', pkg: '@sentry/mcp-server', version: '0.39.0', bin: 'sentry-mcp', args: ['--access-token=dummy'] },
];

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, 'listings');

function parseArgs(argv) {
  const o = { cmd: argv[0], dir: '/tmp/mcp-search-listings', only: null };
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '--dir') o.dir = argv[++i];
    else if (argv[i] === '--only') o.only = new Set(argv[++i].split(','));
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (o.cmd !== 'install' && o.cmd !== 'record') throw new Error('usage: node record.mjs install|record [--dir D] [--only ns,...]');
  return o;
}

const fill = (s, dir) => s.replaceAll('{dir}', dir);

function install(s, dir) {
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, 'package.json'))) fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
  const env = {
    ...process.env,
    // Browser builds are neither needed to list tools nor reachable here.
    PUPPETEER_SKIP_DOWNLOAD: '1', PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  };
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', ...(s.npmArgs ?? []), `${s.pkg}@${s.version}`], { cwd: dir, env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install ${s.pkg}@${s.version} failed`);
}

// A stand-in Redis on loopback: answers +OK to every command (RESP arrays of
// bulk strings, as clients send them), enough for the server's connect at
// startup; the listing never touches it.
function startRedisStub() {
  const commandEnd = (buf, at) => { // index after one whole command at `at`, or -1
    let i = buf.indexOf('\r\n', at);
    if (i < 0 || buf[at] !== 0x2a /* '*' */) return -1;
    let n = Number(buf.toString('latin1', at + 1, i));
    i += 2;
    while (n-- > 0) {
      const e = buf.indexOf('\r\n', i);
      if (e < 0) return -1;
      i = e + 2 + Number(buf.toString('latin1', i + 1, e)) + 2;
      if (i > buf.length) return -1;
    }
    return i;
  };
  return new Promise((resolve) => {
    const srv = net.createServer((sock) => {
      let buf = Buffer.alloc(0);
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        for (let end; (end = commandEnd(buf, 0)) > 0; buf = buf.subarray(end)) sock.write('+OK\r\n');
      });
      sock.on('error', () => {});
    });
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

async function record(s, dir) {
  const bin = path.join(dir, 'node_modules', '.bin', s.bin);
  if (!fs.existsSync(bin)) throw new Error(`${bin} missing: run install first`);
  const stub = s.stub === 'redis' ? await startRedisStub() : null;
  const fillAll = (v) => fill(v, dir).replaceAll('{stub}', String(stub?.address().port ?? ''));
  const args = (s.args ?? []).map(fillAll);
  fs.mkdirSync(path.join(dir, 'files'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  const env = { ...getDefaultEnvironment(), HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'home', '.config') };
  for (const [k, v] of Object.entries(s.env ?? {})) env[k] = fillAll(v);
  if (s.plainHost) {
    const preload = path.join(dir, 'plain-host.cjs');
    fs.writeFileSync(preload, [
      "const fs = require('fs');",
      'const existsSync = fs.existsSync;',
      "fs.existsSync = (p) => (String(p) === '/.dockerenv' ? false : existsSync(p));",
    ].join('\n') + '\n');
    env.NODE_OPTIONS = `--require ${preload}`;
  }
  const transport = new StdioClientTransport({ command: bin, args, env, cwd: dir, stderr: 'pipe' });
  const log = fs.createWriteStream(path.join(dir, 'stderr.log'));
  transport.stderr?.pipe(log);
  const client = new Client({ name: 'mcpgw-search-listing-recorder', version: '1.0.0' });
  const timer = setTimeout(() => transport.close(), 90_000);
  try {
    await client.connect(transport);
    // Keep each tools/list result exactly as it came over the wire, not as
    // parsed by the SDK's schema.
    const pages = [];
    const onmessage = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      if (msg?.result && Array.isArray(msg.result.tools)) pages.push(msg.result);
      onmessage?.(msg, extra);
    };
    let cursor;
    do {
      const before = pages.length;
      try {
        const r = await client.listTools(cursor ? { cursor } : undefined);
        cursor = r.nextCursor;
      } catch (e) {
        if (pages.length === before) throw e;
        console.warn(`  ${s.ns}: the SDK's schema rejects this tools/list result (${e.message.split('\n')[0]}...); kept as sent`);
        cursor = pages[pages.length - 1].nextCursor;
      }
    } while (cursor);
    const tools = pages.flatMap((p) => p.tools);
    return { tools, serverInfo: client.getServerVersion() };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
    stub?.close();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const list = SERVERS.filter((s) => !o.only || o.only.has(s.ns));
  if (o.cmd === 'install') {
    for (const s of list) install(s, path.join(o.dir, s.ns));
    return;
  }
  // The record step runs in a network namespace of its own that has only
  // loopback, so no server can reach the network (root and unshare needed).
  if (!process.env.MCP_RECORD_NETNS) {
    const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['--net', 'true']).status === 0;
    if (canUnshare) {
      const r = spawnSync('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh',
        process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
      { stdio: 'inherit', env: { ...process.env, MCP_RECORD_NETNS: '1' } });
      process.exit(r.status ?? 1);
    }
    console.warn('warning: not root or no unshare: the servers run with this machine\'s network');
  }
  fs.mkdirSync(OUT, { recursive: true });
  const metaFile = path.join(HERE, 'servers.json');
  const meta = fs.existsSync(metaFile) ? JSON.parse(fs.readFileSync(metaFile, 'utf8')) : [];
  let failed = 0;
  for (const s of list) {
    const dir = path.join(o.dir, s.ns);
    process.stdout.write(`${s.ns} (${s.pkg}@${s.version}) ... `);
    try {
      const installed = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', ...s.pkg.split('/'), 'package.json'), 'utf8')).version;
      if (installed !== s.version) throw new Error(`installed ${installed}, table says ${s.version}`);
      const r = await record(s, dir);
      if (r.tools.length === 0) throw new Error('no tools listed');
      fs.writeFileSync(path.join(OUT, `${s.ns}.json`), JSON.stringify(r.tools, null, 2) + '\n');
      const entry = {
        namespace: s.ns, package: s.pkg, version: s.version, serverInfo: r.serverInfo,
        tools: r.tools.length, recorded: new Date().toISOString().slice(0, 10),
      };
      const i = meta.findIndex((m) => m.namespace === s.ns);
      if (i >= 0) meta[i] = entry; else meta.push(entry);
      console.log(`${r.tools.length} tools`);
    } catch (e) {
      failed++;
      console.log(`FAILED: ${e.message} (see ${path.join(dir, 'stderr.log')})`);
    }
  }
  const order = SERVERS.map((s) => s.ns);
  meta.sort((a, b) => order.indexOf(a.namespace) - order.indexOf(b.namespace));
  fs.writeFileSync(metaFile, JSON.stringify(meta, null, 2) + '\n');
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => { console.error(e.message); process.exit(2); });
