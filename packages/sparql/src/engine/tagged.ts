/**
 * Tagged joins: OPTIONAL and FILTER (NOT) EXISTS over a right side that distributes over joins
 * (`seedable`) run as one pipeline instead of once per row. Each incoming row is numbered in the
 * hidden tag slot, the rows stream through the right side (a chain of index or hash joins that
 * keeps row order), and the outputs, grouped by tag, decide each row's fate:
 * - LeftJoin: its matches that pass the OPTIONAL's filter, or the row alone when none does;
 * - semi-join (EXISTS): the row when it has a match; anti-join (NOT EXISTS): when it has none.
 */
import type { Plan, PlanExpression } from '../algebra/plan.js';
import { appendRow, BATCH_ROWS, newBatch, type Batch } from './batch.js';
import type { Env, QueryContext } from './context.js';
import { bindExpression, test } from './expression-context.js';
import { joinInto } from './join.js';

interface Pending {
  data: Uint32Array;
  length: number;
  /** Tag of the first row. */
  first: number;
}

type Mode = 'optional' | 'exists' | 'notExists';

export function* taggedJoin(q: QueryContext, input: Iterable<Batch>, right: Plan, env: Env, mode: Mode, filter?: PlanExpression): Generator<Batch> {
  const W = q.width;
  const TAG = q.tagSlot;
  const fifo: Pending[] = [];
  let counter = 0;
  function* tagged(): Generator<Batch> {
    for (const b of input) {
      const kept = new Uint32Array(b.data.subarray(0, b.length * W));
      const first = counter + 1;
      for (let r = 0; r < b.length; r++) kept[r * W + TAG] = ++counter;
      fifo.push({ data: kept, length: b.length, first });
      // The pipeline gets its own copy: the pending rows must stay as they came.
      yield { width: W, length: b.length, data: kept.slice() };
    }
  }
  const check = filter ? bindExpression(q, filter, env) : undefined;
  let out = newBatch(W);
  let headRow = 0; // row index within fifo[0]
  let headMatched = false;

  // Emit (or drop) every pending row whose tag is below `tag`.
  function* settleBefore(tag: number): Generator<Batch> {
    while (fifo.length > 0) {
      const head = fifo[0]!;
      if (head.first + headRow >= tag) return;
      const keep = mode === 'optional' ? !headMatched : mode === 'notExists' ? !headMatched : false;
      if (keep) {
        if (out.length === BATCH_ROWS) {
          yield out;
          out = newBatch(W);
        }
        appendRow(out, head.data, headRow * W);
        out.data[(out.length - 1) * W + TAG] = 0;
      }
      headMatched = false;
      if (++headRow === head.length) {
        fifo.shift();
        headRow = 0;
      }
    }
  }

  for (const ob of joinInto(q, tagged(), undefined, right, env)) {
    q.tick();
    const d = ob.data;
    for (let r = 0; r < ob.length; r++) {
      const base = r * W;
      const tag = d[base + TAG]!;
      yield* settleBefore(tag);
      if (mode === 'optional') {
        if (check !== undefined && !test(check.f, check.ctx.at(d, base))) continue;
        if (out.length === BATCH_ROWS) {
          yield out;
          out = newBatch(W);
        }
        appendRow(out, d, base);
        out.data[(out.length - 1) * W + TAG] = 0;
        headMatched = true;
      } else if (!headMatched) {
        headMatched = true;
        if (mode === 'exists') {
          const head = fifo[0]!;
          if (out.length === BATCH_ROWS) {
            yield out;
            out = newBatch(W);
          }
          appendRow(out, head.data, headRow * W);
          out.data[(out.length - 1) * W + TAG] = 0;
        }
      }
    }
  }
  yield* settleBefore(Infinity);
  if (out.length > 0) yield out;
}
