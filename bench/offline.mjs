/**
 * Offline bulk load, dump and restore (issue 18): the same BSBM-like N-Triples file loaded into an
 * empty folder by `ianode load`, by Apache Jena's `tdb2.tdbloader` and by the native Oxigraph CLI
 * (`oxigraph load`), each a fresh process in the same run; then `ianode dump` and `ianode restore`
 * of the loaded store. Reports seconds, triples/s, peak RSS, bytes per quad on disk and (ianode)
 * resident when the store is opened as the graph server opens it. Not a test: nothing passes or
 * fails on time; the exit status is 1 only when a store holds a different number of quads than the
 * file has triples, or when ianode itself fails. See bench/README.md.
 *
 *   npm run bench:offline -- --triples 10M [--seed 42] [--runs 1] [--engines ianode,jena,oxigraph]
 *                            [--label L] [--no-dump] [--json] [--timeout 7200]
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { parseArgs, parseCount } from './lib/args.mjs';
import { ensureBsbmFile } from './lib/bsbm.mjs';
import { machine, markdownTable, median } from './lib/report.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const OUT = path.join(HERE, 'out');
const CACHE = path.join(homedir(), '.cache', 'ianode');
const JENA_VERSION = '5.6.0';
const OXIGRAPH_VERSION = '0.5.13';
const ENGINES = ['ianode', 'jena', 'oxigraph'];
const log = (/** @type {string} */ msg) => process.stderr.write(msg + '\n');

const args = parseArgs(process.argv.slice(2), {
  triples: '10000000', seed: 42, runs: 0, engines: ENGINES.join(','), label: '', 'no-dump': false, json: false, timeout: 7200, heap: 16384,
  work: '',
});
const triples = parseCount(args.triples);
const seed = Number(args.seed);
const runs = Number(args.runs) || (triples <= 1_000_000 ? 3 : 1);
const engines = String(args.engines).split(',').map((e) => e.trim()).filter(Boolean);
for (const e of engines) if (!ENGINES.includes(e)) throw new TypeError(`unknown engine ${e} (known: ${ENGINES.join(', ')})`);
const label = String(args.label || '');
const timeoutMs = Number(args.timeout) * 1000;

// ---------------------------------------------------------------- measuring a process

/**
 * @typedef {object} Measured
 * @property {number | null} code
 * @property {string | null} signal
 * @property {number} seconds wall time from spawn to exit
 * @property {number | undefined} peakRssBytes the process's maximum resident set (VmHWM, sampled every 50 ms)
 * @property {string} stdout
 * @property {string} stderr
 * @property {[number, number]} load 1-minute load average at the start and the end
 */

/** Run a command to its end, sampling its peak RSS (VmHWM is the kernel's high-water mark, so the
 * last sample before exit is the peak up to then). @returns {Promise<Measured>} */
function measured(cmd, /** @type {string[]} */ argv, { env = process.env, cwd = ROOT } = {}) {
  return new Promise((resolve) => {
    const load0 = loadavg()[0];
    const started = performance.now();
    const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-20_000); });
    /** @type {number | undefined} */
    let peak;
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak ?? 0, Number(m[1]) * 1024);
      } catch {
        // gone already
      }
    };
    const timer = setInterval(sample, 50);
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      stderr += String(error);
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      clearTimeout(killer);
      resolve({ code, signal, seconds: (performance.now() - started) / 1000, peakRssBytes: peak, stdout, stderr, load: [load0, loadavg()[0]] });
    });
  });
}

