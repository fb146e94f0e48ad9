#!/usr/bin/env node
// The demo's MCP server: three small tools (echo, add, now) on Streamable
// HTTP at http://127.0.0.1:<port>/mcp, stateful sessions, built with the
// official SDK's McpServer; with --stdio, the same tools on stdin and stdout,
// as a local server the daemon runs (demo/mcp.json's "local-example").
// scripts/demo.sh starts the HTTP one; it needs tests/fixtures/node_modules
// (scripts/install-node-deps.sh).
// Usage: node demo/demo-server.mjs [--port 8931 | --stdio]

import { randomUUID } from 'node:crypto';
import { Listen, ParseFlags, ReadBody, SendJson } from '../tests/fixtures/lib/common.mjs';
import {
  McpServer, StdioServerTransport, StreamableHTTPServerTransport, isInitializeRequest, z,
} from '../tests/fixtures/lib/sdk.mjs';

const flags = ParseFlags(process.argv.slice(2), { port: 8931, stdio: false });
const kMaxSessions = 32;
const sessions = new Map();  // session id -> transport

function NewServer() {
  const server = new McpServer({ name: 'mcpgw-demo', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Repeats the given text back, unchanged.',
      inputSchema: { text: z.string().describe('The text to repeat') },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers and answers the sum.',
      inputSchema: { a: z.number().describe('First addend'), b: z.number().describe('Second addend') },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'now',
    {
      title: 'Now',
      description: 'Answers the current date and time in UTC (ISO 8601).',
      inputSchema: {},
    },
    async () => ({ content: [{ type: 'text', text: new Date().toISOString() }] }),
  );
  return server;
}

async function Handle(req, res) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (path !== '/mcp') {
    SendJson(res, 404, { error: 'not found; the MCP endpoint is /mcp' });
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  let body;
  if (req.method === 'POST') {
    const text = await ReadBody(req);
    if (text === null) return SendJson(res, 413, { error: 'body too large' });
    try {
      body = JSON.parse(text);
    } catch {
      return SendJson(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    }
  }
  if (sessionId !== undefined) {
    const transport = sessions.get(sessionId);
    if (!transport) {
      return SendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    }
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== 'POST' || !isInitializeRequest(body)) {
    return SendJson(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no session id' }, id: null });
  }
  if (sessions.size >= kMaxSessions) return SendJson(res, 503, { error: 'too many sessions' });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
    onsessionclosed: (id) => sessions.delete(id),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await NewServer().connect(transport);
  return transport.handleRequest(req, res, body);
}

if (flags.stdio) {
  await NewServer().connect(new StdioServerTransport());
} else {
  Listen(Handle, flags.port, async () => {
    for (const transport of sessions.values()) await transport.close().catch(() => {});
  });
}
