/**
 * Set functions (SPARQL 1.1 §18.5.1): COUNT, SUM, AVG, MIN, MAX, SAMPLE, GROUP_CONCAT, each
 * optionally DISTINCT (by RDF term).
 *
 * Feeding: the evaluator calls `add` once per solution of the group with the argument's value,
 * or undefined when the argument is unbound or an error. For `COUNT(*)` (the argument is a
 * `wildcard` expression, which must not be compiled) it passes any non-undefined term per
 * solution; for `COUNT(DISTINCT *)` it passes a term that identifies the solution (equal
 * solutions, equal terms; e.g. a literal of the solution's canonical key), since DISTINCT
 * compares the terms passed in.
 *
 * Errors (§18.5.1): an undefined value, or a value the function cannot take (SUM of a string),
 * makes SUM, AVG and GROUP_CONCAT an error, so `result()` returns undefined; COUNT counts only
 * values, and MIN, MAX and SAMPLE skip undefined. Over an empty group COUNT and SUM give 0, AVG
 * gives 0 (the spec's Avg({}) = 0), MIN, MAX and SAMPLE give undefined, GROUP_CONCAT gives "".
 */
import type { Algebra } from 'sparqlalgebrajs';
import { literal, termToKey } from '@ianode/rdf';
import type { Term } from '@ianode/rdf';
import { ExpressionError } from '../errors.js';
import type { Aggregator } from './api.js';
import { integerLiteral, arithmetic, numericLiteral, parseNumeric } from './numeric.js';
import type { Numeric } from './numeric.js';
import { compareForMinMax } from './order.js';

const ZERO: Numeric = { type: 'integer', value: 0n };

function count(): Aggregator {
  let n = 0;
  return {
    add: (value) => {
      if (value !== undefined) n++;
    },
    result: () => integerLiteral(n),
  };
}

function numericValue(value: Term | undefined): Numeric | undefined {
  return value?.termType === 'Literal' ? parseNumeric(value) : undefined;
}

function sum(): Aggregator {
  let total: Numeric | undefined = ZERO;
  return {
    add: (value) => {
      if (total === undefined) return;
      const n = numericValue(value);
      total = n === undefined ? undefined : arithmetic('+', total, n);
    },
    result: () => (total === undefined ? undefined : numericLiteral(total)),
  };
}

function avg(): Aggregator {
  let total: Numeric | undefined = ZERO;
  let n = 0n;
  return {
    add: (value) => {
      if (total === undefined) return;
      const v = numericValue(value);
      total = v === undefined ? undefined : arithmetic('+', total, v);
      n++;
    },
    result: () => {
      if (total === undefined) return undefined;
      if (n === 0n) return numericLiteral(ZERO);
      try {
        return numericLiteral(arithmetic('/', total, { type: 'integer', value: n }));
      } catch (error) {
        if (error instanceof ExpressionError) return undefined;
        throw error;
      }
    },
  };
}

function extreme(sign: 1 | -1): Aggregator {
  let best: Term | undefined;
  return {
    add: (value) => {
      if (value !== undefined && (best === undefined || sign * compareForMinMax(value, best) > 0)) best = value;
    },
    result: () => best,
  };
}

function sample(): Aggregator {
  let first: Term | undefined;
  return {
    add: (value) => {
      if (first === undefined) first = value;
    },
    result: () => first,
  };
}

/** Concatenates lexical forms (IRIs too; blank nodes are an error) into a simple literal. */
function groupConcat(separator: string): Aggregator {
  let parts: string[] | undefined = [];
  return {
    add: (value) => {
      if (parts === undefined) return;
      if (value === undefined || (value.termType !== 'Literal' && value.termType !== 'NamedNode')) parts = undefined;
      else parts.push(value.value);
    },
    result: () => (parts === undefined ? undefined : literal(parts.join(separator))),
  };
}

/** Passes each distinct term (and undefined, once) through to the inner aggregator. */
function distinct(inner: Aggregator): Aggregator {
  const seen = new Set<string>();
  let sawUndefined = false;
  return {
    add: (value) => {
      if (value === undefined) {
        if (sawUndefined) return;
        sawUndefined = true;
      } else {
        const key = termToKey(value);
        if (seen.has(key)) return;
        seen.add(key);
      }
      inner.add(value);
    },
    result: () => inner.result(),
  };
}

/** A fresh aggregator for one group. */
export function createAggregator(agg: Algebra.AggregateExpression): Aggregator {
  let aggregator: Aggregator;
  switch (agg.aggregator) {
    case 'count':
      aggregator = count();
      break;
    case 'sum':
      aggregator = sum();
      break;
    case 'avg':
      aggregator = avg();
      break;
    case 'min':
      aggregator = extreme(-1);
      break;
    case 'max':
      aggregator = extreme(1);
      break;
    case 'sample':
      aggregator = sample();
      break;
    case 'group_concat':
      aggregator = groupConcat((agg as Algebra.GroupConcatExpression).separator ?? ' ');
      break;
    default:
      throw new TypeError(`unknown aggregate ${String((agg as { aggregator: unknown }).aggregator)}`);
  }
  return agg.distinct ? distinct(aggregator) : aggregator;
}