/** Apparent size of every file under `dir`, in bytes. */
function diskBytes(/** @type {string} */ dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += diskBytes(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}

function which(/** @type {string} */ cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const failed = (/** @type {Measured} */ m) => `exit ${m.code ?? m.signal}${m.signal === 'SIGKILL' ? ' (timed out or killed)' : ''}: ${m.stderr.trim().split('\n').slice(-3).join(' | ')}`;

// ---------------------------------------------------------------- the engines

/**
 * @typedef {object} Engine
 * @property {string} name
 * @property {() => Promise<string | undefined>} available undefined, or why not
 * @property {() => string} version
 * @property {(file: string, dir: string) => Promise<Measured>} load into the empty folder `dir`
 * @property {(dir: string) => Promise<number>} count the quads the folder holds
 */

const node = process.execPath;
const ianodeBin = path.join(ROOT, 'packages/cli/bin/ianode.js');
const heap = `--max-old-space-size=${Number(args.heap)}`;
const holds = (/** @type {string} */ text) => Number(/the store holds (\d+) quads/.exec(text)?.[1] ?? NaN);

/** @type {Engine} */
const ianode = {
  name: 'ianode',
  async available() {
    return existsSync(path.join(ROOT, 'packages/cli/dist/main.js')) ? undefined : 'not built (run tsc -b; npm run bench:offline does)';
  },
  version() {
    return `ianode ${JSON.parse(readFileSync(path.join(ROOT, 'packages/cli/package.json'), 'utf8')).version} (ianode load: one durable transaction, fsync, then a checkpoint), node ${process.version}`;
  },
  load(file, dir) {
    return measured(node, [heap, ianodeBin, 'load', dir, file, '--quiet', ...(label ? ['--label', label] : [])]);
  },
  async count(dir) {
    return open(dir).then((o) => o.quads);
  },
};

/** The store opened as the graph server opens it: quads and resident bytes. */
async function open(/** @type {string} */ dir) {
  const m = await measured(node, ['--expose-gc', heap, path.join(HERE, 'lib/open-store-child.mjs'), dir]);
  if (m.code !== 0) throw new Error(`opening ${dir}: ${failed(m)}`);
  return /** @type {{ quads: number, openSeconds: number, rssBytes: number, heapBytes: number }} */ (JSON.parse(m.stdout));
}

/** Jena's jars (jena-cmds and its dependencies) fetched once with Maven into ~/.cache/ianode. */
async function jenaLib() {
  const home = path.join(CACHE, `jena-cmds-${JENA_VERSION}`);
  const lib = path.join(home, 'lib');
  const marker = path.join(home, 'complete');
  if (existsSync(marker) && readdirSync(lib).some((f) => f.startsWith('jena-cmds-'))) return { lib };
  if (!which('java')) return { unavailable: 'java not found' };
  if (!which('mvn')) return { unavailable: 'mvn not found (needed once to fetch the Jena jars)' };
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, 'pom.xml'), `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.ianode.bench</groupId><artifactId>jena-cmds-classpath</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.jena</groupId><artifactId>jena-cmds</artifactId><version>${JENA_VERSION}</version></dependency>
  </dependencies>
</project>
`);
  log(`  jena: fetching jena-cmds ${JENA_VERSION} and its dependencies with Maven into ${lib}`);
  const r = spawnSync('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`, '-DincludeScope=runtime'], { cwd: home, encoding: 'utf8', timeout: 900_000 });
  if (r.status !== 0) return { unavailable: `mvn dependency:copy-dependencies failed: ${(r.stdout + r.stderr).slice(-500)}` };
  await writeFile(marker, new Date().toISOString() + '\n');
  return { lib };
}

let jenaClasspath = '';
const javaHeap = triples > 3_000_000 ? '-Xmx8g' : '-Xmx4g';
const countQuery = 'SELECT (COUNT(*) AS ?c) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
/** The number in the last line of a one-cell CSV result. */
const csvCount = (/** @type {string} */ text) => Number(text.trim().split(/\r?\n/).at(-1)?.replace(/[^0-9]/g, '') || NaN);

/** @type {Engine} */
const jena = {
  name: 'jena',
  async available() {
    const r = await jenaLib();
    if ('unavailable' in r) return r.unavailable;
    jenaClasspath = `${r.lib}/*`;
    return undefined;
  },
  version() {
    const java = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0]?.trim();
    return `Apache Jena ${JENA_VERSION} tdb2.tdbloader (default loader, ${javaHeap}), ${java}`;
  },
  load(file, dir) {
    return measured('java', [javaHeap, '-cp', jenaClasspath, 'tdb2.tdbloader', '--loc', dir, file]);
  },
  async count(dir) {
    const m = await measured('java', [javaHeap, '-cp', jenaClasspath, 'tdb2.tdbquery', '--loc', dir, '--results=csv', countQuery]);
    if (m.code !== 0) throw new Error(`tdb2.tdbquery: ${failed(m)}`);
    return csvCount(m.stdout);
  },
};

