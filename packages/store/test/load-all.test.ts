/**
 * `loadAll`: several prepared uploads in one commit give exactly the state of loading them one
 * after another (the Kafka connector commits runs of uploads this way): data, labels from the
 * header, and labels-graph entries that refer to quads of an earlier or a later upload (a later
 * upload's Security-Label wins over a pending label, as it does one upload after another).
 */
import { describe, expect, it } from 'vitest';
import { openStore, prepareLoad, type QuadStore } from '@ianode/store';

const LABELS = '<http://ndtp.co.uk/security#labels>';
const AUTHZ = 'http://telicent.io/security#';

const uploads: { text: string; label?: string }[] = [
  { text: `<http://e/a> <http://e/p> "1" .\n<http://e/b> <http://e/p> "2" .\n${LABELS} { [ <${AUTHZ}pattern> '<http://e/c> <http://e/p> "3"' ; <${AUTHZ}label> "later" ] . }`, label: 'first' },
  { text: `<http://e/c> <http://e/p> "3" .\n<http://e/a> <http://e/p> "1" .\n${LABELS} { [ <${AUTHZ}pattern> '<http://e/b> <http://e/p> "2"' ; <${AUTHZ}label> "relabelled" ] . }`, label: 'second' },
  { text: '<http://e/d> <http://e/p> "4" .' },
];

async function state(store: QuadStore): Promise<string[]> {
  const out: string[] = [];
  for (const [s, o] of [['a', '1'], ['b', '2'], ['c', '3'], ['d', '4']] as const) {
    out.push(`${s} ${store.labelOf({ s: `<http://e/${s}`, p: '<http://e/p', o: `"${o}"`, g: '' }) ?? 'absent'}`);
  }
  return out;
}

const prepared = () => Promise.all(uploads.map((u) => prepareLoad(u.text, { format: 'application/trig', label: u.label })));

describe('loadAll', () => {
  it('equals loading the same uploads one after another', async () => {
    const one = await openStore({ defaultLabel: 'default' });
    for (const p of await prepared()) await one.load(p);
    const all = await openStore({ defaultLabel: 'default' });
    const result = await all.loadAll(await prepared(), { meta: { offset: '2' } });
    expect(await state(all)).toEqual(await state(one));
    expect(await state(all)).toEqual(['a second', 'b relabelled', 'c second', 'd default']);
    expect(result).toMatchObject({ quads: 5, labels: 2 });
    expect(all.stats().txId).toBe(1);
    expect(all.meta('offset')).toBe('2');
    await one.close();
    await all.close();
  });

  it('is all or nothing', async () => {
    const store = await openStore({});
    await expect(store.loadAll(await prepared(), { accept: () => { throw new Error('refused'); } })).rejects.toThrow('refused');
    expect(store.stats().quads).toBe(0);
    await store.close();
  });
});
