/**
 * SPARQL Update over a caller's ABAC view (SPEC §3): the update evaluates over the view, writes go
 * through one store transaction, and a caller can neither affect nor detect a quad it cannot see
 * through any update form. Quads labelled `secret` are invisible to the caller; `*` is visible.
 */
import { describe, expect, it } from 'vitest';
import { openStore, type QuadStore } from '@ianode/store';
import { executeUpdate, parseUpdate } from '../../src/index.js';
import type { UpdateOptions, UpdateResult } from '../../src/update/api.js';

const P = 'PREFIX : <http://example/>\n';
const DATA = `@prefix : <http://example/> .
:pub :p 1 . :sec :p 2 .
:g { :pub :p 1 . :sec :p 2 . :sec :q :pub . }
:h { :x :y :z . }
:authz { }
`;

/** A store with visible (`*`) and secret quads: every quad with subject :sec is `secret`. */
async function labelledStore(): Promise<QuadStore> {
  const store = await openStore({ defaultLabel: '*' });
  await store.load(DATA, { format: 'application/trig' });
  await store.transaction((tx) => {
    for (const q of store.match({})) {
      if (store.key(q.s) === '<http://example/sec') tx.setLabel({ s: store.key(q.s), p: store.key(q.p), o: store.key(q.o), g: q.g === 0 ? '' : store.key(q.g) }, 'secret');
    }
  });
  return store;
}

const visible = (label: string) => label !== 'secret';

/** Runs an update as the caller (view without the secret quads), the way the graph server does. */
async function update(store: QuadStore, text: string, options: UpdateOptions = {}, who: 'caller' | 'all' = 'caller'): Promise<UpdateResult> {
  return store.transaction(async (tx) => {
    const snapshot = store.snapshot();
    const view = who === 'all' ? snapshot : snapshot.view(visible);
    return executeUpdate(view, text, {
      applyOps(ops) {
        for (const op of ops) {
          if (op.type === 'add') tx.add(op.quad);
          else tx.delete(op.quad);
        }
      },
    }, options);
  });
}

