/**
 * The value fast path (src/engine/numeric.ts, aggregate-values.ts) against the general path (the
 * expression library on terms, which defines the semantics): the same queries over random
 * decimals of many digits, equal values in different lexical forms, negative zero, huge and tiny
 * magnitudes, doubles, floats, and dateTimes / dates with and without timezone, run with the fast
 * path on and off, must give identical answers (in order, for ORDER BY).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QuadStore } from '@ianode/store';
import { compareOf, DATE_TIME, EXACT, newKeyValue, NO_TZ, NUMERIC, readKey, SCALED, valueFastPath } from '../../src/engine/numeric.js';
import { select, selectOrdered, storeWith } from './support.js';
import { mulberry32 as random } from '@ianode/testkit';

const XSD = 'http://www.w3.org/2001/XMLSchema#';


const rnd = random(20261124);
const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
const digits = (n: number): string => Array.from({ length: n }, () => String(int(0, 9))).join('');
const pick = <T,>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;

/** A decimal lexical form: short or up to 40 digits, with leading / trailing zeros now and then. */
function randomDecimal(): string {
  const sign = pick(['', '', '-', '+']);
  const whole = pick(['0', String(int(1, 9)), digits(int(1, 4)), digits(int(10, 25)), '000' + digits(3)]);
  const frac = pick(['', digits(1), digits(2), digits(2) + '000', digits(int(10, 30)), '0'.repeat(int(20, 30)) + digits(2)]);
  return `${sign}${whole}${frac === '' ? (rnd() < 0.5 ? '.0' : '') : '.' + frac}`;
}

/** Values with the same numeric value in different lexical forms and types, and edge cases. */
const FIXED = [
  '"1"^^xsd:integer', '"01"^^xsd:integer', '"+1"^^xsd:integer', '"1.0"^^xsd:decimal', '"1.00"^^xsd:decimal', '"1"^^xsd:decimal',
  '"1.0E0"^^xsd:double', '"1"^^xsd:float', '"0.1"^^xsd:decimal', '"0.1"^^xsd:double', '"0.1"^^xsd:float', '"0.10000000000000000000001"^^xsd:decimal',
  '"0.0"^^xsd:decimal', '"-0.0"^^xsd:decimal', '"0"^^xsd:integer', '"-0"^^xsd:integer', '"-0.0E0"^^xsd:double', '"0.0E0"^^xsd:double',
  '"123456789012345678901234567890"^^xsd:integer', '"123456789012345678901234567891"^^xsd:integer', '"123456789012345678901234567890.000"^^xsd:decimal',
  '"0.000000000000000000000000000001"^^xsd:decimal', '"0.0000000000000000000000000000010"^^xsd:decimal', '"0.000000000000000000000000000002"^^xsd:decimal',
  '"9007199254740993"^^xsd:integer', '"9007199254740992"^^xsd:integer', '"9007199254740992.5"^^xsd:decimal',
  '"99999999999999.99"^^xsd:decimal', '"99999999999999.98"^^xsd:decimal', '"999999999999999.9"^^xsd:decimal',
  '"INF"^^xsd:double', '"-INF"^^xsd:double', '"NaN"^^xsd:double', '"1e400"^^xsd:double', '"1.5e3"^^xsd:double', '"1500"^^xsd:integer',
  '"abc"^^xsd:decimal', '" 2.5"^^xsd:decimal', '"2.5 "^^xsd:decimal', '"2.5"^^xsd:decimal', '"2.50"', '"x"', '"2.5"@en',
  '"1.5"^^xsd:int', '"7"^^xsd:long', '"2.5"^^<http://example/unknown>',
  '"2008-05-01T10:00:00"^^xsd:dateTime', '"2008-05-01T10:00:00Z"^^xsd:dateTime', '"2008-05-01T12:00:00+02:00"^^xsd:dateTime',
  '"2008-05-01T10:00:00.000"^^xsd:dateTime', '"2008-05-01T10:00:00.0001"^^xsd:dateTime', '"2008-05-01T10:00:00.00011"^^xsd:dateTime',
  '"2008-05-01T10:00:00.123456789"^^xsd:dateTime', '"2008-05-01T10:00:00.1234567891"^^xsd:dateTime',
  '"2008-04-30T24:00:00"^^xsd:dateTime', '"2008-05-01T00:00:00"^^xsd:dateTime', '"2008-05-01T23:59:59-14:00"^^xsd:dateTime',
  '"2008-05-02T00:00:00+14:00"^^xsd:dateTime', '"2008-05-01T00:00:00-14:00"^^xsd:dateTime', '"2008-13-01T00:00:00"^^xsd:dateTime',
  '"-0044-03-15T12:00:00Z"^^xsd:dateTime', '"12345-01-01T00:00:00Z"^^xsd:dateTime', '"2008-05-01T10:00:00Z"^^xsd:dateTimeStamp',
  '"2008-05-01T10:00:00.Z"^^xsd:dateTime', '"2008-05-01T10:00:00+14:01"^^xsd:dateTime', '"2008-05-01T10:60:00"^^xsd:dateTime',
  '"2008-05-01T10:00:00+05:60"^^xsd:dateTime', '"2008-05-01T10:00:00.1230000-00:00"^^xsd:dateTime', '"2000-02-29T00:00:00"^^xsd:dateTime',
  '"1900-02-29T00:00:00"^^xsd:dateTime', '"0000-01-01T00:00:00Z"^^xsd:dateTime', '"2008-5-01T10:00:00"^^xsd:dateTime',
  '"2008-05-01"^^xsd:date', '"2008-05-01Z"^^xsd:date', '"2008-05-01+13:00"^^xsd:date', '"2008-05-02-11:00"^^xsd:date', '"2008-02-30"^^xsd:date',
  '"10:00:00"^^xsd:time', '"P1D"^^xsd:dayTimeDuration', '"true"^^xsd:boolean', '<http://example/iri>', '_:b1',
];

