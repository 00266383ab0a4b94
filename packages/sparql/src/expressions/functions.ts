/**
 * How function families describe themselves to the compiler: a table from operator name (as
 * sparqlalgebrajs spells it, lower-cased) or function IRI to a definition that builds a closure
 * from the argument closures once, at compile time.
 */
import type { Term } from '@ianode/rdf';
import type { CompiledExpression, ExpressionContext } from './api.js';

export type Evaluator = CompiledExpression;

export interface FunctionDef {
  /** Allowed argument counts, inclusive. */
  readonly min: number;
  readonly max: number;
  /** True when the result depends only on the arguments (no RAND, NOW, BNODE, base IRI): such
   * calls with constant arguments are evaluated once at compile time. */
  readonly pure: boolean;
  build(args: readonly Evaluator[]): Evaluator;
}

export type FunctionTable = Readonly<Record<string, FunctionDef>>;

/** A function of evaluated arguments, each evaluated eagerly (errors propagate). */
export function fn1(f: (a: Term) => Term, pure = true): FunctionDef {
  return { min: 1, max: 1, pure, build: (args) => { const [a] = args as [Evaluator]; return (ctx) => f(a(ctx)); } };
}

export function fn2(f: (a: Term, b: Term) => Term): FunctionDef {
  return {
    min: 2,
    max: 2,
    pure: true,
    build: (args) => {
      const [a, b] = args as [Evaluator, Evaluator];
      return (ctx) => f(a(ctx), b(ctx));
    },
  };
}

/** Optional trailing arguments arrive as undefined. */
export function fnRange(min: number, max: number, f: (args: Term[]) => Term): FunctionDef {
  return {
    min,
    max,
    pure: true,
    build: (args) => (ctx) => f(args.map((a) => a(ctx))),
  };
}

/** A function of the context only (RAND, NOW, UUID...). */
export function fn0(f: (ctx: ExpressionContext) => Term): FunctionDef {
  return { min: 0, max: 0, pure: false, build: () => f };
}

/** A definition that sees the argument closures themselves (lazy forms: IF, COALESCE, &&...). */
export function special(min: number, max: number, build: (args: readonly Evaluator[]) => Evaluator): FunctionDef {
  return { min, max, pure: true, build };
}

const constants = new WeakMap<Evaluator, Term>();

/** A closure returning a fixed term, recognisable by `constantOf` (for folding and regexes). */
export function constant(term: Term): Evaluator {
  const evaluator: Evaluator = () => term;
  constants.set(evaluator, term);
  return evaluator;
}

export function constantOf(evaluator: Evaluator): Term | undefined {
  return constants.get(evaluator);
}
