/**
 * xsd:dateTime, xsd:date, xsd:time and the duration types: parsing, the XSD 1.1 order relation
 * with its timezone rule (§3.3.7 / D.2.1: a value without timezone lies anywhere within ±14:00, so
 * some comparisons are indeterminate, which is an expression error), and a total order for ORDER BY
 * (values without timezone taken as UTC).
 */
import type { Literal } from '@ianode/rdf';
import { datatypeOf } from './literals.js';
import { XSD_DATE, XSD_DATE_TIME, XSD_DATE_TIME_STAMP, XSD_DAY_TIME_DURATION, XSD_DURATION, XSD_TIME, XSD_YEAR_MONTH_DURATION } from './xsd.js';

/** A point (or, without timezone, a local reading) on the time line. */
export interface Temporal {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Fractional-second digits without trailing zeros ('' for none). */
  readonly fraction: string;
  /** Minutes east of UTC, or undefined without timezone. */
  readonly tz: number | undefined;
  /** The timezone as written: '', 'Z', '+01:00'. */
  readonly tzText: string;
  /** Seconds since 1970-01-01T00:00:00 of the local reading (timezone not applied). */
  readonly local: number;
}

export type TemporalKind = 'dateTime' | 'date' | 'time';

const DATE_TIME = /^(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/;
const DATE = /^(-?\d{4,})-(\d\d)-(\d\d)(Z|[+-]\d\d:\d\d)?$/;
const TIME = /^(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/;

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function parseTz(text: string | undefined): number | undefined | null {
  if (text === undefined) return undefined;
  if (text === 'Z') return 0;
  const hours = Number(text.slice(1, 3));
  const minutes = Number(text.slice(4, 6));
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return null;
  return (text[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

function build(
  y: number, mo: number, d: number, h: number, mi: number, s: number, frac: string, tzText: string | undefined,
): Temporal | undefined {
  const tz = parseTz(tzText);
  if (tz === null || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || mi > 59 || s > 59) return undefined;
  const fraction = frac.replace(/0+$/, '');
  if (h > 24 || (h === 24 && (mi !== 0 || s !== 0 || fraction !== ''))) return undefined;
  let days = daysFromCivil(y, mo, d);
  if (h === 24) {
    // 24:00:00 is 00:00:00 of the next day.
    days++;
    [y, mo, d] = civilFromDays(days);
    h = 0;
  }
  const local = days * 86400 + h * 3600 + mi * 60 + s;
  return { year: y, month: mo, day: d, hour: h, minute: mi, second: s, fraction, tz, tzText: tzText ?? '', local };
}

export function parseDateTime(lexical: string): Temporal | undefined {
  const m = DATE_TIME.exec(lexical.trim());
  if (!m) return undefined;
  return build(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), m[7] ?? '', m[8]);
}

export function parseDate(lexical: string): Temporal | undefined {
  const m = DATE.exec(lexical.trim());
  if (!m) return undefined;
  return build(Number(m[1]), Number(m[2]), Number(m[3]), 0, 0, 0, '', m[4]);
}

export function parseTime(lexical: string): Temporal | undefined {
  const m = TIME.exec(lexical.trim());
  if (!m) return undefined;
  // Times sit on the XSD reference date 1972-12-31.
  return build(1972, 12, 31, Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? '', m[5]);
}

/** The kind and value of a date/time literal; undefined when not one or ill-typed. */
export function parseTemporal(lit: Literal, datatype: string = datatypeOf(lit)): { kind: TemporalKind; value: Temporal } | undefined {
  switch (datatype) {
    case XSD_DATE_TIME: {
      const value = parseDateTime(lit.value);
      return value && { kind: 'dateTime', value };
    }
    case XSD_DATE_TIME_STAMP: {
      const value = parseDateTime(lit.value);
      return value && value.tz !== undefined ? { kind: 'dateTime', value } : undefined;
    }
    case XSD_DATE: {
      const value = parseDate(lit.value);
      return value && { kind: 'date', value };
    }
    case XSD_TIME: {
      const value = parseTime(lit.value);
      return value && { kind: 'time', value };
    }
    default:
      return undefined;
  }
}

function compareAt(a: number, af: string, b: number, bf: string): number {
  if (a !== b) return a < b ? -1 : 1;
  const x = Number('0.' + (af || '0'));
  const y = Number('0.' + (bf || '0'));
  return x < y ? -1 : x > y ? 1 : 0;
}

const FOURTEEN_HOURS = 14 * 3600;

/** The XSD order relation: negative, 0 or positive; undefined when indeterminate. */
export function compareTemporal(a: Temporal, b: Temporal): number | undefined {
  if ((a.tz === undefined) === (b.tz === undefined)) {
    return compareAt(a.local - (a.tz ?? 0) * 60, a.fraction, b.local - (b.tz ?? 0) * 60, b.fraction);
  }
  if (a.tz === undefined) {
    const r = compareTemporal(b, a);
    return r === undefined ? undefined : -r;
  }
  // a has a timezone, b does not: b lies somewhere in [b - 14h, b + 14h] in UTC.
  const at = a.local - a.tz * 60;
  if (compareAt(at, a.fraction, b.local - FOURTEEN_HOURS, b.fraction) < 0) return -1;
  if (compareAt(at, a.fraction, b.local + FOURTEEN_HOURS, b.fraction) > 0) return 1;
  return undefined;
}

/** A total order for sorting: values without timezone are read as UTC. */
export function compareTemporalTotal(a: Temporal, b: Temporal): number {
  return compareAt(a.local - (a.tz ?? 0) * 60, a.fraction, b.local - (b.tz ?? 0) * 60, b.fraction);
}

export type DurationKind = 'duration' | 'dayTimeDuration' | 'yearMonthDuration';

export interface Duration {
  readonly months: number;
  readonly seconds: number;
}

const DURATION = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d*)?)S)?)?$/;