function randomDateTime(): string {
  const y = int(1999, 2012);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const frac = pick(['', '', '.' + digits(int(1, 3)), '.' + digits(int(4, 12))]);
  const tz = pick(['', '', 'Z', '+01:00', '-05:30', '+14:00', '-14:00']);
  return `"${y}-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}${frac}${tz}"^^xsd:dateTime`;
}

function randomDate(): string {
  const tz = pick(['', '', 'Z', '+05:00', '-14:00']);
  return `"${int(2005, 2009)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}${tz}"^^xsd:date`;
}

function randomNumeric(): string {
  switch (int(0, 5)) {
    case 0:
      return `"${randomDecimal().replace(/\..*$/, '')}"^^xsd:integer`;
    case 1:
      return `"${(rnd() * 10 ** int(-5, 20) * (rnd() < 0.3 ? -1 : 1)).toExponential(int(0, 16))}"^^xsd:double`;
    case 2:
      return `"${(rnd() * 1000).toFixed(int(0, 3))}"^^xsd:float`;
    default:
      return `"${randomDecimal()}"^^xsd:decimal`;
  }
}

const values: string[] = [...FIXED];
for (let i = 0; i < 260; i++) values.push(randomNumeric());
for (let i = 0; i < 120; i++) values.push(randomDateTime());
for (let i = 0; i < 40; i++) values.push(randomDate());

/** Groups: 0–3 random numerics, 4 the fixed edge cases (everything), 5 dates and dateTimes. */
function groupOf(i: number, v: string): number {
  if (i < FIXED.length) return 4;
  if (v.includes('xsd:date')) return 5;
  return i % 4;
}

let store: QuadStore;
beforeAll(async () => {
  const lines = values.map((v, i) => `:s${i} :v ${v} ; :g :g${groupOf(i, v)} .`);
  // Sums that overflow the fast units in group 0: safe-integer edge values.
  lines.push(':big1 :v "4503599627370.495"^^xsd:decimal ; :g :g0 .', ':big2 :v "4503599627370.497"^^xsd:decimal ; :g :g0 .');
  lines.push(':short1 :v "10.25"^^xsd:decimal ; :g :g1 .', ':short2 :v "3"^^xsd:integer ; :g :g1 .');
  // Group 6: only short decimals and integers (the SUM / AVG fast path end to end).
  for (let i = 0; i < 50; i++) lines.push(`:d${i} :v "${(int(-100000, 100000) / 100).toFixed(2)}"^^xsd:decimal ; :g :g6 .`);
  lines.push(':d50 :v "7"^^xsd:integer ; :g :g6 .');
  // Group 7: integers only (SUM stays an xsd:integer).
  for (let i = 0; i < 20; i++) lines.push(`:i${i} :v "${int(-1000, 1000)}"^^xsd:integer ; :g :g7 .`);
  // Group 8: doubles (with a decimal and an integer after the first double), group 9: doubles then a float.
  for (let i = 0; i < 30; i++) lines.push(`:x${i} :v "${(rnd() * 1e6 - 5e5).toExponential(int(0, 16))}"^^xsd:double ; :g :g${8 + (i % 2)} .`);
  lines.push(':x30 :v "0.1"^^xsd:decimal ; :g :g8 .', ':x31 :v "12345678901234567890"^^xsd:integer ; :g :g8 .', ':x32 :v "0.3"^^xsd:float ; :g :g9 .');
  store = await storeWith(lines.join('\n'));
});
afterAll(() => store.close());
afterEach(() => {
  valueFastPath.enabled = true;
});

