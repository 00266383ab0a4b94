/**
 * Property path patterns (SPARQL 1.1 §18.2.2.7) joined with incoming rows: for each row the bound
 * ends are substituted, the path's pairs are enumerated in the pattern's graph(s), and one row
 * per pair is emitted. A graph variable left unbound ranges over the named graphs, one at a time
 * (a path never crosses graphs).
 */
import type { PathExpr, PlanOf, PlanTerm } from '../algebra/plan.js';
import { BATCH_ROWS, newBatch, unitBatch, type Batch } from '../engine/batch.js';
import { graphMode } from '../engine/bgp.js';
import type { Env, QueryContext } from '../engine/context.js';
import { PathEvaluator } from './pairs.js';

export function evalPath(plan: PlanOf<'path'>, q: QueryContext, env: Env): Iterable<Batch> {
  return pathJoin(q, plan, [unitBatch(q.width, env.seed)], env);
}

function canBeZeroLength(p: PathExpr): boolean {
  switch (p.type) {
    case 'zeroOrMore':
    case 'zeroOrOne':
      return true;
    case 'oneOrMore':
    case 'inv':
      return canBeZeroLength(p.path);
    case 'seq':
      return p.items.every(canBeZeroLength);
    case 'alt':
      return p.items.some(canBeZeroLength);
    default:
      return false;
  }
}

function valueIn(t: PlanTerm, d: Uint32Array, base: number): number {
  return t.kind === 'const' ? t.id : d[base + t.slot]!;
}

export function* pathJoin(q: QueryContext, plan: PlanOf<'path'>, input: Iterable<Batch>, env: Env): Generator<Batch> {
  const W = q.width;
  const gm = graphMode(q, plan.graph, env);
  if (gm.kind === 'none') return;
  const evaluators = new Map<number, PathEvaluator>();
  const evaluatorFor = (key: number, graphs: readonly number[]): PathEvaluator => {
    let e = evaluators.get(key);
    if (e === undefined) {
      e = new PathEvaluator(q, graphs);
      evaluators.set(key, e);
    }
    return e;
  };
  // A zero-length path joins a node with itself only when the node is in the graph, unless the
  // node was written in the query (§18.4 ZeroLengthPath): ends bound from other patterns must be
  // nodes of the graph.
  const zeroable = canBeZeroLength(plan.path);
  const sSlot = plan.subject.kind === 'var' ? plan.subject.slot : -1;
  const oSlot = plan.object.kind === 'var' ? plan.object.slot : -1;
  const gSlot = gm.kind === 'var' ? gm.slot : -1;
  const pairs: number[] = [];
  let out = newBatch(W);

  for (const inb of input) {
    q.tick();
    const d = inb.data;
    for (let r = 0; r < inb.length; r++) {
      const base = r * W;
      const s = valueIn(plan.subject, d, base);
      const o = valueIn(plan.object, d, base);
      let graphs: number[];
      if (gm.kind === 'fixed') graphs = [gm.id];
      else if (gm.kind === 'merge') graphs = [-1];
      else {
        const g = d[base + gSlot]!;
        graphs = g !== 0 ? (q.isNamed(g) ? [g] : []) : q.namedGraphs();
      }
      for (const g of graphs) {
        const ev = g === -1 ? evaluatorFor(-1, (gm as { ids: number[] }).ids) : evaluatorFor(g, [g]);
        if (zeroable && ((sSlot >= 0 && s !== 0 && !ev.hasNode(s)) || (oSlot >= 0 && o !== 0 && !ev.hasNode(o)))) continue;
        pairs.length = 0;
        ev.pairs(plan.path, s, o, (x, y) => {
          pairs.push(x, y);
        });
        q.checkBudget(pairs.length / 2, 'a property path');
        for (let i = 0; i < pairs.length; i += 2) {
          const x = pairs[i]!;
          const y = pairs[i + 1]!;
          if (out.length === BATCH_ROWS) {
            yield out;
            out = newBatch(W);
          }
          const od = out.data;
          const ob = out.length * W;
          for (let j = 0; j < W; j++) od[ob + j] = d[base + j]!;
          if (sSlot >= 0) od[ob + sSlot] = x;
          if (oSlot >= 0) {
            const cur = od[ob + oSlot]!;
            if (cur !== 0 && cur !== y) continue;
            od[ob + oSlot] = y;
          }
          if (gSlot >= 0) {
            const cur = od[ob + gSlot]!;
            if (cur !== 0 && cur !== g) continue;
            od[ob + gSlot] = g;
          }
          out.length++;
        }
      }
    }
  }
  if (out.length > 0) yield out;
}
