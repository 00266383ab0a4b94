/**
 * The offline tools (offline.ts, docs/operations.md "Offline tools"): a dump re-loads to the same
 * labelled state through `ianode restore`, `ianode load` and the graph server's POST /ds/upload,
 * checked by the ABAC views of three attribute sets; label-less quads stay label-less and pending
 * labels stay pending; restore refuses a non-empty folder; every tool refuses a folder another
 * process holds (exit 3, naming it); query --as answers by attributes; update writes with a label.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttributeSet, Hierarchy, LabelEvaluator } from '@ianode/abac';
import { createGraphServer } from '@ianode/graph-server';
import { executeQuery, serialiseResultToString } from '@ianode/sparql';
import { openStore, type QuadStore } from '@ianode/store';
import { compact, dump, loadOffline, queryOffline, restore, updateOffline, type OfflineIo } from '../src/offline.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const STORE_DIST = new URL('../../store/dist/index.js', import.meta.url).href;
let root: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ianode-offline-'));
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let n = 0;
const fresh = (name: string) => path.join(root, `${name}-${++n}`);

function quietIo(): OfflineIo & { out: string; err: string } {
  const io = { out: '', err: '', stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t), progress: undefined };
  return io;
}

const HIERARCHY: [string, string[]][] = [['clearance', ['O', 'OS', 'S', 'TS']]];
/** Three users: an employee cleared S, a contractor cleared O, a TS analyst without employee. */
const USERS = [['employee', 'clearance=S'], ['contractor', 'clearance=O'], ['clearance=TS']];
const ALL_QUADS = 'SELECT ?g ?s ?p ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } } ORDER BY ?g ?s ?p ?o';
const DEFAULT_LABEL = 'employee';

function viewAs(store: QuadStore, attributes: string[]) {
  const hierarchies = new Map(HIERARCHY.map(([name, tiers]) => [name, new Hierarchy(name, tiers)] as const));
  const evaluator = new LabelEvaluator(AttributeSet.from(attributes), (name) => hierarchies.get(name));
  return store.snapshot().view((label) => evaluator.isVisible(label));
}

const answer = (store: QuadStore, attributes: string[]) =>
  serialiseResultToString(executeQuery(viewAs(store, attributes), ALL_QUADS), 'application/sparql-results+json');

/** Label-less quads (default and named graph), labelled ones, a relabelled and a deleted quad,
 * and a pending label (a label for a quad not stored). */
async function sourceStore(dir: string): Promise<void> {
  const store = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
  await store.load(`@prefix ex: <http://ex/> .
ex:plain ex:p "no label of its own" .
ex:g1 { ex:plain ex:p "no label, named graph" . ex:gs ex:p "secret in g1"@en . }
ex:top ex:p "top secret" .
ex:odd ex:p "line\\nbreak \\"quoted\\" \\u00e9" .
ex:gone ex:p "deleted" .
ex:typed ex:n 42 .
<http://ndtp.co.uk/security#labels> {
  [ <http://ndtp.co.uk/security#pattern> 'ex:g1 ex:gs ex:p "secret in g1"@en' ; <http://ndtp.co.uk/security#label> "clearance=S" ] .
  [ <http://ndtp.co.uk/security#pattern> 'ex:top ex:p "top secret"' ; <http://ndtp.co.uk/security#label> "clearance=TS" ] .
  [ <http://ndtp.co.uk/security#pattern> 'ex:odd ex:p "line\\\\nbreak \\\\\\"quoted\\\\\\" \\\\u00e9"' ; <http://ndtp.co.uk/security#label> "contractor || employee" ] .
  [ <http://ndtp.co.uk/security#pattern> 'ex:typed ex:n 42' ; <http://ndtp.co.uk/security#label> "clearance=O" ] .
  [ <http://ndtp.co.uk/security#pattern> 'ex:later ex:p "pending"' ; <http://ndtp.co.uk/security#label> "clearance=S" ] .
}`, { format: 'application/trig' });
  await store.transaction((tx) => tx.delete({ s: '<http://ex/gone', p: '<http://ex/p', o: '"deleted"', g: '' }));
  await store.close();
}

