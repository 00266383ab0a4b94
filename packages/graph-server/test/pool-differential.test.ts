/**
 * The ABAC differential property (packages/sparql/test/differential/abac-view.test.ts) with the
 * queries run through the query worker pool: for random labelled data, random users and every
 * query shape, the answer a worker computes over the caller's grant — the attributes and
 * hierarchies as data, the view built on the worker, the store state read through shared memory —
 * equals the answer over a second store that physically holds only the quads that user may see.
 *
 * Seeds: POOL_DIFF_SEEDS=1003,1017 to re-run chosen ones (failure messages name the seed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { parseQuads } from '@ianode/rdf';
import { parseResults } from '@ianode/sparql';
import { ForwardedError } from '../src/errors.js';
import { QueryPool, type StateSource } from '../src/pool/pool.js';
import type { Grant } from '../src/pool/protocol.js';
import { CLEARANCES, Rng, finalQuads, randomData, randomUser, visibleTo } from '../../sparql/test/differential/support/data.js';
import { PREFIXES, SHAPE_NAMES, generateQuery } from '../../sparql/test/differential/support/queries.js';
import { compareOutcomes, run, showOutcome, type Outcome } from '../../sparql/test/differential/support/outcome.js';
import { referenceStore, storeWith } from '../../sparql/test/differential/support/store.js';

const SEEDS: number[] = process.env['POOL_DIFF_SEEDS']
  ? process.env['POOL_DIFF_SEEDS'].split(',').map((s) => Number(s.trim()))
  : Array.from({ length: 30 }, (_, i) => 1000 + i);
const USERS_PER_SEED = 3;
const ACCEPT = 'application/sparql-results+json, application/n-quads;q=0.9';

/** The pool reads whichever store the current seed uses (each store's states are told apart). */
let current: QuadStore | undefined;
const source: StateSource = {
  get stateVersion() {
    return current!.stateVersion;
  },
  get storeId() {
    return current!.storeId;
  },
  shareState: (labelsFrom) => current!.shareState(labelsFrom),
};

let pool: QueryPool;
const open: QuadStore[] = [];
beforeAll(async () => {
  pool = new QueryPool({ size: 2, queueLimit: 64, killGraceMs: 1_000, state: source, log: () => undefined });
  await pool.ready();
});
afterAll(async () => {
  await pool.close();
  await Promise.all(open.map((s) => s.close()));
});

/** A query through the pool, materialised like the in-process `run`. */
async function pooled(query: string, grant: Grant): Promise<Outcome> {
  try {
    const answer = await pool.sparql(
      { type: 'sparql', query, accept: ACCEPT, deadline: undefined, rowBudget: undefined, resultRows: 0, baseIRI: undefined, defaultGraphs: undefined, namedGraphs: undefined },
      { open: false, grant },
    );
    const parts: Buffer[] = [];
    for await (const chunk of answer.body) parts.push(chunk as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    if (answer.mediaType === 'application/n-quads') {
      const { quads } = parseQuads(text, { format: 'application/n-quads' });
      return { type: 'quads', quads };
    }
    const parsed = parseResults(text, answer.mediaType);
    return parsed.type === 'boolean' ? parsed : { type: 'bindings', variables: parsed.variables, solutions: parsed.solutions };
  } catch (error) {
    if (error instanceof ForwardedError) return { type: 'error', message: error.reply.body.message };
    throw error;
  }
}

/** The in-process outcome's error message without the error's class name (the pool sends the
 * message the error table gives). */
function comparable(o: Outcome): Outcome {
  return o.type === 'error' ? { type: 'error', message: o.message.replace(/^\w+: /, '') } : o;
}

describe('ABAC view through the query pool: differential against a store holding only the visible quads', () => {
  it.each(SEEDS)('seed %i', async (seed) => {
    const rng = new Rng(seed);
    const data = randomData(rng);
    const expectedQuads = finalQuads(data);
    const all = await storeWith(data);
    open.push(all);
    current = all;
    const failures: string[] = [];
    for (let u = 0; u < USERS_PER_SEED; u++) {
      const user = randomUser(rng);
      const visible = expectedQuads.filter((q) => visibleTo(user, q.label));
      const reference = await referenceStore(visible);
      open.push(reference);
      const grant: Grant = { attributes: user.attributes, hierarchies: [['clearance', [...CLEARANCES]]] };
      for (const shape of SHAPE_NAMES) {
        const generated = generateQuery(rng, shape);
        const query = PREFIXES + generated.query;
        const overPool = await pooled(query, grant);
        const overReference = comparable(run(reference, query));
        const difference = compareOutcomes(overPool, overReference, generated.orderBy);
        if (difference !== undefined) {
          failures.push(
            [
              `seed ${seed}, user #${u} ${user.name}, shape ${shape}`,
              `  query: ${generated.query}`,
              `  difference (pool vs reference store): ${difference}`,
              `  through the pool: ${showOutcome(overPool)}`,
              `  over the reference (${visible.length} of ${expectedQuads.length} quads visible): ${showOutcome(overReference)}`,
            ].join('\n'),
          );
        }
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
