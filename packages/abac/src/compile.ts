/**
 * Compiling a label to a tree of closures, so evaluating it never re-parses or re-walks the
 * syntax. Semantics (SPEC §3):
 *
 * - `*` is true and `!` false for everyone;
 * - `attr` (same as `attr=true`) holds when the user holds `attr` or `attr=true`;
 * - `attr=v` holds when the user holds `v`, or — when `v` is not a boolean and the attribute has
 *   a hierarchy containing `v` — any value at or above `v` in it;
 * - `attr!=v` holds when the user holds some value of `attr` other than `v` (never when the user
 *   holds no value of `attr`); hierarchies play no part;
 * - `&` and `|` short-circuit left to right.
 */
import { printLabel, type LabelExpr } from './ast.js';
import type { AttributeSet } from './attributes.js';
import type { HierarchySource } from './hierarchy.js';
import { LruMap } from './lru.js';
import { parseLabel } from './parser.js';
import { isBooleanKeyword } from './words.js';

type Program = (attrs: AttributeSet, hierarchies: HierarchySource | undefined) => boolean;

/** A parsed and compiled label, ready to evaluate against many users. */
export class CompiledLabel {
  private constructor(
    /** The label text it was compiled from (or the canonical text when built from syntax). */
    readonly text: string,
    readonly expr: LabelExpr,
    private readonly program: Program,
  ) {}

  /** Compile already-parsed syntax. */
  static fromExpr(expr: LabelExpr, text: string = printLabel(expr)): CompiledLabel {
    return new CompiledLabel(text, expr, compileExpr(expr));
  }

  /** Whether a user with `attrs` may see what carries this label. */
  evaluate(attrs: AttributeSet, hierarchies?: HierarchySource): boolean {
    return this.program(attrs, hierarchies);
  }
}

/** How many compiled labels the process-wide cache keeps. */
export const COMPILED_LABEL_CACHE_SIZE = 10_000;
const cache = new LruMap<string, CompiledLabel>(COMPILED_LABEL_CACHE_SIZE);

/** Parse and compile `text`, reusing an earlier compilation of the same text. Throws `LabelSyntaxError`. */
export function compileLabel(text: string): CompiledLabel {
  let compiled = cache.get(text);
  if (compiled === undefined) {
    compiled = CompiledLabel.fromExpr(parseLabel(text), text);
    cache.set(text, compiled);
  }
  return compiled;
}

/** Throw `LabelSyntaxError` unless `text` is a well-formed label (use at upload time). */
export function validateLabel(text: string): void {
  compileLabel(text);
}

/** Empty the process-wide compiled-label cache (for tests and memory pressure). */
export function clearCompiledLabelCache(): void {
  cache.clear();
}

function compileExpr(expr: LabelExpr): Program {
  switch (expr.type) {
    case 'any':
      return () => true;
    case 'none':
      return () => false;
    case 'attr':
      return compileEquals(expr.name, 'true');
    case 'compare':
      return expr.op === '=' ? compileEquals(expr.name, expr.value) : compileNotEquals(expr.name, expr.value);
    case 'and':
      return compileAnd(expr.operands.map(compileExpr));
    case 'or':
      return compileOr(expr.operands.map(compileExpr));
  }
}

function compileEquals(name: string, value: string): Program {
  if (isBooleanKeyword(value)) return (attrs) => attrs.hasValue(name, value);
  return (attrs, hierarchies) => {
    const held = attrs.values(name);
    if (held === undefined) return false;
    if (held.has(value)) return true;
    const hierarchy = hierarchies?.(name);
    if (hierarchy === undefined) return false;
    const required = hierarchy.rank(value);
    if (required === undefined) return false;
    for (const v of held) {
      const rank = hierarchy.rank(v);
      if (rank !== undefined && rank >= required) return true;
    }
    return false;
  };
}

function compileNotEquals(name: string, value: string): Program {
  return (attrs) => {
    const held = attrs.values(name);
    return held !== undefined && (held.size > 1 || !held.has(value));
  };
}

function compileAnd(parts: Program[]): Program {
  const [a, b] = parts;
  if (parts.length === 2 && a && b) return (attrs, h) => a(attrs, h) && b(attrs, h);
  return (attrs, h) => {
    for (const p of parts) if (!p(attrs, h)) return false;
    return true;
  };
}

function compileOr(parts: Program[]): Program {
  const [a, b] = parts;
  if (parts.length === 2 && a && b) return (attrs, h) => a(attrs, h) || b(attrs, h);
  return (attrs, h) => {
    for (const p of parts) if (p(attrs, h)) return true;
    return false;
  };
}
