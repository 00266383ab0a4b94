/**
 * OrderBy (SPARQL 1.1 §18.5, §15.1): a stable sort by the keys (compareForOrderBy; an expression
 * error sorts like unbound). With `limit` (an ORDER BY under a LIMIT, see optimise/passes/top-k)
 * only a bounded max-heap of the best `limit` rows is kept.
 */
import type { Term } from '@ianode/rdf';
import type { PlanOf } from '../algebra/plan.js';
import { BATCH_ROWS, newBatch, RowStore, type Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { bindExpression, valueOrError } from './expression-context.js';
import { NONE, orderOf } from './numeric.js';

const UNREAD = -1;
import { compareForOrderBy } from './expression-library.js';

/** A key's value for a row as a term id (0 = unbound or an error). */
type KeyOf = (data: Uint32Array, base: number) => number;

function keyFunctions(plan: PlanOf<'orderBy'>, q: QueryContext, env: Env): KeyOf[] {
  return plan.keys.map((k) => {
    const e = k.expression.expr;
    if (e.expressionType === 'term' && e.term.termType === 'Variable') {
      const slot = k.expression.slots.get(e.term.value) ?? -1;
      return slot < 0 ? () => 0 : (data, base) => data[base + slot]!;
    }
    const { f, ctx } = bindExpression(q, k.expression, env);
    return (data, base) => {
      const t = valueOrError(f, ctx.at(data, base));
      return t === undefined ? 0 : q.terms.idOf(t);
    };
  });
}

export function* evalOrderBy(plan: PlanOf<'orderBy'>, q: QueryContext, env: Env): Generator<Batch> {
  const W = q.width;
  const keyOf = keyFunctions(plan, q, env);
  const desc = plan.keys.map((k) => k.descending);
  const nk = keyOf.length;
  const limit = plan.limit;
  if (limit !== undefined && limit <= 0) return;
  const values = q.values;
  const rows = new RowStore(W);
  /** Per stored row and key: the key's id, and its value class and value (numeric.ts), read when
   * a comparison first needs them (UNREAD): a top-k mostly decides on the first key. */
  const ids: number[] = [];
  const nums: number[] = [];
  const cls: number[] = [];
  /** Arrival order of the row in each storage index (stability). */
  const seq: number[] = [];
  const read = (x: number): void => {
    const c = values.get(ids[x]!);
    cls[x] = c;
    nums[x] = c === NONE ? 0 : values.value;
  };
  const term = (id: number): Term | undefined => (id === 0 ? undefined : q.terms.term(id));
  const cmp = (a: number, b: number): number => {
    for (let k = 0; k < nk; k++) {
      const x = a * nk + k;
      const y = b * nk + k;
      let c: number;
      if (ids[x] === ids[y]) c = 0;
      else {
        if (cls[x] === UNREAD) read(x);
        if (cls[y] === UNREAD) read(y);
        c = orderOf(cls[x]!, nums[x]!, cls[y]!, nums[y]!);
        if (Number.isNaN(c)) c = compareForOrderBy(term(ids[x]!), term(ids[y]!));
      }
      if (desc[k]) c = -c;
      if (c !== 0) return c;
    }
    return seq[a]! - seq[b]!;
  };
  const setKeys = (i: number, d: Uint32Array, base: number): void => {
    for (let k = 0; k < nk; k++) {
      const id = keyOf[k]!(d, base);
      ids[i * nk + k] = id;
      cls[i * nk + k] = id === 0 ? NONE : UNREAD;
      nums[i * nk + k] = 0;
    }
  };
  const heap: number[] = [];
  let arrived = 0;
  for (const b of q.evaluate(plan.input, env)) {
    q.tick();
    const d = b.data;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      if (limit === undefined || heap.length < limit) {
        const i = rows.push(d, base);
        q.checkBudget(rows.length, 'ORDER BY');
        setKeys(i, d, base);
        seq[i] = arrived++;
        if (limit !== undefined) heapPush(heap, i, cmp);
        continue;
      }
      // Top-k: compare with the worst kept row, using a scratch index past the kept rows.
      const scratch = limit;
      setKeys(scratch, d, base);
      seq[scratch] = arrived++;
      const worst = heap[0]!;
      if (cmp(scratch, worst) >= 0) continue;
      rows.data.set(d.subarray(base, base + W), worst * W);
      for (let k = 0; k < nk; k++) {
        ids[worst * nk + k] = ids[scratch * nk + k]!;
        nums[worst * nk + k] = nums[scratch * nk + k]!;
        cls[worst * nk + k] = cls[scratch * nk + k]!;
      }
      seq[worst] = seq[scratch]!;
      siftDown(heap, 0, cmp);
    }
  }
  const order = limit === undefined ? Array.from({ length: rows.length }, (_, i) => i) : heap.slice();
  order.sort(cmp);
  let out = newBatch(W);
  for (const i of order) {
    if (out.length === BATCH_ROWS) {
      yield out;
      out = newBatch(W);
    }
    out.data.set(rows.data.subarray(i * W, i * W + W), out.length * W);
    out.length++;
  }
  if (out.length > 0) yield out;
}

/** Max-heap by `cmp` (the root is the row that sorts last). */
function heapPush(heap: number[], v: number, cmp: (a: number, b: number) => number): void {
  heap.push(v);
  let i = heap.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (cmp(heap[i]!, heap[p]!) <= 0) break;
    [heap[i], heap[p]] = [heap[p]!, heap[i]!];
    i = p;
  }
}

function siftDown(heap: number[], i: number, cmp: (a: number, b: number) => number): void {
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < n && cmp(heap[l]!, heap[m]!) > 0) m = l;
    if (r < n && cmp(heap[r]!, heap[m]!) > 0) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}