/** The state as the store holds it: every quad with its own label or none, and the pending labels. */
function state(store: QuadStore) {
  const { rows, pending } = store.labelledQuads();
  const sort = <T extends object>(xs: T[]) => xs.map((x) => JSON.stringify(x)).sort();
  return { rows: sort([...rows]), pending: sort(pending) };
}

describe('dump and re-load keep every quad and every label', () => {
  let source: string;
  let dumpFile: string;
  let before: { answers: string[]; state: ReturnType<typeof state> };

  beforeAll(async () => {
    source = fresh('source');
    await sourceStore(source);
    const store = await openStore({ dir: source, defaultLabel: DEFAULT_LABEL });
    before = { answers: USERS.map((u) => answer(store, u)), state: state(store) };
    await store.close();
    dumpFile = path.join(root, 'dump.trig');
    const io = quietIo();
    expect(await dump(source, { out: dumpFile, gzip: false }, io)).toBe(0);
    expect(io.err).toContain('6 quads (4 with a label of their own), 1 pending labels');
  });

  it('the source is what the test means: three users see three different things', () => {
    expect(new Set(before.answers).size).toBe(3);
    expect(before.state.pending).toHaveLength(1);
    expect(before.state.rows.filter((r) => !r.includes('"label"'))).toHaveLength(2); // two label-less quads
  });

  it('the dump is TriG with the labels graph; label-less quads get no entry', async () => {
    const text = await readFile(dumpFile, 'utf8');
    expect(text).toContain('<http://ndtp.co.uk/security#labels> {');
    expect(text).toContain('"<http://ex/g1> <http://ex/gs> <http://ex/p> \\"secret in g1\\"@en"'); // graph first
    expect(text.match(/security#pattern>/g)).toHaveLength(5); // 4 labelled + 1 pending
    expect(text).not.toContain('http://ex/plain> <http://ex/p> \\"no label');
    expect(text).not.toContain('deleted');
  });

  it.each(['restore', 'load', 'load (gzip)'])('ianode %s: the same state and the same answers for three users', async (how) => {
    const dir = fresh('target');
    const io = quietIo();
    if (how === 'restore') expect(await restore(dumpFile, dir, io)).toBe(0);
    else if (how === 'load') expect(await loadOffline(dir, [dumpFile], { label: undefined, format: undefined }, io)).toBe(0);
    else {
      const gz = path.join(root, 'dump.trig.gz');
      expect(await dump(source, { out: gz, gzip: true }, quietIo())).toBe(0);
      expect(gunzipSync(await readFile(gz)).toString()).toBe(await readFile(dumpFile, 'utf8'));
      expect(await loadOffline(dir, [gz], { label: undefined, format: undefined }, io)).toBe(0);
    }
    const store = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
    expect(state(store)).toEqual(before.state);
    expect(USERS.map((u) => answer(store, u))).toEqual(before.answers);
    await store.close();
    // Label-less quads take the default of the dataset they are loaded into, not the source's text.
    const other = await openStore({ dir, defaultLabel: 'contractor' });
    expect(other.labelOf({ s: '<http://ex/plain', p: '<http://ex/p', o: '"no label of its own"', g: '' })).toBe('contractor');
    await other.close();
  });

  it('POST /ds/upload (application/trig) of the dump gives the same state', async () => {
    const store = await openStore({ defaultLabel: DEFAULT_LABEL });
    const server = await createGraphServer({}, { logger: false, store });
    try {
      const url = await server.listen({ port: 0 });
      const response = await fetch(`${url}/ds/upload`, { method: 'POST', headers: { 'content-type': 'application/trig' }, body: await readFile(dumpFile) });
      expect(response.status).toBe(200);
      expect(state(store)).toEqual(before.state);
      expect(USERS.map((u) => answer(store, u))).toEqual(before.answers);
    } finally {
      await server.close();
    }
  });

  it('restore refuses a folder that is not empty, and changes nothing in it', async () => {
    const dir = fresh('busy');
    await sourceStore(dir);
    await expect(restore(dumpFile, dir, quietIo())).rejects.toThrow(/is not empty: restore writes into a new or empty folder/);
  });

  it('a restore that fails leaves no folder behind; a load names the file and what was stored', async () => {
    const bad = path.join(root, 'bad.trig');
    await writeFile(bad, '<http://ex/a> <http://ex/p> "fine" .\n<http://ex/b> <http://ex/p> oops .\n');
    const dir = fresh('failed');
    await expect(restore(bad, dir, quietIo())).rejects.toThrow(/bad\.trig: .*line 2.*nothing of this file was stored/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(dir)).toBe(false);
    const target = fresh('partial');
    await expect(loadOffline(target, [dumpFile, bad], { label: undefined, format: undefined }, quietIo()))
      .rejects.toThrow(/nothing of this file was stored \(the 1 file before it, 6 quads, were stored\)/);
  });
});

describe('what a dump cannot name', () => {
  it('a labelled quad with a blank node: refused, nothing written; a label-less one is dumped', async () => {
    const dir = fresh('blank');
    const store = await openStore({ dir });
    await store.load('_:b <http://ex/p> "label-less" .\n', { format: 'application/n-triples' });
    await store.close();
    const ok = path.join(root, 'blank-ok.trig');
    expect(await dump(dir, { out: ok, gzip: false }, quietIo())).toBe(0);
    expect(await readFile(ok, 'utf8')).toMatch(/_:\S+ <http:\/\/ex\/p> "label-less" \./);
    const again = await openStore({ dir });
    await again.load('_:c <http://ex/p> "labelled" .\n', { format: 'application/n-triples', label: 'employee' });
    await again.close();
    const out = path.join(root, 'blank.trig');
    await expect(dump(dir, { out, gzip: false }, quietIo())).rejects.toThrow(/1 quads with a label of their own \(or pending labels\) have a blank node.*nothing was written/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(out)).toBe(false);
  });
});

describe('query and update as a set of attributes', () => {
  it('query --as answers by attributes; --all sees everything', async () => {
    const dir = fresh('q');
    await sourceStore(dir);
    const rows = async (attributes: string[] | undefined) => {
      const io = quietIo();
      expect(await queryOffline(dir, 'SELECT ?s WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } } ORDER BY ?s', { attributes, hierarchies: HIERARCHY }, { format: 'csv', defaultLabel: DEFAULT_LABEL }, io)).toBe(0);
      return io.out.trim().split(/\r?\n/).slice(1);
    };
    expect(await rows(['contractor', 'clearance=O'])).toEqual(['http://ex/odd', 'http://ex/typed']);
    expect(await rows(['employee', 'clearance=S'])).toEqual(['http://ex/gs', 'http://ex/odd', 'http://ex/plain', 'http://ex/plain', 'http://ex/typed']);
    expect(await rows([])).toEqual([]);
    expect(await rows(undefined)).toHaveLength(6);
  });

  it('update --as --label writes with the label; a label --as cannot read is refused, nothing stored', async () => {
    const dir = fresh('u');
    await sourceStore(dir);
    const as = { attributes: ['employee', 'clearance=S'], hierarchies: HIERARCHY };
    const io = quietIo();
    expect(await updateOffline(dir, 'INSERT DATA { <http://ex/new> <http://ex/p> "new" }', as, { label: 'clearance=S', defaultLabel: DEFAULT_LABEL }, io)).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ inserted: 1, labels: [{ label: 'clearance=S', quads: 1 }] });
    await expect(updateOffline(dir, 'INSERT DATA { <http://ex/new2> <http://ex/p> "x" }', as, { label: 'clearance=TS', defaultLabel: DEFAULT_LABEL }, quietIo()))
      .rejects.toThrow(/nothing was stored: the update would label 1 quads "clearance=TS"/);
    // A quad --as cannot see is neither deleted nor relabelled.
    expect(await updateOffline(dir, 'DELETE WHERE { ?s ?p "top secret" }', as, { label: undefined, defaultLabel: DEFAULT_LABEL }, quietIo())).toBe(0);
    const store = await openStore({ dir, defaultLabel: DEFAULT_LABEL });
    expect(store.labelOf({ s: '<http://ex/new', p: '<http://ex/p', o: '"new"', g: '' })).toBe('clearance=S');
    expect(store.labelOf({ s: '<http://ex/new2', p: '<http://ex/p', o: '"x"', g: '' })).toBeUndefined();
    expect(store.labelOf({ s: '<http://ex/top', p: '<http://ex/p', o: '"top secret"', g: '' })).toBe('clearance=TS');
    await store.close();
  });

  it('a folder that holds no store is refused and left as it was', async () => {
    const { mkdirSync, readdirSync } = await import('node:fs');
    const dir = fresh('empty');
    mkdirSync(dir);
    await expect(queryOffline(dir, 'ASK {}', { attributes: undefined, hierarchies: [] }, { format: 'json', defaultLabel: '!' }, quietIo())).rejects.toThrow(/is not a store folder/);
    await expect(dump(dir, { out: undefined, gzip: false }, quietIo())).rejects.toThrow(/is not a store folder/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('compact drops deleted rows and checkpoints', async () => {
    const dir = fresh('c');
    await sourceStore(dir);
    const io = quietIo();
    expect(await compact(dir, io)).toBe(0);
    expect(io.out).toMatch(/compacted .*: \d+ rows \(1 dead\) -> 6; log \d+ -> 0 bytes; 6 quads/);
  });
});

describe('a folder held by another process', () => {
  async function holder(dir: string): Promise<ChildProcess> {
    const script = `
      import { openStore } from ${JSON.stringify(STORE_DIST)};
      await openStore({ dir: ${JSON.stringify(dir)}, lockPurpose: 'graph server' });
      process.stdout.write('held\\n');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    return child;
  }

  /** `ianode ARGS…` (dist/main.js) in a process of its own. */
  const ianode = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const run = execFile(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 60_000 }, (_error, stdout, stderr) => resolve({ status: run.exitCode, stdout, stderr }));
    });

  it('every offline tool refuses with exit 3, naming the holder; verify still reads it', async () => {
    const dir = fresh('held');
    await sourceStore(dir);
    const child = await holder(dir);
    const data = path.join(root, 'more.nt');
    await writeFile(data, '<http://ex/x> <http://ex/p> "x" .\n');
    const tools = [
      ['dump', dir, '--quiet'],
      ['load', dir, data],
      ['compact', dir],
      ['query', dir, 'ASK {}', '--all'],
      ['update', dir, 'INSERT DATA { <http://ex/a> <http://ex/b> "c" }', '--all'],
    ];
    // The six commands run at once (each is refused, or only reads): the machine's other cores
    // take some of them.
    const [verify, ...runs] = await Promise.all([['store', 'verify', dir], ...tools].map((args) => ianode(args)));
    for (const [i, args] of tools.entries()) {
      const run = runs[i]!;
      expect(run.status, args.join(' ')).toBe(3);
      expect(run.stderr).toContain(`ianode ${args[0]}: store ${dir} is in use by process ${child.pid}`);
      expect(run.stderr).toContain('(graph server)');
    }
    expect(verify!.status).toBe(0);
    expect(verify!.stdout).toContain(`lock: held by process ${child.pid}`);
  });
});
