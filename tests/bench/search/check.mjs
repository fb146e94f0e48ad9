// Validates the tool-search evaluation set: listings/*.json and requests.json.
//   node check.mjs            prints a summary; exits 1 on any problem
// No dependencies. Checks: every listing is an array of tools with unique
// names and an inputSchema; every request names a namespace/tool that exists,
// has a known kind and split, and is not a duplicate; no tool is the answer
// more than 3 times; every server has at least one request; at least 120
// requests, at least 40% paraphrases; dev/test split about half within each
// kind; a paraphrase shares at most 2 content words with its tool's name,
// title and description (product names and URLs aside).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const problems = [];
const problem = (m) => problems.push(m);

// ---- listings
const listings = new Map(); // namespace -> Map(name -> tool)
for (const f of fs.readdirSync(path.join(HERE, 'listings')).filter((f) => f.endsWith('.json')).sort()) {
  const ns = f.slice(0, -5);
  let tools;
  try {
    tools = JSON.parse(fs.readFileSync(path.join(HERE, 'listings', f), 'utf8'));
  } catch (e) {
    problem(`listings/${f}: not JSON (${e.message})`);
    continue;
  }
  if (!Array.isArray(tools) || tools.length === 0) { problem(`listings/${f}: not a non-empty array`); continue; }
  const byName = new Map();
  for (const t of tools) {
    if (typeof t?.name !== 'string' || !t.name) { problem(`listings/${f}: a tool without a name`); continue; }
    if (byName.has(t.name)) problem(`listings/${f}: tool ${t.name} listed twice`);
    if (typeof t.inputSchema !== 'object' || t.inputSchema === null) problem(`listings/${f}: ${t.name} has no inputSchema`);
    byName.set(t.name, t);
  }
  listings.set(ns, byName);
}
if (listings.size < 10) problem(`only ${listings.size} listings, want at least 10`);

