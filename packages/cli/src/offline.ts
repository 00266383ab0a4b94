/**
 * The offline tools of `ianode` on a store folder (docs/operations.md "Offline tools"): dump,
 * load, restore, compact, query and update. Each opens the folder itself, which takes its lock:
 * while a graph server (or another tool) holds the folder they refuse with exit 3 and a message
 * naming the holder. Long work shows progress and an ETA on stderr (progress.ts).
 *
 * The dump format ("Dump format" in docs/operations.md) is written by @ianode/store's
 * `dumpChunks` (store/src/dump.ts), which the graph server's online backups share.
 */
import { createReadStream, createWriteStream, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable, pipeline, type Writable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { AttributeSet, Hierarchy, LabelEvaluator } from '@ianode/abac';
import { RDF_FORMATS, termToNTriples, type Dataset, type RdfFormat } from '@ianode/rdf';
import { executeQuery, executeUpdate, parseUpdate, serialiseResult, type QueryResult } from '@ianode/sparql';
import { dumpChunks, openStore, StoreError, type DumpFigures, type QuadStore, type WriteOutcome } from '@ianode/store';
import { Progress, short, type ProgressIo } from './progress.js';

/** Exit code of an offline tool refused because another process holds the folder. */
export const EXIT_LOCKED = 3;

export interface OfflineIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Progress (undefined: --quiet). */
  progress: ProgressIo | undefined;
}

/** The folder's lock refused the open: the message names the holder; exit 3. */
export class FolderInUse extends Error {}

async function openFolder(dir: string, purpose: string, defaultLabel?: string): Promise<QuadStore> {
  try {
    return await openStore({ dir, lockPurpose: purpose, defaultLabel });
  } catch (error) {
    if (error instanceof StoreError && error.code === 'STORE_LOCKED') throw new FolderInUse(error.message, { cause: error });
    throw error;
  }
}

/** Runs `body` with the folder open; closes it (releasing the lock) whatever happens. */
async function withFolder<T>(dir: string, purpose: string, body: (store: QuadStore) => Promise<T>, defaultLabel?: string): Promise<T> {
  const store = await openFolder(dir, purpose, defaultLabel);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------- dump

// The dump itself (dumpChunks) is @ianode/store's (dump.ts): the graph server's online backups
// write the same format.

async function writeAll(chunks: Iterable<string>, sink: Writable, gzip: boolean): Promise<void> {
  const source = Readable.from(chunks, { objectMode: false });
  await new Promise<void>((resolve, reject) => {
    const done = (error: Error | null) => (error ? reject(error) : resolve());
    if (gzip) pipeline(source, createGzip(), sink, done);
    else pipeline(source, sink, done);
  });
}

/** `ianode dump DIR [--out FILE] [--gzip]` (stdout without --out). */
export async function dump(dir: string, opts: { out: string | undefined; gzip: boolean }, io: OfflineIo): Promise<number> {
  if (!isStoreFolder(dir)) throw new Error(`${dir} is not a store folder (no checkpoint-*.ckpt or wal-*.log in it)`);
  return withFolder(dir, 'ianode dump', async (store) => {
    const figures: DumpFigures = { quads: 0, labelled: 0, pending: 0, txId: 0 };
    const progress = new Progress('dump', store.stats().quads, 'quads', io.progress);
    const chunks = dumpChunks(store, figures, (n) => progress.update(n));
    const started = Date.now();
    if (opts.out === undefined) {
      await writeAll(chunks, process.stdout, opts.gzip);
    } else {
      const file = createWriteStream(opts.out, { mode: 0o600 });
      await once(file, 'open');
      await writeAll(chunks, file, opts.gzip);
    }
    progress.done();
    const seconds = (Date.now() - started) / 1000;
    io.stderr(`dumped transaction ${figures.txId}: ${figures.quads} quads (${figures.labelled} with a label of their own), ${figures.pending} pending labels${opts.out === undefined ? '' : ` to ${opts.out}`} in ${seconds.toFixed(1)} s\n`);
    return 0;
  });
}

// ---------------------------------------------------------------- load / restore

const EXTENSIONS: Record<string, RdfFormat> = {
  ttl: 'text/turtle', turtle: 'text/turtle', trig: 'application/trig', nt: 'application/n-triples', nq: 'application/n-quads',
};

/** The format of `--format` (a media type or ttl/trig/nt/nq) or of the file's extension (.gz stripped). */
export function formatOf(file: string, given: string | undefined): RdfFormat {
  if (given !== undefined) {
    const f = (RDF_FORMATS as readonly string[]).includes(given) ? (given as RdfFormat) : EXTENSIONS[given.toLowerCase()];
    if (f === undefined) throw new Error(`--format ${given}: use ${RDF_FORMATS.join(', ')} or ttl, trig, nt, nq`);
    return f;
  }
  const name = file.toLowerCase().replace(/\.gz$/, '');
  const f = EXTENSIONS[path.extname(name).slice(1)];
  if (f === undefined) throw new Error(`cannot tell the RDF format of ${file}: use .ttl, .trig, .nt or .nq (optionally .gz), or give --format`);
  return f;
}

/** A folder with a store's files in it (so a mistyped path is not made into an empty store). */
function isStoreFolder(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).some((f) => /^(checkpoint-\d+\.ckpt|wal-\d+\.log)$/.test(f));
}