/** The native Oxigraph CLI: OXIGRAPH_BIN, `oxigraph` on PATH, ~/.cargo/bin (cargo install
 * oxigraph-cli), or the prebuilt binary of the `oxigraph` package of PyPI installed once with pip
 * into ~/.cache/ianode (a build from source takes far longer on a 2-core machine). */
function oxigraphBin() {
  const pip = path.join(CACHE, 'oxigraph-cli', 'py', 'bin', 'oxigraph');
  const candidates = [process.env.OXIGRAPH_BIN, which('oxigraph'), path.join(homedir(), '.cargo/bin/oxigraph'), pip];
  const found = candidates.find((c) => c !== undefined && c !== '' && existsSync(c));
  if (found) return { bin: found };
  if (!which('pip') && !which('pip3')) return { unavailable: 'no oxigraph binary and no pip to install the prebuilt one (or `cargo install oxigraph-cli`, set OXIGRAPH_BIN)' };
  log(`  oxigraph: installing the oxigraph ${OXIGRAPH_VERSION} CLI (PyPI package oxigraph) with pip into ${path.dirname(path.dirname(pip))}`);
  const r = spawnSync(which('pip') ?? 'pip3', ['install', '--quiet', '--target', path.dirname(path.dirname(pip)), `oxigraph==${OXIGRAPH_VERSION}`], { encoding: 'utf8', timeout: 900_000 });
  if (r.status !== 0 || !existsSync(pip)) return { unavailable: `pip install oxigraph failed: ${(r.stdout + r.stderr).slice(-500)}` };
  return { bin: pip };
}

let oxigraph_ = '';
/** @type {Engine} */
const oxigraph = {
  name: 'oxigraph',
  async available() {
    const r = oxigraphBin();
    if ('unavailable' in r) return r.unavailable;
    oxigraph_ = /** @type {string} */ (r.bin);
    return undefined;
  },
  version() {
    const v = spawnSync(oxigraph_, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return `${v} (native CLI, \`oxigraph load\`: RocksDB, atomic, default options)`;
  },
  load(file, dir) {
    return measured(oxigraph_, ['load', '--location', dir, '--file', file]);
  },
  async count(dir) {
    const m = await measured(oxigraph_, ['query', '--location', dir, '--query', countQuery, '--results-format', 'csv']);
    if (m.code !== 0) throw new Error(`oxigraph query: ${failed(m)}`);
    return csvCount(m.stdout);
  },
};

const ALL = { ianode, jena, oxigraph };

// ---------------------------------------------------------------- the run

const host = machine();
console.log(`# offline bulk load, BSBM-like N-Triples, ${triples.toLocaleString('en-US')} triples, seed ${seed}${label ? `, ianode --label ${label}` : ''}`);
console.log(`# ${host.cpu}, ${host.cores} cores, ${(host.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${host.os}, node ${host.node}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

const data = await ensureBsbmFile({ triples, seed, dir: OUT, log });
log(`data: ${data.file} (${(data.bytes / 2 ** 20).toFixed(1)} MiB${data.cached ? ', cached' : ''})`);
const work = args.work ? String(args.work) : await mkdtemp(path.join(tmpdir(), 'ianode-bench-offline-'));
await mkdir(work, { recursive: true });

/** @type {Record<string, string>} */
const unavailable = {};
/** @type {Record<string, string>} */
const versions = {};
for (const name of engines) {
  const e = ALL[/** @type {keyof typeof ALL} */ (name)];
  const why = await e.available();
  if (why) {
    unavailable[name] = why;
    log(`${name}: unavailable: ${why}`);
  } else {
    versions[name] = e.version();
    console.log(`# ${name}: ${versions[name]}`);
  }
}

