#!/usr/bin/env node
// Hostile local peers for socket_abuse.sh: while calls are in flight on one
// connection, other connections send random bytes, invalid JSON, frames over
// the daemon's bound, half-written frames, requests before hello, too many
// requests at once, and too many connections; some hang up abruptly. Prints
// one `PASS <name>` or `FAIL <name>: <detail>` line per check.
// Usage: node abuse.mjs SOCKET MAX_FRAME_BYTES MAX_CONNECTIONS MAX_IN_FLIGHT

import net from 'node:net';
import { randomBytes } from 'node:crypto';

const [socketPath, maxFrameArg, maxConnArg, maxInFlightArg] = process.argv.slice(2);
const kMaxFrame = Number(maxFrameArg);
const kMaxConnections = Number(maxConnArg);
const kMaxInFlight = Number(maxInFlightArg);
const kSlowMs = 4000;
let failed = 0;

function Report(ok, name, detail = '') {
  if (!ok) failed++;
  console.log(ok ? `PASS ${name}` : `FAIL ${name}: ${String(detail).slice(0, 400)}`);
}
const Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A connection that collects reply frames and notices when it is closed.
class Conn {
  constructor() {
    this.frames = [];
    this.closed = false;
    this.waiters = [];
    this.buf = '';
    this.sock = net.createConnection(socketPath);
    this.sock.on('data', (d) => {
      this.buf += d.toString('utf8');
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        try {
          this.frames.push(JSON.parse(line));
        } catch {
          this.frames.push({ unparsable: line });
        }
      }
      this.Wake();
    });
    this.sock.on('error', () => {});
    this.sock.on('close', () => {
      this.closed = true;
      this.Wake();
    });
  }
  Wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  Send(text) {
    if (!this.closed) this.sock.write(text);
  }
  Request(id, method, params) {
    this.Send(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  }
  Hello() {
    this.Request('hello', 'hello', { version: 1, client: 'abuse' });
  }
  Call(id, ns, tool, args) {
    this.Request(id, 'call_dynamic_tool', { namespace: ns, toolName: tool, arguments: args });
  }
  // Waits until pred() holds, the connection closes, or ms pass.
  async Until(pred, ms = 10000) {
    const deadline = Date.now() + ms;
    while (!pred() && !this.closed && Date.now() < deadline) {
      await new Promise((r) => {
        this.waiters.push(r);
        setTimeout(r, Math.max(0, deadline - Date.now()));
      });
    }
    return pred();
  }
  Reply(id) {
    return this.frames.find((f) => f.id === id);
  }
  async WaitClosed(ms = 5000) {
    await this.Until(() => false, ms);
    return this.closed;
  }
  Destroy() {
    this.sock.destroy();
  }
}

