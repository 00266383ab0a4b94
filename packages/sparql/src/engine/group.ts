/**
 * Group and aggregation (SPARQL 1.1 §18.5 Group, Aggregation, AggregateJoin; §11). Rows are
 * grouped by the ids of the key slots (an unbound key is its own value); without GROUP BY the
 * whole input is one group, even when empty. COUNT(*) and COUNT(?v) without DISTINCT are counted
 * directly; other aggregates go through the expression library's `createAggregator`.
 */
import { literal, namedNode, type Term } from '@ianode/rdf';
import type { AggregateBinding, PlanOf } from '../algebra/plan.js';
import type { Aggregator } from '../expressions/api.js';
import { idAggregate, type IdAggregate } from './aggregate-values.js';
import { BATCH_ROWS, newBatch, type Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { bindExpression, valueOrError } from './expression-context.js';
import { createAggregator } from './expression-library.js';
import { allSlots, RowKeySet } from './row-set.js';

const XSD_INTEGER = namedNode('http://www.w3.org/2001/XMLSchema#integer');

/** One aggregate's state across all groups. */
interface AggregateState {
  binding: AggregateBinding;
  /** COUNT(*) / COUNT(?v) fast path: counts per group, and the slot to test (-1 = every row,
   * -2 = a variable never bound here). */
  counts: Uint32Array | undefined;
  countSlot: number;
  aggregators: Aggregator[];
  /** Distinct rows per group for COUNT(DISTINCT *). */
  distinctRows: RowKeySet | undefined;
  feed: ((group: number, data: Uint32Array, base: number) => void) | undefined;
  /** MIN / MAX / SUM / AVG of a variable over ids (aggregate-values.ts). */
  byId: IdAggregate | undefined;
}

export function* evalGroup(plan: PlanOf<'group'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const groups = new RowKeySet(plan.keys, q, 'GROUP BY');
  const states = plan.aggregates.map((a) => aggregateState(a, q, env));
  const scratch = new Uint32Array(W + 1);
  const all = allSlots(W);

  for (const b of q.evaluate(plan.input, env)) {
    q.tick();
    const d = b.data;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      const g = groups.add(d, base);
      for (const st of states) {
        if (st.counts !== undefined) {
          if (g >= st.counts.length) st.counts = grow(st.counts, g);
          if (st.distinctRows !== undefined) {
            for (const j of all) scratch[j] = d[base + j]!;
            scratch[W] = g;
            const before = st.distinctRows.size;
            st.distinctRows.add(scratch, 0);
            if (st.distinctRows.size === before) continue;
          }
          if (st.countSlot === -1 || (st.countSlot >= 0 && d[base + st.countSlot] !== 0)) st.counts[g]!++;
        } else {
          st.feed!(g, d, base);
        }
      }
    }
  }
  // Without GROUP BY, an empty input is still one (empty) group.
  if (groups.size === 0 && plan.keys.length === 0) groups.add(new Uint32Array(W), 0);

  let out = newBatch(W);
  const keys = plan.keys;
  const countIds = new Map<number, number>();
  const countId = (n: number): number => {
    let id = countIds.get(n);
    if (id === undefined) {
      id = q.terms.idOf(literal(String(n), XSD_INTEGER));
      countIds.set(n, id);
    }
    return id;
  };
  for (let g = 0; g < groups.size; g++) {
    if (out.length === BATCH_ROWS) {
      yield out;
      out = newBatch(W);
    }
    const od = out.data;
    const ob = out.length * W;
    for (let k = 0; k < keys.length; k++) od[ob + keys[k]!] = groups.keys[g * keys.length + k]!;
    for (const st of states) {
      if (st.counts !== undefined) {
        od[ob + st.binding.slot] = countId(g < st.counts.length ? st.counts[g]! : 0);
        continue;
      }
      if (st.byId !== undefined) {
        od[ob + st.binding.slot] = st.byId.result(g);
        continue;
      }
      const t: Term | undefined = aggregatorOf(st, g).result();
      od[ob + st.binding.slot] = t === undefined ? 0 : q.terms.idOf(t);
    }
    out.length++;
  }
  if (out.length > 0) yield out;
}

function grow(a: Uint32Array, index: number): Uint32Array {
  const n = new Uint32Array(Math.max(index + 1, a.length * 2));
  n.set(a);
  return n;
}

function aggregatorOf(st: AggregateState, g: number): Aggregator {
  let a = st.aggregators[g];
  if (a === undefined) {
    a = createAggregator(st.binding.aggregate);
    st.aggregators[g] = a;
  }
  return a;
}

function aggregateState(binding: AggregateBinding, q: QueryContext, env: Env): AggregateState {
  const agg = binding.aggregate;
  const st: AggregateState = { binding, counts: undefined, countSlot: -1, aggregators: [], distinctRows: undefined, feed: undefined, byId: undefined };
  const arg = binding.argument;
  if (agg.aggregator === 'count' && arg === undefined) {
    st.counts = new Uint32Array(16);
    if (agg.distinct) st.distinctRows = new RowKeySet(allSlots(q.width + 1), q, 'COUNT(DISTINCT *)');
    return st;
  }
  const e = arg?.expr;
  if (agg.aggregator === 'count' && !agg.distinct && e?.expressionType === 'term' && e.term.termType === 'Variable') {
    st.counts = new Uint32Array(16);
    st.countSlot = arg!.slots.get(e.term.value) ?? -1;
    if (st.countSlot < 0) st.countSlot = -2; // never bound: counts stay 0
    return st;
  }
  const slot = e?.expressionType === 'term' && e.term.termType === 'Variable' ? arg!.slots.get(e.term.value) : undefined;
  const byId = slot !== undefined && !agg.distinct ? idAggregate(agg.aggregator, q) : undefined;
  if (byId !== undefined) {
    st.byId = byId;
    st.feed = (g, data, base) => byId.add(g, data[base + slot!]!);
    return st;
  }
  if (arg === undefined) {
    // An aggregate of "*" other than COUNT: feed one value per row.
    const one = literal('1', XSD_INTEGER);
    st.feed = (g) => aggregatorOf(st, g).add(one);
    return st;
  }
  const { f, ctx } = bindExpression(q, arg, env);
  st.feed = (g, data, base) => aggregatorOf(st, g).add(valueOrError(f, ctx.at(data, base)));
  return st;
}