/** The kind and value of a duration literal; undefined when not one or ill-typed. */
export function parseDuration(lit: Literal, datatype: string = datatypeOf(lit)): { kind: DurationKind; value: Duration } | undefined {
  const kind: DurationKind | undefined =
    datatype === XSD_DURATION ? 'duration' : datatype === XSD_DAY_TIME_DURATION ? 'dayTimeDuration' : datatype === XSD_YEAR_MONTH_DURATION ? 'yearMonthDuration' : undefined;
  if (kind === undefined) return undefined;
  const text = lit.value.trim();
  const m = DURATION.exec(text);
  if (!m || text.endsWith('P') || text.endsWith('T')) return undefined;
  const [, sign, y, mo, d, h, mi, s] = m;
  if (kind === 'dayTimeDuration' && (y !== undefined || mo !== undefined)) return undefined;
  if (kind === 'yearMonthDuration' && (d !== undefined || h !== undefined || mi !== undefined || s !== undefined)) return undefined;
  const factor = sign === '-' ? -1 : 1;
  const months = factor * (Number(y ?? 0) * 12 + Number(mo ?? 0));
  const seconds = factor * (Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60 + Number(s ?? 0));
  return { kind, value: { months, seconds } };
}

/** The xsd:dayTimeDuration of a timezone offset in minutes: `PT0S`, `-PT8H`, `PT5H30M`. */
export function timezoneDuration(tz: number): string {
  if (tz === 0) return 'PT0S';
  const abs = Math.abs(tz);
  const hours = Math.floor(abs / 60);
  const minutes = abs % 60;
  return `${tz < 0 ? '-' : ''}PT${hours ? hours + 'H' : ''}${minutes ? minutes + 'M' : ''}`;
}

function pad(n: number, width: number): string {
  const text = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? '-' + text : text;
}

/** The date part of a value as an xsd:date lexical form (with its timezone). */
export function formatDate(t: Temporal): string {
  return `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}${t.tzText}`;
}

/** The time part of a value as an xsd:time lexical form (with its timezone). */
export function formatTime(t: Temporal): string {
  return `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}${t.fraction ? '.' + t.fraction : ''}${t.tzText}`;
}

export function formatDateTime(t: Temporal): string {
  return `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}T${formatTime(t)}`;
}