async function main() {
  // ---- calls in flight on one connection ----
  const busy = new Conn();
  busy.Hello();
  const slow = [0, 1, 2].map((i) => ({ id: `slow-${i}`, ms: kSlowMs + i * 100 }));
  for (const s of slow) busy.Call(s.id, 'sdk', 'slow', { ms: s.ms });
  Report(await busy.Until(() => busy.Reply('hello')), 'the busy connection is greeted', JSON.stringify(busy.frames));

  // ---- hostile connections, a few at a time ----
  const hostile = [];
  const junk = new Conn();
  junk.Send(randomBytes(4096).toString('binary') + '\n' + randomBytes(512).toString('latin1') + '\n');
  hostile.push(junk);
  const invalid = new Conn();
  invalid.Hello();
  invalid.Send('{"jsonrpc":"2.0","id":1,"method":\n');
  invalid.Send('not json at all\n');
  invalid.Send('[1,2,3]\n');
  invalid.Send('{"jsonrpc":"2.0","id":{"an":"object"},"method":"status"}\n');
  invalid.Send('['.repeat(300) + ']'.repeat(300) + '\n');  // deeper than 128, within the frame bound
  invalid.Send('{"jsonrpc":"2.0","id":"still","method":"status","params":{}}\n');
  hostile.push(invalid);
  const early = new Conn();
  early.Request(1, 'status', {});
  hostile.push(early);
  // A frame over the bound, still being written when the daemon judges it.
  const oversize = new Conn();
  oversize.Hello();
  oversize.Send('{"jsonrpc":"2.0","id":2,"method":"status","params":{"pad":"' + 'x'.repeat(kMaxFrame * 2));
  const half = new Conn();
  half.Hello();
  half.Send('{"jsonrpc":"2.0","id":3,"method":"call_dynamic_tool","params":{"namesp');

  Report(await oversize.WaitClosed(), 'a frame over max_frame_bytes closes its connection');
  const frameError = oversize.frames.find((f) => f.id === null && f.error);
  Report(
    !!frameError && /frame exceeded/.test(frameError.error.message),
    'the oversized frame gets an error reply with id null first',
    JSON.stringify(oversize.frames),
  );
  Report(await invalid.Until(() => invalid.Reply('still') || invalid.closed), 'invalid JSON gets answers, not a crash');
  Report(
    !!invalid.Reply('still') && !!invalid.Reply('still').result,
    'a valid request after invalid frames on the same connection is answered',
    JSON.stringify(invalid.frames.slice(4)),
  );
  await early.Until(() => early.frames.length > 0 || early.closed, 3000);
  Report(
    early.frames.some((f) => f.error && /hello/.test(f.error.message)),
    'a request before hello is refused with a hint',
    JSON.stringify(early.frames),
  );
  await junk.Until(() => junk.frames.length > 0 || junk.closed, 3000);
  Report(
    (junk.frames.length > 0 || junk.closed) && junk.frames.every((f) => f.id === null && f.error),
    'random bytes get error replies (or a close), nothing else',
    JSON.stringify(junk.frames).slice(0, 300),
  );

  // Abrupt hang-ups: mid-frame, and right after connecting.
  half.Destroy();
  for (let i = 0; i < 3; i++) new Conn().Destroy();
  for (const c of hostile) c.Destroy();
  await Sleep(300);

  // ---- too many requests on one connection ----
  const greedy = new Conn();
  greedy.Hello();
  await greedy.Until(() => greedy.Reply('hello'));
  for (let i = 0; i <= kMaxInFlight; i++) greedy.Call(`g-${i}`, 'sdk', 'slow', { ms: 300 });
  const over = `g-${kMaxInFlight}`;
  await greedy.Until(() => greedy.Reply(over));
  const overReply = greedy.Reply(over);
  Report(
    !!overReply && !!overReply.error && /in flight/.test(overReply.error.message),
    `request ${kMaxInFlight + 1} of one connection gets "too many requests in flight"`,
    JSON.stringify(greedy.frames),
  );
  const allAnswered = await greedy.Until(() => greedy.frames.filter((f) => /^g-/.test(f.id)).length === kMaxInFlight + 1);
  Report(
    allAnswered && [...Array(kMaxInFlight).keys()].every((i) => greedy.Reply(`g-${i}`).result?.text === 'slept 300 ms'),
    'the requests within the bound complete',
    JSON.stringify(greedy.frames),
  );
  greedy.Destroy();
  await Sleep(300);

  // ---- too many connections from one uid ----
  // They send nothing until the daemon has judged them all, so the refused
  // one can read its error before it would write into a closed socket.
  const extra = [];
  for (let i = 0; i < kMaxConnections; i++) extra.push(new Conn());
  await Promise.all(extra.map((c) => c.Until(() => c.closed, 700)));
  for (const c of extra) c.Hello();
  // `busy` is open too, so exactly one of these is over the bound.
  await Promise.all(extra.map((c) => c.Until(() => c.Reply('hello') || c.closed, 5000)));
  const refused = extra.filter((c) => c.closed && !c.Reply('hello'));
  const served = extra.filter((c) => !!c.Reply('hello'));
  Report(
    refused.length === 1 && served.length === kMaxConnections - 1,
    `connection ${kMaxConnections + 1} of one uid is refused, the others are served`,
    `refused ${refused.length}, served ${served.length}`,
  );
  Report(
    refused.length === 1 && refused[0].frames.some((f) => f.id === null && /too many connections/.test(f.error?.message ?? '')),
    'the refused connection is told why',
    refused.map((c) => JSON.stringify(c.frames)).join(' '),
  );
  for (const c of extra) c.Destroy();

  // ---- the calls in flight all along complete with their own results ----
  const done = await busy.Until(() => slow.every((s) => busy.Reply(s.id)), kSlowMs + 10000);
  for (const s of slow) {
    const r = busy.Reply(s.id);
    Report(done && r?.result?.text === `slept ${s.ms} ms`, `in-flight call ${s.id} completes with its result`, JSON.stringify(r));
  }
  busy.Destroy();
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.log(`FAIL abuse driver: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