export interface LoadFigures {
  files: number;
  quads: number;
  labels: number;
  seconds: number;
  quadsAfter: number;
  txId: number;
}

/** Load `files` into the open store, one transaction per file, with progress by bytes read. */
async function loadFiles(store: QuadStore, files: string[], opts: { label: string | undefined; format: string | undefined }, io: OfflineIo): Promise<LoadFigures> {
  const formats = files.map((f) => formatOf(f, opts.format));
  const total = files.reduce((n, f) => n + statSync(f).size, 0);
  const progress = new Progress('load', total, 'bytes', io.progress);
  let read = 0;
  let quads = 0;
  let labels = 0;
  const started = Date.now();
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of createReadStream(file)) {
        read += (chunk as Buffer).length;
        progress.update(read, `(${path.basename(file)})`);
        yield chunk as Buffer;
      }
      // Parsed: the commit (index sort, log write and sync) follows, without a byte count.
      progress.update(read, `(${path.basename(file)} read; committing)`, true);
    }
    let input: AsyncIterable<Uint8Array> = counted();
    if (file.toLowerCase().endsWith('.gz')) {
      const gunzip = createGunzip();
      pipeline(Readable.from(counted()), gunzip, () => undefined); // an error ends gunzip's iteration with it
      input = gunzip;
    }
    let result;
    try {
      result = await store.load(input, { format: formats[i]!, label: opts.label });
    } catch (error) {
      const before = i === 0 ? '' : ` (the ${i} file${i === 1 ? '' : 's'} before it, ${quads} quads, were stored)`;
      throw new Error(`${file}: ${(error as Error).message}; nothing of this file was stored${before}`, { cause: error });
    }
    quads += result.quads;
    labels += result.labels;
  }
  progress.update(total, '(writing a checkpoint)', true);
  // A checkpoint now: the next open reads one file instead of replaying the load from the log.
  await store.checkpoint();
  progress.done();
  return { files: files.length, quads, labels, seconds: (Date.now() - started) / 1000, quadsAfter: store.stats().quads, txId: store.stats().txId };
}

function loadSummary(f: LoadFigures): string {
  const rate = f.seconds > 0 ? f.quads / f.seconds : f.quads;
  return `loaded ${f.files} file${f.files === 1 ? '' : 's'}: ${f.quads} quads, ${f.labels} labels-graph entries in ${f.seconds.toFixed(1)} s (${short(rate)} triples/s); the store holds ${f.quadsAfter} quads at transaction ${f.txId}\n`;
}

/** `ianode load DIR FILE… [--label L] [--format F]`. */
export async function loadOffline(dir: string, files: string[], opts: { label: string | undefined; format: string | undefined }, io: OfflineIo): Promise<number> {
  for (const f of files) if (!existsSync(f)) throw new Error(`${f}: no such file`);
  for (const f of files) formatOf(f, opts.format); // before the folder is touched
  return withFolder(dir, 'ianode load', async (store) => {
    io.stdout(loadSummary(await loadFiles(store, files, opts, io)));
    return 0;
  });
}