/**
 * @typedef {object} Run
 * @property {string} [error]
 * @property {boolean} [countMismatch]
 * @property {number} [seconds]
 * @property {number} [peakRssBytes]
 * @property {number} [diskBytes]
 * @property {number} [quads]
 * @property {{ rssBytes: number, heapBytes: number, openSeconds: number }} [resident]
 * @property {[number, number]} [load]
 * @property {{ seconds: number, peakRssBytes?: number, bytes: number }} [dump]
 * @property {{ seconds: number, peakRssBytes?: number, quads: number, countMismatch: boolean, error?: string }} [restore]
 */
/** @type {Record<string, Run[]>} */
const results = Object.fromEntries(engines.map((e) => [e, []]));
let wrong = false;
let ianodeFailed = false;

for (let run = 1; run <= runs; run++) {
  for (const name of engines) {
    if (unavailable[name]) continue;
    const e = ALL[/** @type {keyof typeof ALL} */ (name)];
    const dir = path.join(work, `${name}-${run}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    /** @type {Run} */
    const r = {};
    results[name]?.push(r);
    const m = await e.load(data.file, dir);
    r.load = m.load;
    if (m.code !== 0) {
      r.error = failed(m);
      log(`${name} run ${run}/${runs}: FAILED: ${r.error}`);
      if (name === 'ianode') ianodeFailed = true;
      await rm(dir, { recursive: true, force: true });
      continue;
    }
    r.seconds = m.seconds;
    r.peakRssBytes = m.peakRssBytes;
    r.diskBytes = diskBytes(dir);
    try {
      if (name === 'ianode') {
        r.resident = await open(dir);
        r.quads = r.resident.quads;
        if (holds(m.stdout) !== r.quads) throw new Error(`ianode load said ${holds(m.stdout)} quads, the opened store holds ${r.quads}`);
      } else {
        r.quads = await e.count(dir);
      }
    } catch (error) {
      r.error = String(/** @type {Error} */ (error).message ?? error);
    }
    r.countMismatch = r.quads !== triples;
    if (r.countMismatch) wrong = true;
    log(`${name} run ${run}/${runs}: ${m.seconds.toFixed(1)} s, ${Math.round(triples / m.seconds).toLocaleString('en-US')} triples/s, peak ${mib(m.peakRssBytes)} MiB, ` +
      `${(r.diskBytes / triples).toFixed(0)} B/quad on disk${r.resident ? `, ${(r.resident.rssBytes / triples).toFixed(0)} B/quad resident` : ''}; ` +
      `${r.quads} quads${r.countMismatch ? ` — WRONG, the file has ${triples}` : ''}${r.error ? ` (${r.error})` : ''}; load average ${m.load.map((l) => l.toFixed(1)).join(' -> ')}`);
    if (name === 'ianode' && !args['no-dump'] && !r.countMismatch) {
      const dumpFile = path.join(work, `dump-${run}.trig`);
      const d = await measured(node, [heap, ianodeBin, 'dump', dir, '--out', dumpFile, '--quiet']);
      if (d.code !== 0) {
        ianodeFailed = true;
        log(`ianode dump: FAILED: ${failed(d)}`);
      } else {
        r.dump = { seconds: d.seconds, peakRssBytes: d.peakRssBytes, bytes: statSync(dumpFile).size };
        const to = path.join(work, `restored-${run}`);
        await rm(to, { recursive: true, force: true });
        const s = await measured(node, [heap, ianodeBin, 'restore', dumpFile, '--to', to, '--quiet']);
        const quads = holds(s.stdout);
        r.restore = { seconds: s.seconds, peakRssBytes: s.peakRssBytes, quads, countMismatch: quads !== triples, ...(s.code !== 0 ? { error: failed(s) } : {}) };
        if (s.code !== 0) ianodeFailed = true;
        if (r.restore.countMismatch) wrong = true;
        log(`ianode dump ${d.seconds.toFixed(1)} s (${mib(r.dump.bytes)} MiB, peak ${mib(d.peakRssBytes)} MiB); restore ${s.seconds.toFixed(1)} s (peak ${mib(s.peakRssBytes)} MiB, ${quads} quads${r.restore.countMismatch ? ' — WRONG' : ''})${r.restore.error ? ` FAILED: ${r.restore.error}` : ''}`);
        await rm(to, { recursive: true, force: true });
        await rm(dumpFile, { force: true });
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
}

function mib(/** @type {number | undefined} */ b) {
  return b === undefined ? '?' : (b / 2 ** 20).toFixed(0);
}

// ---------------------------------------------------------------- the report

const ok = (/** @type {string} */ name) => (results[name] ?? []).filter((r) => !r.error && !r.countMismatch && r.seconds !== undefined);
/** @param {Run[]} rs @param {(r: Run) => number | undefined} f */
const med = (rs, f) => {
  const v = rs.map(f).filter((x) => typeof x === 'number');
  return v.length ? median(/** @type {number[]} */ (v)) : undefined;
};
const summary = engines.map((name) => {
  const rs = ok(name);
  return {
    engine: name,
    runs: rs.length,
    seconds: med(rs, (r) => r.seconds),
    triplesPerSecond: med(rs, (r) => triples / /** @type {number} */ (r.seconds)),
    peakRssBytes: med(rs, (r) => r.peakRssBytes),
    diskBytesPerQuad: med(rs, (r) => /** @type {number} */ (r.diskBytes) / triples),
    residentBytesPerQuad: med(rs, (r) => (r.resident ? r.resident.rssBytes / triples : undefined)),
    dumpSeconds: med(rs, (r) => r.dump?.seconds),
    restoreSeconds: med(rs, (r) => (r.restore && !r.restore.error ? r.restore.seconds : undefined)),
    restorePeakRssBytes: med(rs, (r) => r.restore?.peakRssBytes),
  };
});
const f0 = (/** @type {number | undefined} */ x, d = 0) => (x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
console.log('');
console.log(markdownTable(['engine', 'runs', 'load s', 'triples/s', 'peak RSS MiB', 'B/quad disk', 'B/quad resident'], summary.map((s) => [
  s.engine, String(s.runs), f0(s.seconds, 1), f0(s.triplesPerSecond), f0(s.peakRssBytes && s.peakRssBytes / 2 ** 20), f0(s.diskBytesPerQuad), f0(s.residentBytesPerQuad),
])));
for (const [name, why] of Object.entries(unavailable)) console.log(`# ${name}: unavailable: ${why}`);
for (const name of engines) for (const r of results[name] ?? []) if (r.error) console.log(`# ${name}: ${r.error}`);
const base = summary.find((s) => s.engine === 'ianode' && s.runs > 0);
if (base) {
  for (const s of summary) {
    if (s === base || s.runs === 0) continue;
    console.log(`ianode / ${s.engine}: load rate ×${(/** @type {number} */ (base.triplesPerSecond) / /** @type {number} */ (s.triplesPerSecond)).toFixed(2)}, ` +
      `peak RSS ×${(/** @type {number} */ (base.peakRssBytes) / /** @type {number} */ (s.peakRssBytes)).toFixed(2)}, bytes per quad on disk ×${(/** @type {number} */ (base.diskBytesPerQuad) / /** @type {number} */ (s.diskBytesPerQuad)).toFixed(2)}`);
  }
  if (base.dumpSeconds !== undefined) {
    console.log(`ianode dump (backup with labels, TriG) ${f0(base.dumpSeconds, 1)} s; restore into an empty folder ${f0(base.restoreSeconds, 1)} s, peak RSS ${f0(base.restorePeakRssBytes && base.restorePeakRssBytes / 2 ** 20)} MiB`);
  }
  console.log(`goals (issue 18): load ≥ 500,000 triples/s durable — ${f0(base.triplesPerSecond)}; ≤ 100 B/quad resident — ${f0(base.residentBytesPerQuad)}`);
}
console.log(`# load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

if (args.json) {
  await mkdir(OUT, { recursive: true });
  const file = path.join(OUT, `offline-${triples}.json`);
  await writeFile(file, JSON.stringify({ machine: host, versions, unavailable, triples, seed, label, runs, data, summary, raw: results }, null, 2) + '\n');
  log(`wrote ${file}`);
}
if (!args.work) await rm(work, { recursive: true, force: true });
if (wrong || ianodeFailed) process.exitCode = 1;
