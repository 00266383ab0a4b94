/**
 * XSD constructor functions (SPARQL 1.1 §17.5, XPath 2.0 F&O §17.1 casting), called by IRI:
 * xsd:string, xsd:boolean, xsd:integer (and the types derived from it, range-checked),
 * xsd:decimal, xsd:float, xsd:double, xsd:dateTime, xsd:date, xsd:time.
 *
 * The table of §17.5: an IRI casts only to xsd:string; a string casts when its lexical form is
 * valid for the target (`xsd:integer("1.5")` is an error, `xsd:decimal("1")` is 1.0);
 * numerics and booleans cast among each other (NaN and INF never become integer or decimal);
 * dateTime casts to string, dateTime, date and time. Results are canonical literals; casting to
 * xsd:string gives XPath's canonical string (`xsd:string(1.0)` is "1", `xsd:string(1e7)` is
 * "1.0E7").
 */
import { literal, namedNode } from '@ianode/rdf';
import type { Literal, Term } from '@ianode/rdf';
import { classify, parseBoolean } from './comparison.js';
import type { LiteralValue } from './comparison.js';
import { decimalFromBigint, decimalFromNumber, decimalToXPathString, decimalTruncate, formatDecimal, parseDecimal } from './decimal.js';
import type { Decimal } from './decimal.js';
import { formatDate, formatDateTime, formatTime, parseDate, parseDateTime, parseTime } from './datetime.js';
import type { Temporal } from './datetime.js';
import type { FunctionDef, FunctionTable } from './functions.js';
import { fn1 } from './functions.js';
import { bool, datatypeOf, describe, fail } from './literals.js';
import { formatDouble, formatFloat, parseDoubleLexical, parseIntegerLexical } from './numeric.js';
import type { Numeric } from './numeric.js';
import {
  DATE_NODE, DATE_TIME_NODE, RDF_LANG_STRING, DECIMAL_NODE, DOUBLE_NODE, FLOAT_NODE, INTEGER_RANGES, TIME_NODE,
  XSD_BOOLEAN, XSD_DATE, XSD_DATE_TIME, XSD_DECIMAL, XSD_DOUBLE, XSD_FLOAT, XSD_STRING, XSD_TIME,
} from './xsd.js';

/** A float's value as the double its shortest decimal digits denote (fround(0.1) → 0.1). */
function shortest(n: Numeric): number {
  if (n.type === 'float') return Number(formatFloat(n.value).replace('E', 'e'));
  if (n.type === 'decimal') return Number(formatDecimal(n.value));
  return Number(n.value);
}

function floatingToString(n: Numeric & { type: 'float' | 'double' }): string {
  const x = n.value;
  if (Number.isNaN(x) || !Number.isFinite(x)) return formatDouble(x);
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const abs = Math.abs(x);
  if (abs >= 1e-6 && abs < 1e6) return decimalToXPathString(decimalFromNumber(shortest(n)));
  return n.type === 'float' ? formatFloat(x) : formatDouble(x);
}

function toXPathString(term: Term): string {
  if (term.termType === 'NamedNode') return term.value;
  if (term.termType !== 'Literal') return fail(`xsd:string: cannot cast ${describe(term)}`);
  const value = classify(term);
  switch (value.family) {
    case 'numeric': {
      const n = value.v;
      if (n.type === 'integer') return n.value.toString();
      if (n.type === 'decimal') return decimalToXPathString(n.value);
      return floatingToString(n);
    }
    case 'boolean':
      return value.v ? 'true' : 'false';
    default:
      return term.value;
  }
}

/** The cast's source value: a string literal's lexical form, or a classified typed value. */
function source(term: Term, target: string): LiteralValue {
  if (term.termType !== 'Literal' || datatypeOf(term) === RDF_LANG_STRING) return fail(`${target}: cannot cast ${describe(term)}`);
  return classify(term);
}

function castError(term: Term, target: string): never {
  return fail(`cannot cast ${describe(term)} to ${target}`);
}

function toNumberValue(term: Term, target: string, parse: (lexical: string) => Numeric | undefined): Numeric {
  const value = source(term, target);
  switch (value.family) {
    case 'string':
      return parse(value.v) ?? castError(term, target);
    case 'numeric':
      return value.v;
    case 'boolean':
      return { type: 'integer', value: value.v ? 1n : 0n };
    default:
      return castError(term, target);
  }
}