/** `ianode restore FILE --to DIR`: a dump into a new or empty folder. */
export async function restore(file: string, to: string, io: OfflineIo): Promise<number> {
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  if (existsSync(to) && (!statSync(to).isDirectory() || readdirSync(to).length > 0)) {
    throw new Error(`${to} is not empty: restore writes into a new or empty folder (load into an existing store with ianode load ${to} ${file})`);
  }
  const format = formatOf(file, file.toLowerCase().replace(/\.gz$/, '').endsWith('.trig') ? undefined : 'trig');
  const existed = existsSync(to);
  try {
    return await withFolder(to, 'ianode restore', async (store) => {
      io.stdout(loadSummary(await loadFiles(store, [file], { label: undefined, format }, io)).replace(/^loaded/, 'restored'));
      return 0;
    });
  } catch (error) {
    // Leave the folder as it was (absent or empty), so the restore can simply be run again.
    if (!(error instanceof FolderInUse)) {
      if (existed) for (const f of readdirSync(to)) rmSync(path.join(to, f), { recursive: true, force: true });
      else rmSync(to, { recursive: true, force: true });
    }
    throw error;
  }
}

// ---------------------------------------------------------------- compact

/** `ianode compact DIR`: drop deleted rows and write a checkpoint (the log starts empty). */
export async function compact(dir: string, io: OfflineIo): Promise<number> {
  if (!isStoreFolder(dir)) throw new Error(`${dir} is not a store folder (no checkpoint-*.ckpt or wal-*.log in it)`);
  return withFolder(dir, 'ianode compact', async (store) => {
    const before = store.stats();
    const progress = new Progress('compact', undefined, 'rows', io.progress);
    progress.update(before.rows);
    await store.compact();
    await store.checkpoint();
    progress.done();
    const after = store.stats();
    io.stdout(`compacted ${dir}: ${before.rows} rows (${before.deletedRows} dead) -> ${after.rows}; log ${before.logBytes} -> ${after.logBytes} bytes; ${after.quads} quads at transaction ${after.txId}\n`);
    return 0;
  });
}

// ---------------------------------------------------------------- query / update

export interface Actor {
  /** undefined: --all (no ABAC). */
  attributes: string[] | undefined;
  hierarchies: [string, string[]][];
}

/** `--as clearance=S,employee` and `--hierarchy clearance=O,OS,S,TS` (repeatable), or --all. */
export function actorOf(as: string | undefined, all: boolean, hierarchies: string[]): Actor {
  if (all && as !== undefined) throw new UsageError('give --as ATTRS or --all, not both');
  if (!all && as === undefined) throw new UsageError('needs --as ATTRS (the attributes to read as, e.g. --as clearance=S,employee) or --all (no ABAC: every quad)');
  const parsedH = hierarchies.map((h): [string, string[]] => {
    const eq = h.indexOf('=');
    if (eq <= 0 || eq === h.length - 1) throw new UsageError(`--hierarchy ${JSON.stringify(h)}: write NAME=LOWEST,…,HIGHEST, e.g. clearance=O,OS,S,TS`);
    return [h.slice(0, eq), h.slice(eq + 1).split(',').map((t) => t.trim())];
  });
  const attributes = as === undefined ? undefined : as.split(',').map((a) => a.trim()).filter((a) => a !== '');
  return { attributes, hierarchies: parsedH };
}

/** A usage mistake found by the offline tools (cli.ts turns it into exit 2). */
export class UsageError extends Error {}

function visibility(actor: Actor): ((label: string) => boolean) | undefined {
  if (actor.attributes === undefined) return undefined;
  const hierarchies = new Map(actor.hierarchies.map(([name, tiers]) => [name, new Hierarchy(name, tiers)] as const));
  const evaluator = new LabelEvaluator(AttributeSet.from(actor.attributes), (name) => hierarchies.get(name));
  return (label) => evaluator.isVisible(label);
}

