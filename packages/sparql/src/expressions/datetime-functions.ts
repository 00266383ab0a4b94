/**
 * Functions on dates and times (SPARQL 1.1 §17.4.5): NOW, YEAR, MONTH, DAY, HOURS, MINUTES,
 * SECONDS, TIMEZONE, TZ. They take an xsd:dateTime; YEAR/MONTH/DAY also accept an xsd:date and
 * HOURS/MINUTES/SECONDS an xsd:time (as XPath's *-from-date / *-from-time functions do).
 */
import { literal } from '@ianode/rdf';
import type { Literal, Term } from '@ianode/rdf';
import { parseDecimal } from './decimal.js';
import { parseTemporal, timezoneDuration } from './datetime.js';
import type { Temporal, TemporalKind } from './datetime.js';
import type { FunctionDef, FunctionTable } from './functions.js';
import { fn0, fn1 } from './functions.js';
import { describe, fail } from './literals.js';
import { integerLiteral, numericLiteral } from './numeric.js';
import { DATE_TIME_NODE, DAY_TIME_DURATION_NODE } from './xsd.js';

function temporalArg(term: Term, kinds: readonly TemporalKind[], fn: string): Temporal {
  if (term.termType === 'Literal') {
    const parsed = parseTemporal(term);
    if (parsed && kinds.includes(parsed.kind)) return parsed.value;
  }
  return fail(`${fn}: expected an xsd:dateTime, got ${describe(term)}`);
}

const DATE_KINDS: readonly TemporalKind[] = ['dateTime', 'date'];
const TIME_KINDS: readonly TemporalKind[] = ['dateTime', 'time'];
const ALL_KINDS: readonly TemporalKind[] = ['dateTime', 'date', 'time'];

function field(kinds: readonly TemporalKind[], fn: string, read: (t: Temporal) => Literal): FunctionDef {
  return fn1((a) => read(temporalArg(a, kinds, fn)));
}

export const dateTimeFunctions: FunctionTable = {
  /** The same instant for every call within a query (ctx.now). */
  now: fn0((ctx) => literal(ctx.now.toISOString(), DATE_TIME_NODE)),
  year: field(DATE_KINDS, 'YEAR', (t) => integerLiteral(t.year)),
  month: field(DATE_KINDS, 'MONTH', (t) => integerLiteral(t.month)),
  day: field(DATE_KINDS, 'DAY', (t) => integerLiteral(t.day)),
  hours: field(TIME_KINDS, 'HOURS', (t) => integerLiteral(t.hour)),
  minutes: field(TIME_KINDS, 'MINUTES', (t) => integerLiteral(t.minute)),
  /** An xsd:decimal, fractional seconds included. */
  seconds: field(TIME_KINDS, 'SECONDS', (t) =>
    numericLiteral({ type: 'decimal', value: parseDecimal(`${t.second}.${t.fraction || '0'}`)! }),
  ),
  /** An xsd:dayTimeDuration; an error when the value has no timezone. */
  timezone: field(ALL_KINDS, 'TIMEZONE', (t) =>
    t.tz === undefined ? fail('TIMEZONE: the value has no timezone') : literal(timezoneDuration(t.tz), DAY_TIME_DURATION_NODE),
  ),
  /** The timezone as written ('Z', '-08:00'), or "" without one. */
  tz: field(ALL_KINDS, 'TZ', (t) => literal(t.tzText)),
};
