// Assigns each request of requests.json to "dev" or "test": within each kind,
// a shuffle with a fixed seed, the first half (rounded down) to dev. Rewrites
// requests.json in place, one request a line. Run after adding requests; the
// ranking is tuned on dev only, so do not re-split once tuning has begun.
//   node split.mjs [--seed N]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(HERE, 'requests.json');
const i = process.argv.indexOf('--seed');
const seed = i > 0 ? Number(process.argv[i + 1]) : 20251201;

function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const requests = JSON.parse(fs.readFileSync(file, 'utf8'));
const rand = mulberry32(seed);
for (const kind of [...new Set(requests.map((r) => r.kind))].sort()) {
  const idx = requests.map((r, j) => (r.kind === kind ? j : -1)).filter((j) => j >= 0);
  for (let j = idx.length - 1; j > 0; j--) { // Fisher-Yates
    const k = Math.floor(rand() * (j + 1));
    [idx[j], idx[k]] = [idx[k], idx[j]];
  }
  idx.forEach((j, n) => { requests[j].split = n < Math.floor(idx.length / 2) ? 'dev' : 'test'; });
}
const line = (r) => JSON.stringify({ request: r.request, namespace: r.namespace, tool: r.tool, kind: r.kind, split: r.split });
fs.writeFileSync(file, '[\n' + requests.map((r) => '  ' + line(r)).join(',\n') + '\n]\n');
console.log(`split ${requests.length} requests with seed ${seed}`);
