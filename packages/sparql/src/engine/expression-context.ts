/**
 * Glue between operators and the expression library: compiles a plan expression against its
 * slots and evaluates it row by row through one reusable ExpressionContext that decodes ids to
 * terms on demand (cached per query) and evaluates EXISTS with the row substituted.
 */
import { blankNode, type BlankNode, type Term } from '@ianode/rdf';
import type { Algebra } from 'sparqlalgebrajs';
import type { PlanExpression } from '../algebra/plan.js';
import { ExpressionError } from '../errors.js';
import type { CompiledExpression, ExpressionContext } from '../expressions/api.js';
import type { Env, QueryContext } from './context.js';
import { compileExpression, effectiveBooleanValue } from './expression-library.js';

const EMPTY = new Uint32Array(0);

/** Which solution BNODE(label) calls belong to: the same label within one solution gives the
 * same blank node. Expressions evaluated on one solution (a chain of BINDs) share a scope. */
export class BnodeScope {
  solution = 0;
  private bnodes = new Map<string, BlankNode>();
  private bnodesOf = -1;
  private static counter = 0;

  next(): void {
    this.solution++;
  }

  bnode(prefix: string, label: string | undefined): BlankNode {
    if (label === undefined) return blankNode(`${prefix}${++BnodeScope.counter}`);
    if (this.bnodesOf !== this.solution) {
      this.bnodes = new Map();
      this.bnodesOf = this.solution;
    }
    let b = this.bnodes.get(label);
    if (b === undefined) {
      b = blankNode(`${prefix}${++BnodeScope.counter}`);
      this.bnodes.set(label, b);
    }
    return b;
  }
}

export class RowContext implements ExpressionContext {
  private data: Uint32Array = EMPTY;
  private base = 0;
  private readonly scope: BnodeScope;
  private readonly ownScope: boolean;

  constructor(
    private readonly q: QueryContext,
    private readonly expression: PlanExpression,
    private readonly env: Env,
    scope?: BnodeScope,
  ) {
    this.scope = scope ?? new BnodeScope();
    this.ownScope = scope === undefined;
  }

  get now(): Date {
    return this.q.now;
  }

  get baseIRI(): string | undefined {
    return this.q.baseIRI;
  }

  /** Point the context at a row. */
  at(data: Uint32Array, base: number): this {
    this.data = data;
    this.base = base;
    if (this.ownScope) this.scope.next();
    return this;
  }

  value(slot: number): Term | undefined {
    const id = this.data[this.base + slot];
    return id === undefined || id === 0 ? undefined : this.q.terms.term(id);
  }

  exists(pattern: Algebra.Operation): boolean {
    const plan = this.expression.exists.get(pattern);
    if (plan === undefined) throw new TypeError('EXISTS pattern unknown to the plan');
    const seed = this.data.slice(this.base, this.base + this.q.width);
    seed[this.q.tagSlot] = 0; // a row inside a tagged join carries its tag: not a binding
    for (const b of this.q.evaluate(plan, { seed, graph: this.env.graph })) if (b.length > 0) return true;
    return false;
  }

  bnode(label?: string): BlankNode {
    return this.scope.bnode(this.q.bnodePrefix, label);
  }
}

export function compile(e: PlanExpression): CompiledExpression {
  return compileExpression(e.expr, (name) => e.slots.get(name) ?? -1);
}

/** The value of a compiled expression on the context's row; undefined on an expression error. */
export function valueOrError(f: CompiledExpression, ctx: ExpressionContext): Term | undefined {
  try {
    return f(ctx);
  } catch (e) {
    if (e instanceof ExpressionError) return undefined;
    throw e;
  }
}

/** FILTER semantics (§17.2): the effective boolean value, false on an error. */
export function test(f: CompiledExpression, ctx: ExpressionContext): boolean {
  try {
    return effectiveBooleanValue(f(ctx));
  } catch (e) {
    if (e instanceof ExpressionError) return false;
    throw e;
  }
}

/** A row-evaluator for one plan expression under `env`. */
export function bindExpression(q: QueryContext, e: PlanExpression, env: Env, scope?: BnodeScope): { f: CompiledExpression; ctx: RowContext } {
  return { f: compile(e), ctx: new RowContext(q, e, env, scope) };
}
