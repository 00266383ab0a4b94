#!/usr/bin/env node
/**
 * Micro-benchmark: parse rate of @ianode/rdf's N-Triples line parser (fed string chunks, one
 * string, and UTF-8 bytes through parseQuadKeyStream) against N3.js on 1M generated triples
 * (fixed seed), checking that each run returns every triple. Prints medians of 5 rounds.
 *
 *   npm run bench:parse [-- triples]      (or: npx tsc -b packages/rdf && node bench/parse.mjs [triples])
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Parser } from 'n3';
import { createQuadKeyParser, parseQuadKeyStream, parseQuadKeys } from '@ianode/rdf';
import { mulberry32 } from './lib/random.mjs';

const N = Number(process.argv[2] ?? 1_000_000);
const CHUNK = 64 * 1024;

function generate(n) {
  const random = mulberry32(42); // a fixed seed: every run parses the same document
  const lines = [];
  const XSD = 'http://www.w3.org/2001/XMLSchema#';
  for (let i = 0; i < n; i++) {
    const s = `<http://example.org/resource/r${Math.floor(random() * n / 10)}>`;
    const p = `<http://example.org/vocab/p${Math.floor(random() * 40)}>`;
    const k = random();
    let o;
    if (k < 0.4) o = `<http://example.org/resource/r${Math.floor(random() * n / 10)}>`;
    else if (k < 0.6) o = `"${Math.floor(random() * 1e6)}"^^<${XSD}integer>`;
    else if (k < 0.75) o = `"label number ${i}"@en`;
    else if (k < 0.9) o = `"a plain string value ${Math.floor(random() * 1e5)}"`;
    else if (k < 0.95) o = `_:b${Math.floor(random() * 1000)}`;
    else o = `"escaped \\"quote\\" and \\n line ${i}"`;
    lines.push(`${s} ${p} ${o} .\n`);
  }
  return lines.join('');
}

/** Runs `parse` and returns its rate in triples/s, after checking it saw every triple. */
async function rate(label, parse) {
  const start = performance.now();
  const count = await parse();
  const seconds = (performance.now() - start) / 1000;
  if (count !== N) throw new Error(`${label}: parsed ${count} triples, expected ${N}`);
  return N / seconds;
}

function ours(text) {
  let count = 0;
  const parser = createQuadKeyParser({ format: 'application/n-triples' }, () => count++);
  for (let i = 0; i < text.length; i += CHUNK) parser.feed(text.slice(i, i + CHUNK));
  parser.end();
  return count;
}

function oursWhole(text) {
  let count = 0;
  parseQuadKeys(text, { format: 'application/n-triples' }, () => count++);
  return count;
}

async function oursBytes(bytes) {
  let count = 0;
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
  }
  await parseQuadKeyStream(chunks(), { format: 'application/n-triples' }, () => count++);
  return count;
}

async function n3Async(text) {
  return new Promise((resolve, reject) => {
    let count = 0;
    new Parser({ format: 'N-Triples' }).parse(text, {
      onQuad: (error, q) => (error ? reject(error) : q ? count++ : resolve(count)),
    });
  });
}

const text = generate(N);
console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown cpu'} (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}), ${N.toLocaleString('en')} triples, ${(text.length / 1e6).toFixed(0)} MB`);
const ROUNDS = 5;
const bytes = Buffer.from(text, 'utf8');
const rates = { ours: [], whole: [], bytes: [], n3: [] };
for (let round = 0; round < ROUNDS; round++) {
  rates.ours.push(await rate('@ianode/rdf', () => ours(text)));
  rates.whole.push(await rate('@ianode/rdf string', () => oursWhole(text)));
  rates.bytes.push(await rate('@ianode/rdf bytes', () => oursBytes(bytes)));
  rates.n3.push(await rate('n3', () => n3Async(text)));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (r) => Math.round(r).toLocaleString('en').padStart(11);
const labels = [
  ['@ianode/rdf, 64 KiB string chunks', 'ours'],
  ['@ianode/rdf, one string', 'whole'],
  ['@ianode/rdf, 64 KiB UTF-8 byte chunks', 'bytes'],
  ['n3 Parser (format N-Triples), string', 'n3'],
];
for (const [label, key] of labels) {
  console.log(`${label.padEnd(40)} median ${fmt(median(rates[key]))} triples/s  best ${fmt(Math.max(...rates[key]))}  (${ROUNDS} rounds)`);
}
console.log(`speed-up over n3 (median, string chunks): ${(median(rates.ours) / median(rates.n3)).toFixed(1)}x`);
