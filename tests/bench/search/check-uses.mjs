// Validates uses.json: requests that led to a tool, for teaching the
// gateway's learned search words (the dev side of the learning protocol).
//   node check-uses.mjs       prints a summary; exits 1 on any problem
// No dependencies. Checks: uses.json is a JSON array of
// {"request", "namespace", "tool", "kind"}; every namespace/tool exists in
// listings/; each tool has 1 to 5 uses; no request appears twice; kind is
// direct or paraphrase; a paraphrase shares at most 2 content words with its
// tool's name, title and description. Content words follow check.mjs's rules:
// lower case, URLs and apostrophes dropped, tokens of letters and digits of
// length 2 or more, minus its stop words and product names, then its stem().

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const errors = [];
const fail = (msg) => errors.push(msg);

// Stop words and product names: the same sets as check.mjs uses.
const STOP_WORDS = new Set([
  'a', 'about', 'again', 'all', 'also', 'an', 'and', 'another', 'any', 'anything', 'are', 'as', 'at',
  'be', 'been', 'being', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'done',
  'dont', 'down', 'each', 'either', 'every', 'everything', 'few', 'for', 'from', 'get', 'give', 'got',
  'he', 'her', 'here', 'hes', 'him', 'how', 'i', 'if', 'im', 'in', 'into', 'is', 'isnt', 'it',
  'its', 'ive', 'just', 'let', 'lets', 'made', 'make', 'many', 'may', 'me', 'might', 'mine', 'more',
  'most', 'much', 'must', 'my', 'need', 'neither', 'new', 'no', 'nor', 'not', 'of', 'off', 'on', 'once',
  'one', 'only', 'onto', 'or', 'other', 'our', 'out', 'over', 'own', 'per', 'please', 'same', 'shall',
  'she', 'shes', 'should', 'show', 'so', 'some', 'something', 'such', 'tell', 'than', 'that', 'thats',
  'the', 'their', 'them', 'then', 'there', 'these', 'they', 'theyre', 'this', 'those', 'three', 'to',
  'too', 'two', 'under', 'up', 'us', 'use', 'used', 'using', 'very', 'via', 'vs', 'want', 'was', 'we',
  'were', 'what', 'whats', 'when', 'where', 'which', 'who', 'whom', 'whos', 'whose', 'why', 'will',
  'with', 'would', 'you', 'your', 'youve',
]);
const PRODUCT_NAMES = new Set([
  'ado', 'azure', 'brave', 'chrome', 'commander', 'context7', 'dc', 'desktop', 'devops', 'devtools', 'filesystem',
  'firecrawl', 'github', 'gitlab', 'google', 'jira', 'k8s', 'kubectl', 'kubernetes', 'linear', 'maps',
  'mcp', 'mongo', 'mongodb', 'notion', 'playwright', 'postgres', 'postgresql', 'puppeteer', 'redis',
  'sentry', 'slack',
]);

// Light suffix stripping, in the same order of cases as check.mjs's stem().
function stemOf(word) {
  const n = word.length;
  if (n > 4 && word.endsWith('ies')) return `${word.slice(0, n - 3)}y`;
  if (n > 4 && /(?:s|x|z|ch|sh)es$/.test(word)) return word.slice(0, n - 2);
  let w = word;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  return w;
}

function contentWords(text) {
  const cleaned = String(text).replace(/https?:\/\/\S+/g, ' ').replace(/'/g, '').toLowerCase();
  const found = new Set();
  for (const token of cleaned.split(/[^a-z0-9]+/)) {
    if (token.length < 2) continue;
    if (STOP_WORDS.has(token) || PRODUCT_NAMES.has(token)) continue;
    found.add(stemOf(token));
  }
  return found;
}

function toolText(tool) {
  const name = tool.name.replace(/([a-z])([A-Z])/g, '$1 $2');
  return [name, tool.title ?? '', tool.description ?? ''].join(' ');
}

// ---- listings
const catalogue = new Map(); // "ns/tool" -> tool
for (const file of fs.readdirSync(path.join(dir, 'listings')).sort()) {
  if (!file.endsWith('.json')) continue;
  const ns = file.replace(/\.json$/, '');
  let tools;
  try {
    tools = JSON.parse(fs.readFileSync(path.join(dir, 'listings', file), 'utf8'));
  } catch (e) {
    fail(`listings/${file}: ${e.message}`);
    continue;
  }
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (tool && typeof tool.name === 'string') catalogue.set(`${ns}/${tool.name}`, tool);
  }
}

// ---- uses
let uses;
try {
  uses = JSON.parse(fs.readFileSync(path.join(dir, 'uses.json'), 'utf8'));
} catch (e) {
  console.error(`uses.json: ${e.message}`);
  process.exit(1);
}
if (!Array.isArray(uses)) {
  console.error('uses.json: not an array');
  process.exit(1);
}

const KIND_NAMES = ['direct', 'paraphrase'];
const byTool = new Map();
const byKind = { direct: 0, paraphrase: 0 };
const shared = { direct: [], paraphrase: [] };
const texts = new Set();
const toolWordCache = new Map();

uses.forEach((u, i) => {
  const where = `uses[${i}]`;
  if (typeof u !== 'object' || u === null || Array.isArray(u)) { fail(`${where}: not an object`); return; }
  const fields = Object.keys(u).sort().join(',');
  if (fields !== 'kind,namespace,request,tool') fail(`${where}: fields ${fields}, want kind,namespace,request,tool`);
  if (typeof u.request !== 'string' || u.request.trim().length < 8) fail(`${where}: request missing or too short`);
  const key = String(u.request).toLowerCase().replace(/\s+/g, ' ').trim();
  if (texts.has(key)) fail(`${where}: duplicate request "${u.request}"`);
  texts.add(key);
  if (!KIND_NAMES.includes(u.kind)) fail(`${where}: kind "${u.kind}" (want direct or paraphrase)`);
  else byKind[u.kind] += 1;
  const id = `${u.namespace}/${u.tool}`;
  const tool = catalogue.get(id);
  if (!tool) { fail(`${where}: no tool ${id} in listings/`); return; }
  byTool.set(id, (byTool.get(id) ?? 0) + 1);
  if (!KIND_NAMES.includes(u.kind)) return;
  if (!toolWordCache.has(id)) toolWordCache.set(id, contentWords(toolText(tool)));
  const tw = toolWordCache.get(id);
  const common = [...contentWords(u.request)].filter((w) => tw.has(w));
  shared[u.kind].push(common.length);
  if (u.kind === 'paraphrase' && common.length > 2) {
    fail(`${where}: paraphrase shares ${common.length} words with ${id} (${common.join(', ')}): "${u.request}"`);
  }
});

for (const [id, n] of byTool) if (n < 1 || n > 5) fail(`${id} has ${n} uses, want 1 to 5`);

// ---- summary
const avg = (xs) => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2) : '-');
console.log(`uses: ${uses.length}, tools: ${byTool.size}, per tool: ${Math.min(...byTool.values())} to ${Math.max(...byTool.values())}`);
console.log(`kinds: direct ${byKind.direct}, paraphrase ${byKind.paraphrase}`);
console.log(`content words shared with the tool's text, mean: direct ${avg(shared.direct)}, paraphrase ${avg(shared.paraphrase)}`);
if (errors.length) {
  console.log(`\n${errors.length} problem(s):`);
  for (const e of errors) console.log(`  - ${e}`);
  process.exit(1);
}
console.log('OK');
