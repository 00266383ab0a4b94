#!/usr/bin/env node
// `npm run bench:wire`: how long a 12,000 × 4 SELECT takes on the wire, per result format, against
// the time to compute it. Fixed-seed data in an in-process graph server (open mode, loopback); every
// answer is checked (row count, the bytes of each format equal across runs). Prints the machine,
// the load average before and after, and medians.
//
//   node bench/wire.mjs [--rows 12000] [--runs 15] [--seed 42] [--json]
/* global fetch, performance */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGraphServer } from '@ianode/graph-server';
import { executeQuery, serialiseResult } from '@ianode/sparql';
import { mulberry32 } from './lib/random.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
};
const ROWS = option('rows', 12_000);
const RUNS = option('runs', 15);
const SEED = option('seed', 42);
const JSON_OUT = args.includes('--json');

// Data: ROWS subjects, each with a name (unique, with quotes, backslashes, tabs, commas, `<`, `&`,
// non-ASCII and astral characters now and then), a type (one of 20 IRIs), an age (one of 90
// integers) and a language-tagged label (one of 50). Names repeat nothing; the rest repeat a lot.
const random = mulberry32(SEED);
const TRICKY = ['"', '\\', '\t', ',', '<', '&', '\n', 'é', '😀', "'", ' '];
const lines = [];
for (let i = 0; i < ROWS; i++) {
  let name = `person ${i}`;
  if (random() < 0.2) name += TRICKY[Math.floor(random() * TRICKY.length)] + 'x';
  const s = `<http://example.org/person/${i}>`;
  lines.push(`${s} <http://example.org/name> ${JSON.stringify(name)} .`);
  lines.push(`${s} <http://example.org/type> <http://example.org/Type${Math.floor(random() * 20)}> .`);
  lines.push(`${s} <http://example.org/age> "${Math.floor(random() * 90)}"^^<http://www.w3.org/2001/XMLSchema#integer> .`);
  lines.push(`${s} <http://example.org/label> "label ${Math.floor(random() * 50)}"@en .`);
}
const QUERY = `SELECT ?s ?name ?type ?age WHERE {
  ?s <http://example.org/name> ?name ; <http://example.org/type> ?type ; <http://example.org/age> ?age }`;

// The same rows as a CONSTRUCT: 3 triples a row.
const CONSTRUCT = `CONSTRUCT { ?s <http://example.org/name> ?name ; <http://example.org/type> ?type ; <http://example.org/age> ?age } WHERE {
  ?s <http://example.org/name> ?name ; <http://example.org/type> ?type ; <http://example.org/age> ?age }`;

// [label, media type, query, rows expected, count of rows in the text]
const FORMATS = [
  ['JSON', 'application/sparql-results+json', QUERY, ROWS, (t) => JSON.parse(t).results.bindings.length],
  ['XML', 'application/sparql-results+xml', QUERY, ROWS, (t) => t.split('<result>').length - 1],
  ['CSV', 'text/csv', QUERY, ROWS, (t) => t.split('\r\n').length - 2],
  ['TSV', 'text/tab-separated-values', QUERY, ROWS, (t) => t.split('\n').length - 2],
  ['N-Triples', 'application/n-triples', CONSTRUCT, ROWS * 3, (t) => t.split('\n').length - 1],
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

const server = await createGraphServer({ limits: { resultRows: 0 } }, { logger: false });
await server.store.load(lines.join('\n') + '\n', { format: 'application/n-triples' });
const base = await server.listen({ port: 0 });

const loadBefore = load();
console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`);
console.log(`${ROWS} rows × 4 variables, seed ${SEED}, ${RUNS} runs per measure (after 3 warm-up runs); load average ${loadBefore}`);

const fail = (message) => {
  console.error(`wrong answer: ${message}`);
  process.exitCode = 1;
};

/** Median ms of `fn` over RUNS runs after warm-up runs; `fn` returns something to check. */
async function measure(fn, check) {
  for (let i = 0; i < 3; i++) check(await fn());
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const out = await fn();
    times.push(performance.now() - t0);
    check(out);
  }
  return median(times);
}

const results = {};
// Compute only: evaluate the query and pull every solution (every term decoded), no text. The
// "× compute" column divides by the SELECT's compute time (the CONSTRUCT's for N-Triples).
results.compute = await measure(() => {
  let n = 0;
  for (const solution of executeQuery(server.store, QUERY).solutions) {
    for (const v of ['s', 'name', 'type', 'age']) if (solution.get(v) !== undefined) n++;
  }
  return n;
}, (n) => n === ROWS * 4 || fail(`compute: ${n} bound values, expected ${ROWS * 4}`));

results['compute CONSTRUCT'] = await measure(() => {
  let n = 0;
  for (const q of executeQuery(server.store, CONSTRUCT).quads) if (q.object !== undefined) n++;
  return n;
}, (n) => n === ROWS * 3 || fail(`compute CONSTRUCT: ${n} quads, expected ${ROWS * 3}`));

for (const [label, type, query, rows, count] of FORMATS) {
  let bytes;
  const same = (text) => {
    if (bytes === undefined) bytes = text;
    else if (text !== bytes) fail(`${label}: the body changed between runs`);
  };
  // Compute + serialise, in process (no HTTP).
  results[`${label} serialise`] = await measure(async () => {
    let text = '';
    for await (const chunk of serialiseResult(executeQuery(server.store, query), type)) text += chunk;
    return text;
  }, (text) => {
    same(text);
    if (count(text) !== rows) fail(`${label} serialise: ${count(text)} rows, expected ${rows}`);
  });
  // The whole request over loopback HTTP.
  results[`${label} HTTP`] = await measure(async () => {
    const response = await fetch(`${base}/ds/query?query=${encodeURIComponent(query)}`, { headers: { accept: type } });
    return { status: response.status, text: await response.text() };
  }, ({ status, text }) => {
    if (status !== 200) fail(`${label} HTTP: status ${status}`);
    same(text);
    if (count(text) !== rows) fail(`${label} HTTP: ${count(text)} rows, expected ${rows}`);
  });
  results[`${label} bytes`] = Buffer.byteLength(bytes);
}
await server.close();

const loadAfter = load();
console.log('');
console.log('measure'.padEnd(22), 'median ms'.padStart(10), '× compute'.padStart(10));
for (const [name, ms] of Object.entries(results)) {
  if (name.endsWith('bytes')) continue;
  const compute = name.startsWith('N-Triples') || name.endsWith('CONSTRUCT') ? results['compute CONSTRUCT'] : results.compute;
  console.log(name.padEnd(22), ms.toFixed(1).padStart(10), (ms / compute).toFixed(2).padStart(10));
}
console.log('');
console.log(`bytes: ${FORMATS.map(([label]) => `${label} ${results[`${label} bytes`]}`).join(', ')}`);
console.log(`load average before ${loadBefore}, after ${loadAfter}`);
if (JSON_OUT) {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'out');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `wire-${ROWS}.json`);
  fs.writeFileSync(file, JSON.stringify({ node: process.version, cpu: os.cpus()[0]?.model, cores: os.cpus().length, rows: ROWS, runs: RUNS, seed: SEED, loadBefore, loadAfter, medianMs: results }, null, 2));
  console.log(`wrote ${file}`);
}
