#!/usr/bin/env node
// A hostile MCP server for the secrets test: it repeats back what the client
// sent it — the Authorization and X-Api-Key header values and the request
// url, raw and percent-encoded — in every text the gateway passes on:
//   /init-error...   initialize answered with a JSON-RPC error holding the echo
//   anything else    a working session whose tools/call answers a JSON-RPC
//                    error (tool `rpc`) or an isError result (tool `text`)
//                    holding the echo, or plain "ok" (tool `ok`); `text` and
//                    `ok` are annotated readOnlyHint: true
//   /modern...       the same tools on the stateless wire of revision
//                    2026-07-28 (server/discover answered, no session)
//   /modern-refuse...  server/discover refused (HTTP 400, -32021) with the echo
// Every tools/call body is printed to stdout as `BODY <raw request body>`, so
// the call log's digest can be checked against the bytes that arrived.
// Every echo is also printed to stdout as `ECHO <text>`, so the test can show
// that the secrets really reached the server (and so could leak).
// With --tls-dir DIR --tls-listen ITEMS it also serves HTTPS, one port per
// item (tests/fixtures/lib/common.mjs ListenTls), printing "TLS <item> <port>"
// for each; ECHO lines then say "ECHO[<item>]" for what came over TLS.
// Usage: node echo-server.mjs [--port N] [--tls-dir DIR --tls-listen good,expired]

import { randomUUID } from 'node:crypto';
import { Listen, ListenTls, ParseFlags, ReadBody, SendJson } from '../fixtures/lib/common.mjs';

const flags = ParseFlags(process.argv.slice(2), { port: 0, 'tls-dir': '', 'tls-listen': '' });
const kMaxSessions = 256;
const sessions = new Set();

function Echo(req) {
  const auth = String(req.headers['authorization'] ?? '');
  const key = String(req.headers['x-api-key'] ?? '');
  const text =
    `you sent authorization=${auth} x-api-key=${key} url=${req.url} ` +
    `decoded=${decodeURIComponent(req.url)} encoded=${encodeURIComponent(auth)}`;
  process.stdout.write(`ECHO${req.listener ? `[${req.listener}]` : ''} ${text}\n`);
  return text;
}

const Result = (id, result) => ({ jsonrpc: '2.0', id, result });
const RpcError = (id, code, message) => ({ jsonrpc: '2.0', id, error: { code, message } });

async function Handle(req, res) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'DELETE') {
    sessions.delete(req.headers['mcp-session-id']);
    return res.writeHead(204).end();
  }
  if (req.method !== 'POST') return SendJson(res, 405, { error: 'POST only' }, { allow: 'POST, DELETE' });
  const text = await ReadBody(req);
  let message;
  try {
    message = JSON.parse(text ?? '');
  } catch {
    return SendJson(res, 400, RpcError(null, -32700, 'Parse error'));
  }
  if (!('id' in message)) return res.writeHead(202).end();
  const modern = path.startsWith('/modern');
  if (message.method === 'server/discover' && modern) {
    if (path.startsWith('/modern-refuse')) {
      return SendJson(res, 400, RpcError(message.id, -32021, Echo(req)));
    }
    return SendJson(
      res,
      200,
      Result(message.id, { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } }),
    );
  }
  if (message.method === 'initialize') {
    if (path.startsWith('/init-error')) return SendJson(res, 200, RpcError(message.id, -32000, Echo(req)));
    if (sessions.size >= kMaxSessions) return SendJson(res, 503, { error: 'too many sessions' });
    const session = randomUUID();
    sessions.add(session);
    return SendJson(
      res,
      200,
      Result(message.id, {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'mcpgw-echo-fixture', version: '1.0.0' },
      }),
      { 'mcp-session-id': session },
    );
  }
  switch (message.method) {
    case 'tools/list':
      return SendJson(
        res,
        200,
        Result(message.id, {
          tools: [
            { name: 'rpc', description: 'Answers a JSON-RPC error echoing the request.', inputSchema: { type: 'object' } },
            {
              name: 'text',
              description: 'Answers isError echoing the request.',
              inputSchema: { type: 'object' },
              annotations: { readOnlyHint: true },
            },
            { name: 'ok', description: 'Answers "ok".', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
          ],
        }),
      );
    case 'tools/call':
      process.stdout.write(`BODY ${text}\n`);
      if (message.params && message.params.name === 'ok') {
        return SendJson(res, 200, Result(message.id, { content: [{ type: 'text', text: 'ok' }] }));
      }
      if (message.params && message.params.name === 'text') {
        return SendJson(res, 200, Result(message.id, { content: [{ type: 'text', text: Echo(req) }], isError: true }));
      }
      return SendJson(res, 200, RpcError(message.id, -32603, Echo(req)));
    default:
      return SendJson(res, 200, Result(message.id, {}));
  }
}

if (flags['tls-dir']) {
  const items = flags['tls-listen'].split(',').filter((item) => item);
  for (const { item, port } of await ListenTls(Handle, flags['tls-dir'], items)) {
    process.stdout.write(`TLS ${item} ${port}\n`);
  }
}
Listen(Handle, flags.port);
