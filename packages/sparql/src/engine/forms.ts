/**
 * Query forms (SPARQL 1.1 §16): SELECT solutions, ASK, CONSTRUCT and DESCRIBE.
 *
 * DESCRIBE returns, for each resource, its concise bounded description in the query's default
 * graph: every triple with the resource as subject, and recursively the same for each blank node
 * object reached that way (no reification, no inbound triples).
 */
import { blankNode, defaultGraph, quad, termToKey, type BlankNode, type Quad, type Term } from '@ianode/rdf';
import type * as RDF from '@rdfjs/types';
import type { PlanTerm, QueryPlan, TemplateTerm } from '../algebra/plan.js';
import type { Solution } from '../api.js';
import { TOP_ENV, type QueryContext } from './context.js';

export function* selectSolutions(q: QueryContext, plan: QueryPlan & { form: 'select' }): Generator<Solution> {
  const W = q.width;
  const vars = plan.variables;
  let count = 0;
  for (const b of q.evaluate(plan.root, TOP_ENV)) {
    q.tick();
    const d = b.data;
    for (let r = 0; r < b.length; r++) {
      q.checkBudget(++count, 'the result');
      const base = r * W;
      const sol: Solution = new Map();
      for (const v of vars) {
        const id = d[base + v.slot]!;
        if (id !== 0) sol.set(v.name, q.terms.term(id));
      }
      yield sol;
    }
  }
}

export function ask(q: QueryContext, plan: QueryPlan): boolean {
  for (const b of q.evaluate(plan.root, TOP_ENV)) if (b.length > 0) return true;
  return false;
}

export function* constructQuads(q: QueryContext, plan: QueryPlan & { form: 'construct' }): Generator<Quad> {
  const W = q.width;
  const seen = new Set<string>();
  let solution = 0;
  for (const b of q.evaluate(plan.root, TOP_ENV)) {
    q.tick();
    const d = b.data;
    for (let r = 0; r < b.length; r++) {
      const base = r * W;
      solution++;
      const bnodes = new Map<string, BlankNode>();
      const termOf = (t: TemplateTerm): Term | undefined => {
        if (t.kind === 'const') return t.term;
        if (t.kind === 'var') {
          const id = d[base + t.slot]!;
          return id === 0 ? undefined : q.terms.term(id);
        }
        let bn = bnodes.get(t.label);
        if (bn === undefined) {
          bn = blankNode(`${q.bnodePrefix}c${solution}_${t.label}`);
          bnodes.set(t.label, bn);
        }
        return bn;
      };
      for (const t of plan.template) {
        const s = termOf(t.s);
        const p = termOf(t.p);
        const o = termOf(t.o);
        if (s === undefined || p === undefined || o === undefined) continue;
        if ((s.termType !== 'NamedNode' && s.termType !== 'BlankNode') || p.termType !== 'NamedNode') continue;
        if (o.termType === 'DefaultGraph') continue;
        const key = `${termToKey(s)} ${termToKey(p)} ${termToKey(o)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        q.checkBudget(seen.size, 'the CONSTRUCT result');
        yield quad(s as RDF.Quad_Subject, p as RDF.Quad_Predicate, o as RDF.Quad_Object, defaultGraph());
      }
    }
  }
}

export function* describeQuads(q: QueryContext, plan: QueryPlan & { form: 'describe' }): Generator<Quad> {
  const W = q.width;
  const described = new Set<number>();
  const seenTriples = new Set<string>();
  const consts = plan.terms.filter((t): t is PlanTerm & { kind: 'const' } => t.kind === 'const');
  const slots = plan.terms.filter((t): t is PlanTerm & { kind: 'var' } => t.kind === 'var').map((t) => t.slot);
  function* describe(id: number): Generator<Quad> {
    const queue = [id];
    while (queue.length > 0) {
      const s = queue.pop()!;
      if (described.has(s)) continue;
      described.add(s);
      q.checkBudget(described.size, 'DESCRIBE');
      // One graph holds a triple once and each subject is described once, so only a merged
      // default graph (several graphs) can repeat a triple.
      const merged = q.defaultGraphs.length > 1;
      for (const g of q.defaultGraphs) {
        for (const b of q.dataset.matchBatches({ s, g })) {
          q.tick();
          for (let i = 0; i < b.length; i++) {
            if (merged) {
              const key = `${b.s[i]} ${b.p[i]} ${b.o[i]}`;
              if (seenTriples.has(key)) continue;
              seenTriples.add(key);
            }
            const o = q.terms.term(b.o[i]!);
            if (o.termType === 'BlankNode') queue.push(b.o[i]!);
            yield quad(q.terms.term(b.s[i]!) as RDF.Quad_Subject, q.terms.term(b.p[i]!) as RDF.Quad_Predicate, o as RDF.Quad_Object, defaultGraph());
          }
        }
      }
    }
  }
  for (const c of consts) yield* describe(c.id);
  if (slots.length === 0) return;
  for (const b of q.evaluate(plan.root, TOP_ENV)) {
    for (let r = 0; r < b.length; r++) {
      for (const slot of slots) {
        const id = b.data[r * W + slot]!;
        if (id !== 0) yield* describe(id);
      }
    }
  }
}