const QUERY_FORMATS: Record<string, string> = {
  json: 'application/sparql-results+json', csv: 'text/csv', tsv: 'text/tab-separated-values',
};

/** A SELECT answer as an aligned text table (terms in N-Triples form). */
function table(result: Extract<QueryResult, { type: 'bindings' }>): string {
  const rows = [...result.solutions].map((s) => result.variables.map((v) => {
    const t = s.get(v);
    return t === undefined ? '' : termToNTriples(t);
  }));
  const head = result.variables.map((v) => `?${v}`);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`].join('\n') + '\n';
}

/** `ianode query DIR QUERY [--as ATTRS|--all] [--format json|csv|tsv|table]`. */
export async function queryOffline(dir: string, text: string, actor: Actor, opts: { format: string; defaultLabel: string }, io: OfflineIo): Promise<number> {
  if (!isStoreFolder(dir)) throw new Error(`${dir} is not a store folder (no checkpoint-*.ckpt or wal-*.log in it)`);
  if (opts.format !== 'table' && QUERY_FORMATS[opts.format] === undefined) throw new UsageError(`--format ${opts.format}: json, csv, tsv or table`);
  return withFolder(dir, 'ianode query', async (store) => {
    const visible = visibility(actor);
    const view: Dataset = visible === undefined ? store.snapshot() : store.snapshot().view(visible);
    const result = executeQuery(view, text);
    if (result.type === 'bindings' && opts.format === 'table') {
      io.stdout(table(result));
      return 0;
    }
    if (result.type === 'boolean' && opts.format === 'table') {
      io.stdout(`${result.value}\n`);
      return 0;
    }
    const mediaType = result.type === 'quads' ? 'application/trig' : QUERY_FORMATS[opts.format] ?? QUERY_FORMATS.json!;
    for await (const chunk of serialiseResult(result, mediaType)) io.stdout(chunk);
    if (result.type !== 'quads' && mediaType === QUERY_FORMATS.json) io.stdout('\n');
    return 0;
  }, opts.defaultLabel);
}

/** `ianode update DIR UPDATE [--as ATTRS|--all] [--label L]`: one transaction. As the graph
 * server does for a caller: with --as, quads whose label the attributes do not satisfy are
 * neither seen nor changed, and a write whose resulting label they could not read is refused. */
export async function updateOffline(dir: string, text: string, actor: Actor, opts: { label: string | undefined; defaultLabel: string }, io: OfflineIo): Promise<number> {
  if (!isStoreFolder(dir)) throw new Error(`${dir} is not a store folder (no checkpoint-*.ckpt or wal-*.log in it)`);
  const parsed = parseUpdate(text);
  return withFolder(dir, 'ianode update', async (store) => {
    const visible = visibility(actor);
    const safe = (label: string) => {
      try {
        return visible === undefined || visible(label);
      } catch {
        return false;
      }
    };
    const accept = visible === undefined ? undefined : (outcome: WriteOutcome) => {
      const unreadable = outcome.labels.filter((l) => !safe(l.label));
      if (unreadable.length > 0) {
        throw new Error(`nothing was stored: the update would label ${unreadable.map((l) => `${l.quads} quads ${JSON.stringify(l.label)}`).join(', ')}, which --as does not satisfy (give --label with a label it satisfies)`);
      }
    };
    const { value, outcome, txId } = await store.write(async (tx) => {
      const snapshot = store.snapshot();
      const view = visible === undefined ? snapshot : snapshot.view(safe);
      return executeUpdate(view, parsed, {
        applyOps(ops) {
          for (const op of ops) {
            if (op.type === 'delete') tx.delete(op.quad);
            else tx.add(op.quad, opts.label);
          }
        },
      }, { insertsVisible: safe(opts.label ?? opts.defaultLabel) });
    }, { writable: visible === undefined ? undefined : safe, ...(accept ? { accept } : {}) });
    io.stdout(`${JSON.stringify({ operations: value.operations, inserted: outcome.inserted, relabelled: outcome.relabelled, deleted: outcome.deleted, unchanged: outcome.unchanged, labels: outcome.labels, txId })}\n`);
    return 0;
  }, opts.defaultLabel);
}
