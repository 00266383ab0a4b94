/**
 * The labels graph read as it streams (loader.ts LabelEntries): an entry is applied as soon as it
 * is complete, yet a later statement about it is still refused, a prefixed pattern is read with
 * the document's prefixes, entries win over the Security-Label wherever they stand, and a quad
 * given two labels is refused — by `store.load` and `prepareLoad` alike, storing nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, prepareLoad, SnapshotDataset, type QuadStore } from '../src/index.js';

let store: QuadStore;
beforeEach(async () => {
  store = await openStore({ defaultLabel: '*' });
});
afterEach(async () => {
  await store.close();
});

const rows = (ds: SnapshotDataset) => [...ds.labelled()].map((q) => `${ds.key(q.s)} ${ds.key(q.o)}|${q.label}`).sort();
const A = '@prefix authz: <http://ndtp.co.uk/security#> .\n';

/** Load `text` both ways (directly and prepared); returns the labelled rows, or the error message. */
async function both(text: string, label?: string): Promise<string[]> {
  const results: string[][] = [];
  for (const prepared of [false, true]) {
    const s = await openStore({ defaultLabel: '*' });
    try {
      const options = { format: 'application/trig' as const, label };
      try {
        if (prepared) await s.load(await prepareLoad(text, options));
        else await s.load(text, options);
        results.push(rows(s.snapshot() as SnapshotDataset));
      } catch (error) {
        expect(s.stats().quads).toBe(0);
        results.push([`error: ${(error as Error).message}`]);
      }
    } finally {
      await s.close();
    }
  }
  expect(results[1]).toEqual(results[0]);
  return results[0]!;
}

describe('labels graph, streamed', () => {
  it('applies complete entries; entries before the data still beat the Security-Label', async () => {
    const text = `${A}authz:labels { [ authz:pattern '<http://e/a> <http://e/p> "1"' ; authz:label "manager" ] }\n` +
      '<http://e/a> <http://e/p> "1" . <http://e/b> <http://e/p> "2" .\n' +
      `authz:labels { [ authz:label "engineer" ; authz:pattern '<http://e/b> <http://e/p> "2"' ] }\n`;
    expect(await both(text, 'other')).toEqual(['<http://e/a "1"|manager', '<http://e/b "2"|engineer']);
  });

  it('reads a prefixed pattern with the prefixes of the document, even one declared after it', async () => {
    const text = `${A}authz:labels { [ authz:pattern 'ex:a ex:p "1"' ; authz:label "manager" ] }\n@prefix ex: <http://e/> .\nex:a ex:p "1" .\n`;
    expect(await both(text)).toEqual(['<http://e/a "1"|manager']);
  });

  it('refuses a second label for a complete anonymous entry, and a second pattern for a labelled blank node', async () => {
    const two = `${A}<http://e/a> <http://e/p> "1" .\nauthz:labels { [ authz:pattern '<http://e/a> <http://e/p> "1"' ; authz:label "a" ; authz:label "b" ] }\n`;
    expect((await both(two))[0]).toMatch(/^error: labels graph: one label per pattern/);
    const named = `${A}<http://e/a> <http://e/p> "1" .\nauthz:labels { _:e authz:pattern '<http://e/a> <http://e/p> "1"' ; authz:label "a" .\n` +
      `[ authz:pattern '<http://e/b> <http://e/p> "2"' ; authz:label "c" ] .\n_:e authz:pattern '<http://e/c> <http://e/p> "3"' . }\n`;
    expect((await both(named))[0]).toMatch(/^error: labels graph: an entry needs exactly one authz:pattern/);
  });

  it('refuses one quad given two labels by two entries, naming the pattern; the same label twice is fine', async () => {
    const entry = (label: string) => `[ authz:pattern '<http://e/a> <http://e/p> "1"' ; authz:label "${label}" ]`;
    const clash = `${A}<http://e/a> <http://e/p> "1" .\nauthz:labels { ${entry('a')} . ${entry('b')} }\n`;
    expect(await both(clash)).toEqual([`error: labels graph: pattern '<http://e/a> <http://e/p> "1"' has two labels ('a' and 'b')`]);
    const same = `${A}<http://e/a> <http://e/p> "1" .\nauthz:labels { ${entry('a')} . ${entry('a')} }\n`;
    expect(await both(same)).toEqual(['<http://e/a "1"|a']);
  });

  it('refuses an entry left without its label at the end', async () => {
    const text = `${A}<http://e/a> <http://e/p> "1" .\nauthz:labels { [ authz:pattern '<http://e/a> <http://e/p> "1"' ] }\n`;
    expect((await both(text))[0]).toMatch(/^error: labels graph: one label per pattern: found 0/);
  });
});