function both<T>(run: () => T): { fast: T; general: T } {
  valueFastPath.enabled = true;
  const fast = run();
  valueFastPath.enabled = false;
  const general = run();
  valueFastPath.enabled = true;
  return { fast, general };
}

/** Constants to filter with: a sample of the data's own values plus a few. */
const CONSTANTS = [
  ...FIXED.filter((v) => !v.startsWith('<') && !v.startsWith('_')),
  ...values.slice(FIXED.length).filter((_, i) => i % 25 === 0),
  '5', '-3.25', '1.0e2', '"2008-05-01T10:00:00"^^xsd:dateTime', '"2008-05-01T10:00:00+05:00"^^xsd:dateTime',
];

describe('value fast path = general path', () => {
  it('FILTER comparisons with a constant on either side', () => {
    let compared = 0;
    let nonEmpty = 0;
    for (const c of CONSTANTS) {
      for (const op of ['<', '<=', '=', '!=', '>=', '>']) {
        const q1 = `SELECT ?s { ?s :v ?v FILTER (?v ${op} ${c}) }`;
        const q2 = `SELECT ?s { ?s :v ?v FILTER (${c} ${op} ?v) }`;
        for (const q of op === '<' || op === '=' ? [q1, q2] : [q1]) {
          const { fast, general } = both(() => select(store, q));
          expect(fast, q).toEqual(general);
          compared++;
          if (general.length > 0) nonEmpty++;
        }
      }
    }
    expect(compared).toBeGreaterThan(700);
    expect(nonEmpty).toBeGreaterThan(compared / 2);
  });

  it('range FILTERs (two conjuncts) over decimals and dateTimes', () => {
    const ranges = [
      ['-1', '1'], ['0.1', '2.5'], ['-1000', '1000000'], ['0.000000000000000000000000000001', '0.1'],
      ['"2005-01-01T00:00:00"^^xsd:dateTime', '"2008-05-01T10:00:00"^^xsd:dateTime'],
      ['"2005-01-01T00:00:00Z"^^xsd:dateTime', '"2009-01-01T00:00:00-03:00"^^xsd:dateTime'],
      ['"2006-01-01"^^xsd:date', '"2008-06-01Z"^^xsd:date'],
    ];
    for (const [lo, hi] of ranges) {
      const q = `SELECT ?s ?v { ?s :v ?v FILTER (?v >= ${lo} && ?v < ${hi}) }`;
      const { fast, general } = both(() => select(store, q));
      expect(fast, q).toEqual(general);
      expect(general.length, q).toBeGreaterThan(0);
    }
  });

  it('||, ! and nested connectives, and their error rules with an unbound variable', () => {
    const filters = [
      '?v < -1 || ?v >= 1000', '!(?v >= 0.1 && ?v < 2.5)', '!(?v < 0) && (?v < 1 || ?v > 1000000)',
      '?v > "2006-01-01T00:00:00Z"^^xsd:dateTime || ?v < 0',
      // ?w is never bound (no :absent): an error on that side
      '!(?w > 1)', '?w > 1 || ?v < 5', '?w > 1 && ?v < 5', '!(?w > 1) || ?v >= 2.5', '?v < 5 || !(?w < 1)',
    ];
    let nonEmpty = 0;
    for (const f of filters) {
      const q = `SELECT ?s ?v { ?s :v ?v OPTIONAL { ?s :absent ?w } FILTER (${f}) }`;
      const { fast, general } = both(() => select(store, q));
      expect(fast, q).toEqual(general);
      if (general.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(4);
  });

  it('ORDER BY ascending and descending, with and without LIMIT (top-k)', () => {
    for (const order of ['?v ?s', 'DESC(?v) ?s', '?v', 'DESC(?v)']) {
      for (const limit of ['', 'LIMIT 7', 'LIMIT 100']) {
        const q = `SELECT ?s ?v { ?s :v ?v } ORDER BY ${order} ${limit}`;
        const { fast, general } = both(() => selectOrdered(store, q));
        expect(fast, q).toEqual(general);
        expect(general.length).toBeGreaterThan(6);
      }
    }
  });

  it('MIN, MAX, SUM and AVG per group and over everything', () => {
    for (const q of [
      'SELECT ?g (MIN(?v) AS ?min) (MAX(?v) AS ?max) (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (COUNT(?v) AS ?n) { ?s :v ?v ; :g ?g } GROUP BY ?g',
      'SELECT (MIN(?v) AS ?min) (MAX(?v) AS ?max) (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) { ?s :v ?v }',
      'SELECT (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (MIN(?v) AS ?min) { ?s :nothing ?v }',
      'SELECT ?s (SUM(?w) AS ?sum) (MAX(?w) AS ?max) { ?s :g ?g OPTIONAL { ?s :w ?w } } GROUP BY ?s',
    ]) {
      const { fast, general } = both(() => select(store, q));
      expect(fast, q).toEqual(general);
      expect(general.length).toBeGreaterThan(0);
    }
  });

  it('SUM and AVG of short decimals and integers keep their exact types and values', () => {
    const r = select(store, 'SELECT ?g (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) { ?s :v ?v ; :g ?g FILTER (?g IN (:g6, :g7)) } GROUP BY ?g');
    expect(r).toHaveLength(2);
    expect(r.find((x) => x.includes(':g7'))).toMatch(/\?sum=-?\d+$/); // xsd:integer
    expect(r.find((x) => x.includes(':g6'))).toMatch(/\?sum=-?\d+\.\d+$/); // xsd:decimal
  });
});

describe('values shared across queries', () => {
  it('are kept per term scope: two stores with the same ids for other values answer apart', async () => {
    const five = await storeWith(':a :v 5 . :b :v "2008-05-01T10:00:00Z"^^xsd:dateTime .');
    const seven = await storeWith(':a :v 7 . :b :v "2009-05-01T10:00:00Z"^^xsd:dateTime .');
    try {
      expect(five.termScope!()).not.toBe(seven.termScope!());
      for (let round = 0; round < 2; round++) {
        expect(select(five, 'SELECT ?s { ?s :v ?v FILTER (?v > 6) }')).toEqual([]);
        expect(select(seven, 'SELECT ?s { ?s :v ?v FILTER (?v > 6) }')).toEqual(['?s=:a']);
        expect(select(five.snapshot(), 'SELECT ?s { ?s :v ?v FILTER (?v > "2009-01-01T00:00:00Z"^^xsd:dateTime) }')).toEqual([]);
        expect(select(seven.snapshot(), 'SELECT ?s { ?s :v ?v FILTER (?v > "2009-01-01T00:00:00Z"^^xsd:dateTime) }')).toEqual(['?s=:b']);
      }
    } finally {
      await five.close();
      await seven.close();
    }
  });
});

describe('readKey and compareOf', () => {
  const read = (lexical: string, datatype: string): ReturnType<typeof newKeyValue> => {
    const out = newKeyValue();
    readKey(`"${lexical}"^^${XSD}${datatype}`, out);
    return out;
  };

  it('keeps short decimals exact with mantissa and scale, long ones as inexact doubles', () => {
    const short = read('-12.50', 'decimal');
    expect(short).toMatchObject({ cls: NUMERIC, value: -12.5, mantissa: -1250, scale: 2 });
    expect(short.flags & (EXACT | SCALED)).toBe(EXACT | SCALED);
    const long = read('0.10000000000000000000001', 'decimal');
    expect(long.cls).toBe(NUMERIC);
    expect(long.flags & EXACT).toBe(0);
    expect(long.value).toBe(0.1);
  });

  it('reads dateTimes to UTC milliseconds, flags no timezone and dropped fraction digits', () => {
    const utc = read('2008-05-01T12:00:00.25+02:00', 'dateTime');
    expect(utc).toMatchObject({ cls: DATE_TIME, value: Date.UTC(2008, 4, 1, 10, 0, 0, 250) });
    expect(utc.flags & (EXACT | NO_TZ)).toBe(EXACT);
    const local = read('2008-05-01T10:00:00.1234', 'dateTime');
    expect(local.value).toBe(Date.UTC(2008, 4, 1, 10, 0, 0, 123));
    expect(local.flags & (EXACT | NO_TZ)).toBe(NO_TZ);
  });

  it('leaves equal inexact values and timezone-less values within 14 hours to the general path', () => {
    expect(compareOf(1, 0, 1, EXACT)).toBeNaN();
    expect(compareOf(1, EXACT, 1, EXACT)).toBe(0);
    expect(compareOf(1, 0, 2, EXACT)).toBe(-1);
    const hour = 3600_000;
    expect(compareOf(0, EXACT, 13 * hour, EXACT | NO_TZ)).toBeNaN();
    expect(compareOf(0, EXACT, 15 * hour, EXACT | NO_TZ)).toBe(-1);
    expect(compareOf(15 * hour, EXACT | NO_TZ, 0, EXACT)).toBe(1);
  });
});