// ---- word overlap (a rough measure of how much a request borrows from its tool's text)
const STOP = new Set(`a an the and or but of to in on for with by from at as is are be been being was were it its
this that these those i me my mine we us our you your he she him her they them their what which who whom whose how why
when where there here do does did done doing can could should would will shall may might must not no nor so if then
than too very just also any all some every each other another more most much many few own same such only over under
into onto out up down off about again once both either neither per via vs let lets im its dont isnt ive youve thats
whats whos hes shes theyre were please get got make made use using used give show tell want need one two three
new something anything everything`.split(/\s+/));
const PRODUCTS = new Set(`github gitlab slack postgres postgresql puppeteer brave google maps redis playwright notion
context7 chrome devtools kubernetes kubectl k8s firecrawl desktop commander dc mongodb mongo azure devops ado jira
linear sentry filesystem mcp`.split(/\s+/));
function stem(w) {
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 4 && /(s|x|z|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  return w;
}
function words(text) {
  const out = new Set();
  const plain = text.replace(/https?:\/\/\S+/g, ' ').replace(/'/g, '');
  for (const w of plain.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (w.length < 2 || STOP.has(w) || PRODUCTS.has(w)) continue;
    out.add(stem(w));
  }
  return out;
}
const toolWords = (t) => words([t.name.replace(/([a-z])([A-Z])/g, '$1 $2'), t.title ?? '', t.description ?? ''].join(' '));

// ---- requests
let requests;
try {
  requests = JSON.parse(fs.readFileSync(path.join(HERE, 'requests.json'), 'utf8'));
} catch (e) {
  console.error(`requests.json: ${e.message}`);
  process.exit(1);
}
if (!Array.isArray(requests)) { console.error('requests.json: not an array'); process.exit(1); }

const KINDS = ['direct', 'paraphrase'];
const SPLITS = ['dev', 'test'];
const perTool = new Map();
const perNs = new Map();
const cells = new Map(); // "kind/split" -> count
const overlap = { direct: [], paraphrase: [] };
const seen = new Set();
requests.forEach((r, i) => {
  const at = `requests[${i}]`;
  const keys = Object.keys(r).sort().join(',');
  if (keys !== 'kind,namespace,request,split,tool') problem(`${at}: fields are ${keys}, want kind,namespace,request,split,tool`);
  if (typeof r.request !== 'string' || r.request.trim().length < 8) problem(`${at}: request text missing or too short`);
  const norm = String(r.request).toLowerCase().replace(/\s+/g, ' ').trim();
  if (seen.has(norm)) problem(`${at}: duplicate request "${r.request}"`);
  seen.add(norm);
  if (!KINDS.includes(r.kind)) problem(`${at}: kind "${r.kind}"`);
  if (!SPLITS.includes(r.split)) problem(`${at}: split "${r.split}"`);
  const tools = listings.get(r.namespace);
  const tool = tools?.get(r.tool);
  if (!tools) problem(`${at}: no listing for namespace "${r.namespace}"`);
  else if (!tool) problem(`${at}: ${r.namespace} has no tool "${r.tool}"`);
  const id = `${r.namespace}/${r.tool}`;
  perTool.set(id, (perTool.get(id) ?? 0) + 1);
  perNs.set(r.namespace, (perNs.get(r.namespace) ?? 0) + 1);
  cells.set(`${r.kind}/${r.split}`, (cells.get(`${r.kind}/${r.split}`) ?? 0) + 1);
  if (tool && KINDS.includes(r.kind)) {
    const tw = toolWords(tool);
    const shared = [...words(r.request)].filter((w) => tw.has(w));
    overlap[r.kind].push(shared.length);
    if (r.kind === 'paraphrase' && shared.length > 2) {
      problem(`${at}: a paraphrase that shares ${shared.length} words with ${id} (${shared.join(', ')}): "${r.request}"`);
    }
  }
});

for (const [id, n] of perTool) if (n > 3) problem(`${id} is the answer ${n} times (at most 3)`);
for (const ns of listings.keys()) if (!perNs.has(ns)) problem(`no request for server ${ns}`);
if (requests.length < 120) problem(`${requests.length} requests, want at least 120`);
const count = (kind, split) => cells.get(`${kind}/${split}`) ?? 0;
const nPara = count('paraphrase', 'dev') + count('paraphrase', 'test');
if (nPara < 0.4 * requests.length) problem(`${nPara} paraphrases of ${requests.length}, want at least 40%`);
for (const k of KINDS) {
  const d = count(k, 'dev'), t = count(k, 'test');
  if (Math.abs(d - t) > 1) problem(`${k}: ${d} dev vs ${t} test, want about half each`);
}

// ---- summary
const totalTools = [...listings.values()].reduce((a, m) => a + m.size, 0);
const mean = (a) => (a.length ? (a.reduce((x, y) => x + y, 0) / a.length).toFixed(2) : '-');
console.log(`servers: ${listings.size}, tools: ${totalTools}`);
console.log(`requests: ${requests.length}, distinct answer tools: ${perTool.size}, max uses of one tool: ${Math.max(0, ...perTool.values())}`);
console.log('            dev  test  all');
for (const k of KINDS) {
  const d = count(k, 'dev'), t = count(k, 'test');
  console.log(`${k.padEnd(11)} ${String(d).padStart(4)} ${String(t).padStart(5)} ${String(d + t).padStart(4)}`);
}
console.log(`all         ${String(count('direct', 'dev') + count('paraphrase', 'dev')).padStart(4)} ${String(count('direct', 'test') + count('paraphrase', 'test')).padStart(5)} ${String(requests.length).padStart(4)}`);
console.log(`content words shared with the tool's text, mean: direct ${mean(overlap.direct)}, paraphrase ${mean(overlap.paraphrase)}`);
console.log('requests per server: ' + [...listings.keys()].map((ns) => `${ns} ${perNs.get(ns) ?? 0}/${listings.get(ns).size}`).join(', '));
if (problems.length) {
  console.log(`\n${problems.length} problem(s):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('OK');
