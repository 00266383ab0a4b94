/**
 * Bulk load benchmark: the same BSBM-like N-Triples file loaded by ianode and by peers, each run in
 * its own process. Reports medians, ratios and the machine. Not a test: nothing here passes or
 * fails on time; it fails only when a store does not hold exactly the file's triples afterwards.
 *
 *   npm run bench:load -- --triples 1000000 [--seed 42] [--runs 3] [--engines ianode,oxigraph,n3]
 *                         [--json] [--timeout 3600] [--heap 16384]
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseArgs, parseCount } from './lib/args.mjs';
import { ensureBsbmFile } from './lib/bsbm.mjs';
import { ENGINES } from './lib/engines/engine.mjs';
import { runChild } from './lib/run-child.mjs';
import { machine, ratios, summarise, table, versionOf } from './lib/report.mjs';

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const log = (/** @type {string} */ msg) => process.stderr.write(msg + '\n');

const args = parseArgs(process.argv.slice(2), {
  triples: '1000000', seed: 42, runs: 0, engines: ENGINES.join(','), json: false, timeout: 3600, heap: 16384,
});
const triples = parseCount(args.triples);
const seed = Number(args.seed);
const runs = Number(args.runs) || (triples <= 1_000_000 ? 3 : 1);
const engines = String(args.engines).split(',').map((e) => e.trim()).filter(Boolean);
for (const e of engines) if (!ENGINES.includes(e)) throw new TypeError(`unknown engine ${e} (known: ${ENGINES.join(', ')})`);

const host = machine();
const versions = { oxigraph: versionOf('oxigraph'), n3: versionOf('n3') };
console.log(`# bulk load, BSBM-like N-Triples, ${triples.toLocaleString('en-US')} triples, seed ${seed}`);
console.log(`# ${host.cpu}, ${host.cores} cores, ${(host.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${host.os}, node ${host.node}`);
console.log(`# oxigraph ${versions.oxigraph}, n3 ${versions.n3}; median of ${runs} run(s) per engine, one process per run`);

const data = await ensureBsbmFile({ triples, seed, dir: OUT, log });
log(`data: ${data.file} (${(data.bytes / 2 ** 20).toFixed(1)} MiB${data.cached ? ', cached' : ''})`);

/** @type {Map<string, import('./lib/run-child.mjs').LoadMeasurement[]>} */
const results = new Map(engines.map((e) => [e, []]));
const stopped = new Set();
for (let run = 1; run <= runs; run++) {
  for (const engine of engines) {
    if (stopped.has(engine)) continue;
    const r = await runChild({ engine, file: data.file, triples, timeoutSeconds: Number(args.timeout), heapMiB: Number(args.heap) });
    results.get(engine)?.push(r);
    if (r.unavailable) log(`${engine}: unavailable: ${r.unavailable}`);
    else if (r.error) log(`${engine} run ${run}/${runs}: FAILED: ${r.error}`);
    else log(`${engine} run ${run}/${runs}: ${r.seconds?.toFixed(2)} s, ${Math.round(r.triplesPerSecond ?? 0).toLocaleString('en-US')} triples/s, ${r.bytesPerQuad?.toFixed(0)} B/quad`);
    if (r.error || r.unavailable) stopped.add(engine);
  }
}

const rows = engines.map((e) => summarise(e, results.get(e) ?? [], triples));
console.log('');
console.log(table(rows));
for (const r of rows) for (const f of r.failures) console.log(`# ${r.engine}: ${f}`);

const base = rows.find((r) => r.engine === 'ianode' && r.runs > 0) ?? rows.find((r) => r.runs > 0);
const rel = base ? ratios(rows, base.engine) : {};
if (base && base.engine !== 'ianode') console.log(`# ianode has no result; ratios below are relative to ${base.engine}`);
for (const [peer, q] of Object.entries(rel)) {
  console.log(`${base?.engine} / ${peer}: load rate ×${q.rate.toFixed(2)}, bytes per quad ×${q.bytesPerQuad.toFixed(2)}`);
}

if (args.json) {
  await mkdir(OUT, { recursive: true });
  const file = join(OUT, `load-${triples}.json`);
  const raw = Object.fromEntries(results);
  await writeFile(file, JSON.stringify({ machine: host, versions, triples, seed, runs, data, summary: rows, ratios: { base: base?.engine, ...rel }, raw }, null, 2) + '\n');
  log(`wrote ${file}`);
}

// Exit status reflects correctness only: a wrong quad count anywhere, or ianode failing to load.
const mismatch = [...results.values()].flat().some((r) => r.countMismatch);
const ianodeFailed = (results.get('ianode') ?? []).some((r) => r.error);
if (mismatch || ianodeFailed) process.exitCode = 1;
