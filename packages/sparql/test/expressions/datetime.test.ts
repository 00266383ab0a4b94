import { describe, expect, it } from 'vitest';
import { dec, int, run, T } from './helpers.js';

const dt = (s: string): string => `"${s}"^^xsd:dateTime`;
const dtd = (s: string): string => `"${s}"^^xsd:dayTimeDuration`;

describe('date and time functions (§17.4.5)', () => {
  it.each([
    ['YEAR(?dt)', int(2010)],
    ['MONTH(?dt)', int(12)],
    ['DAY(?dt)', int(21)],
    ['HOURS(?dt)', int(15)],
    ['MINUTES(?dt)', int(38)],
    ['SECONDS(?dt)', dec('2.0')],
    ['HOURS(?dtz)', int(11)],
    ['HOURS(?dtlocal)', int(1)],
    [`SECONDS(${dt('2011-02-01T01:02:03.25Z')})`, dec('3.25')],
    [`SECONDS(${dt('2011-02-01T01:02:00Z')})`, dec('0.0')],
    ['TIMEZONE(?dt)', dtd('-PT8H')],
    ['TIMEZONE(?dtz)', dtd('PT0S')],
    [`TIMEZONE(${dt('2011-01-01T00:00:00+05:30')})`, dtd('PT5H30M')],
    [`TIMEZONE(${dt('2011-01-01T00:00:00-00:45')})`, dtd('-PT45M')],
    ['TIMEZONE(?dtlocal)', 'error'],
    ['TZ(?dt)', '"-08:00"'],
    ['TZ(?dtz)', '"Z"'],
    ['TZ(?dtlocal)', '""'],
    [`TZ(${dt('2011-01-01T00:00:00+00:00')})`, '"+00:00"'],
    [`HOURS(${dt('1999-12-31T24:00:00')})`, int(0)],
    [`DAY(${dt('1999-12-31T24:00:00')})`, int(1)],
    [`YEAR(${dt('1999-12-31T24:00:00')})`, int(2000)],
    [`YEAR(${dt('-0044-03-15T12:00:00')})`, int(-44)],
    [`YEAR(${dt('12345-01-01T00:00:00Z')})`, int(12345)],
    [`DAY(${dt('2012-02-29T00:00:00')})`, int(29)],
    [`DAY(${dt('2011-02-29T00:00:00')})`, 'error'],
    [`MONTH(${dt('2011-13-01T00:00:00')})`, 'error'],
    [`MINUTES(${dt('2011-01-01T00:61:00')})`, 'error'],
    [`MINUTES(${dt('2011-01-01T00:00:00+14:30')})`, 'error'],
    [`HOURS(${dt('2011-01-01T24:00:01')})`, 'error'],
    ['YEAR("2006-08-23"^^xsd:date)', int(2006)],
    ['HOURS("10:20:30"^^xsd:time)', int(10)],
    ['HOURS("2006-08-23"^^xsd:date)', 'error'],
    ['YEAR("10:20:30"^^xsd:time)', 'error'],
    ['YEAR("2010-12-21T15:38:02Z")', 'error'],
    ['YEAR(?str)', 'error'],
    ['YEAR(?unbound)', 'error'],
    ['NOW()', dt('2024-01-02T03:04:05.678Z')],
    ['YEAR(NOW())', int(2024)],
    ['NOW() = NOW()', T],
    ['datatype(NOW()) = xsd:dateTime', T],
  ])('%s → %s', (expr, expected) => {
    expect(run(expr)).toBe(expected);
  });
});
