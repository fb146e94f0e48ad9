// Serves the recorded listings over MCP Streamable HTTP (JSON answers), one
// server per path: /<namespace> lists listings/<namespace>.json's tools and
// answers every tools/call with a short text, counting the calls. For the
// learning protocol, which asks and calls through a real mcpgwd.
//   node serve-listings.mjs [--port N]     prints "port N" once listening
// GET /calls answers {"<namespace>/<tool>": count}. No dependencies.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const listings = new Map();
for (const f of fs.readdirSync(path.join(HERE, 'listings')).filter((f) => f.endsWith('.json'))) {
  listings.set(f.slice(0, -5), JSON.parse(fs.readFileSync(path.join(HERE, 'listings', f), 'utf8')));
}
const calls = {};
let sessions = 0;

function answer(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const ns = decodeURIComponent(req.url.slice(1));
  if (req.method === 'GET' && req.url === '/calls') return answer(res, 200, calls);
  if (req.method === 'DELETE') return answer(res, 200);
  if (req.method !== 'POST' || !listings.has(ns)) return answer(res, 404, { error: 'no such server' });
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (text += d));
  req.on('end', () => {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return answer(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    if (msg.id === undefined) return answer(res, 202);
    const reply = (result) => answer(res, 200, { jsonrpc: '2.0', id: msg.id, result });
    switch (msg.method) {
      case 'initialize':
        return answer(
          res,
          200,
          {
            jsonrpc: '2.0',
            id: msg.id,
            result: {
              protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: ns, version: '1' },
            },
          },
          { 'mcp-session-id': `s${++sessions}` },
        );
      case 'tools/list':
        return reply({ tools: listings.get(ns) });
      case 'tools/call': {
        const key = `${ns}/${msg.params?.name}`;
        calls[key] = (calls[key] ?? 0) + 1;
        return reply({ content: [{ type: 'text', text: `done: ${key}` }] });
      }
      case 'ping':
        return reply({});
      default:
        return answer(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no such method' } });
    }
  });
});

const portArg = process.argv.indexOf('--port');
server.listen(portArg > 0 ? Number(process.argv[portArg + 1]) : 0, '127.0.0.1', () => {
  console.log(`port ${server.address().port}`);
});