function dump(store: QuadStore): string[] {
  const out: string[] = [];
  for (const q of store.match({})) {
    const k = (id: number) => store.key(id).replace('<http://example/', ':').replace('"^^http://www.w3.org/2001/XMLSchema#integer', '').replace(/^"/, '');
    out.push(`${k(q.s)} ${k(q.p)} ${k(q.o)}${q.g === 0 ? '' : ' ' + k(q.g)} [${store.labelOf({ s: store.key(q.s), p: store.key(q.p), o: store.key(q.o), g: q.g === 0 ? '' : store.key(q.g) })}]`);
  }
  return out.sort();
}

const secrets = (store: QuadStore) => dump(store).filter((l) => l.includes('[secret]'));
const SECRETS = [':sec :p 2 :g [secret]', ':sec :p 2 [secret]', ':sec :q :pub :g [secret]'];

describe('SPARQL Update: forms', () => {
  it('INSERT DATA, DELETE DATA, DELETE/INSERT WHERE; later operations see earlier ones', async () => {
    const store = await labelledStore();
    const r = await update(store, P + 'INSERT DATA { :a :p 10 } ; INSERT { ?s :copy ?o } WHERE { ?s :p ?o } ; DELETE DATA { :a :p 10 }');
    expect(r.operations).toBe(3);
    expect(dump(store)).toContain(':a :copy 10 [*]');
    expect(dump(store)).not.toContain(':a :p 10 [*]');
    expect(dump(store)).toContain(':pub :copy 1 [*]');
    expect(dump(store).some((l) => l.startsWith(':sec :copy'))).toBe(false);
  });

  it('WITH, USING and USING NAMED choose the graphs', async () => {
    const store = await labelledStore();
    await update(store, P + 'WITH :g INSERT { ?s :in-g ?o } WHERE { ?s :p ?o }');
    expect(dump(store)).toContain(':pub :in-g 1 :g [*]');
    await update(store, P + 'INSERT { ?s :used ?o } USING :h WHERE { ?s ?p ?o }');
    expect(dump(store)).toContain(':x :used :z [*]');
    await update(store, P + 'INSERT { ?s :named ?g } USING NAMED :h WHERE { GRAPH ?g { ?s ?p ?o } }');
    expect(dump(store)).toContain(':x :named :h [*]');
  });

  it('parseUpdate rejects queries and syntax errors with a position', () => {
    expect(() => parseUpdate('SELECT * {}')).toThrow(/expected an update/);
    expect(() => parseUpdate(P + 'INSERT DATA { :a :b }')).toThrow(/line 2/);
    expect(parseUpdate('# nothing').operations).toHaveLength(0);
  });

  it('LOAD is off unless a loader is given, and refuses remote documents', async () => {
    const store = await labelledStore();
    await expect(update(store, 'LOAD <http://example/doc.ttl>')).rejects.toThrow(/LOAD is switched off/);
    const { createFileLoader } = await import('../../src/index.js');
    await expect(update(store, 'LOAD <http://example/doc.ttl>', { load: createFileLoader('/tmp') })).rejects.toThrow(/remote documents are never fetched/);
    await expect(update(store, 'LOAD <file:///etc/passwd>', { load: createFileLoader('/tmp/none') })).rejects.toThrow(/configured load folder/);
    await update(store, 'LOAD SILENT <http://example/doc.ttl>');
  });

  it('a failing operation rolls back the whole request', async () => {
    const store = await labelledStore();
    const before = dump(store);
    await expect(update(store, P + 'INSERT DATA { :new :p 1 } ; CLEAR ALL ; LOAD <http://x/>')).rejects.toThrow();
    expect(dump(store)).toEqual(before);
  });
});

describe('SPARQL Update: invisible quads can be neither affected nor detected', () => {
  const forms: [string, string][] = [
    ['DELETE DATA', 'DELETE DATA { :sec :p 2 . GRAPH :g { :sec :p 2 . :sec :q :pub } }'],
    ['DELETE WHERE', 'DELETE WHERE { ?s ?p ?o }'],
    ['DELETE WHERE in graphs', 'DELETE WHERE { GRAPH ?g { ?s ?p ?o } }'],
    ['DELETE/INSERT WHERE', 'DELETE { ?s ?p ?o } INSERT { ?s :seen ?o } WHERE { ?s ?p ?o }'],
    ['DELETE with WITH', 'WITH :g DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }'],
    ['CLEAR ALL', 'CLEAR ALL'],
    ['CLEAR DEFAULT', 'CLEAR DEFAULT'],
    ['CLEAR NAMED', 'CLEAR NAMED'],
    ['CLEAR GRAPH', 'CLEAR GRAPH :g'],
    ['DROP ALL', 'DROP ALL'],
    ['DROP GRAPH', 'DROP GRAPH :g'],
    ['COPY', 'COPY :h TO :g'],
    ['MOVE onto', 'MOVE :h TO :g'],
    ['MOVE from', 'MOVE :g TO :moved'],
    ['COPY DEFAULT', 'COPY DEFAULT TO :g'],
    ['ADD', 'ADD :g TO :added'],
    ['FILTER EXISTS probe', 'INSERT { :probe :found true } WHERE { FILTER EXISTS { :sec ?p ?o } }'],
    ['count probe', 'INSERT { :probe :count ?n } WHERE { SELECT (COUNT(*) AS ?n) { GRAPH :g { ?s ?p ?o } } }'],
  ];
  for (const [name, text] of forms) {
    it(`${name}: secret quads stay, none copied, same answer as without them`, async () => {
      const store = await labelledStore();
      const result = await update(store, P + text);
      expect(secrets(store)).toEqual(SECRETS);
      const after = dump(store);
      // Nothing about :sec reached a visible quad.
      expect(after.filter((l) => !l.includes('[secret]') && (l.includes(':sec') || l.includes(' 2 ')))).toEqual([]);
      expect(after).not.toContain(':probe :found true [*]');
      // The caller's answer equals the answer over a store that never held the secret quads.
      const clean = await openStore({ defaultLabel: '*' });
      await clean.load(DATA, { format: 'application/trig' });
      await clean.transaction((tx) => {
        for (const q of [...clean.match({})]) {
          if (clean.key(q.s) === '<http://example/sec') tx.delete({ s: clean.key(q.s), p: clean.key(q.p), o: clean.key(q.o), g: q.g === 0 ? '' : clean.key(q.g) });
        }
      });
      const cleanResult = await update(clean, P + text, {}, 'all');
      expect(result).toEqual(cleanResult);
      expect(after.filter((l) => !l.includes('[secret]'))).toEqual(dump(clean));
    });
  }

  it('CREATE GRAPH of a graph holding only invisible quads succeeds (no existence leak)', async () => {
    const store = await openStore({ defaultLabel: '*' });
    await store.load('<http://example/s> <http://example/p> <http://example/o> <http://example/only-secret> .', { format: 'application/n-quads', label: 'secret' });
    await expect(update(store, P + 'CREATE GRAPH :only-secret')).resolves.toMatchObject({ operations: 1 });
    await expect(update(store, P + 'CREATE GRAPH :h', {}, 'all')).resolves.toBeDefined();
  });
});