function integerCast(datatype: string): FunctionDef {
  const node = namedNode(datatype);
  const [min, max] = INTEGER_RANGES.get(datatype)!;
  return fn1((a) => {
    const n = toNumberValue(a, datatype, (lexical) => {
      const value = parseIntegerLexical(lexical);
      return value === undefined ? undefined : { type: 'integer', value };
    });
    let value: bigint;
    if (n.type === 'integer') value = n.value;
    else if (n.type === 'decimal') value = decimalTruncate(n.value);
    else if (!Number.isFinite(n.value)) return castError(a, datatype);
    else value = BigInt(Math.trunc(n.value));
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) return castError(a, datatype);
    return literal(value.toString(), node);
  });
}

function toDecimal(n: Numeric, term: Term): Decimal {
  if (n.type === 'integer') return decimalFromBigint(n.value);
  if (n.type === 'decimal') return n.value;
  if (!Number.isFinite(n.value)) return castError(term, XSD_DECIMAL);
  return decimalFromNumber(shortest(n));
}

function floatingCast(type: 'float' | 'double'): FunctionDef {
  const target = type === 'float' ? XSD_FLOAT : XSD_DOUBLE;
  return fn1((a) => {
    const n = toNumberValue(a, target, (lexical) => {
      const value = parseDoubleLexical(lexical);
      return value === undefined ? undefined : { type: 'double', value };
    });
    const x = n.type === 'integer' ? Number(n.value) : n.type === 'decimal' ? Number(formatDecimal(n.value)) : n.value;
    return type === 'float' ? literal(formatFloat(Math.fround(x)), FLOAT_NODE) : literal(formatDouble(x), DOUBLE_NODE);
  });
}

function temporalCast(
  target: string,
  parse: (lexical: string) => Temporal | undefined,
  format: (t: Temporal) => string,
  node: Literal['datatype'],
): FunctionDef {
  return fn1((a) => {
    const value = source(a, target);
    if (value.family === 'string') {
      if (parse(value.v) === undefined) return castError(a, target);
      return literal(value.v.trim(), node);
    }
    if (value.family !== 'temporal') return castError(a, target);
    if (value.kind === 'time' && target !== XSD_TIME) return castError(a, target);
    if (value.kind === 'date' && target === XSD_TIME) return castError(a, target);
    return literal(format(value.v), node);
  });
}

export const castFunctions: FunctionTable = {
  [XSD_STRING]: fn1((a) => {
    if (a.termType === 'Literal' && datatypeOf(a) === RDF_LANG_STRING) return literal(a.value);
    return literal(toXPathString(a));
  }),
  [XSD_BOOLEAN]: fn1((a) => {
    const value = source(a, XSD_BOOLEAN);
    switch (value.family) {
      case 'string': {
        const b = parseBoolean(value.v);
        return b === undefined ? castError(a, XSD_BOOLEAN) : bool(b);
      }
      case 'boolean':
        return bool(value.v);
      case 'numeric': {
        const n = value.v;
        if (n.type === 'integer') return bool(n.value !== 0n);
        if (n.type === 'decimal') return bool(n.value.m !== 0n);
        return bool(n.value !== 0 && !Number.isNaN(n.value));
      }
      default:
        return castError(a, XSD_BOOLEAN);
    }
  }),
  ...Object.fromEntries([...INTEGER_RANGES.keys()].map((datatype) => [datatype, integerCast(datatype)])),
  [XSD_DECIMAL]: fn1((a) => {
    const n = toNumberValue(a, XSD_DECIMAL, (lexical) => {
      const value = parseDecimal(lexical);
      return value === undefined ? undefined : { type: 'decimal', value };
    });
    return literal(formatDecimal(toDecimal(n, a)), DECIMAL_NODE);
  }),
  [XSD_FLOAT]: floatingCast('float'),
  [XSD_DOUBLE]: floatingCast('double'),
  [XSD_DATE_TIME]: temporalCast(XSD_DATE_TIME, parseDateTime, (t) => formatDateTime(t), DATE_TIME_NODE),
  [XSD_DATE]: temporalCast(XSD_DATE, parseDate, formatDate, DATE_NODE),
  [XSD_TIME]: temporalCast(XSD_TIME, parseTime, formatTime, TIME_NODE),
};
