import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../src/expressions/regex.js';
import { F, run, T } from './helpers.js';

// String.raw keeps the backslashes SPARQL's string syntax needs: "\\w" is the regex \w.
const r = String.raw;

describe('REGEX with XPath flags and syntax (§17.4.3.14)', () => {
  it.each([
    ['REGEX("abc", "b")', T],
    ['REGEX("abc", "^b")', F],
    ['REGEX("ABC", "b")', F],
    ['REGEX("ABC", "b", "i")', T],
    ['REGEX("a\\nb", "^b$")', F],
    ['REGEX("a\\nb", "^b$", "m")', T],
    ['REGEX("a\\nb", "a.b")', F],
    ['REGEX("a\\nb", "a.b", "s")', T],
    ['REGEX("a\\rb", "a.b")', F],
    ['REGEX("abc", "a b c")', F],
    ['REGEX("abc", "a b c", "x")', T],
    ['REGEX("a b", "a[ ]b", "x")', T],
    ['REGEX("a.c", ".", "q")', T],
    ['REGEX("abc", ".", "q")', F],
    ['REGEX("a+b", "a+b", "q")', T],
    ['REGEX("A+B", "a+b", "qi")', T],
    ['REGEX("abc", "a", "g")', 'error'],
    ['REGEX("abc", "(")', 'error'],
    ['REGEX("chat"@en, "^ch")', T],
    ['REGEX("chat"^^xsd:string, "^ch")', T],
    ['REGEX("chat", "ch"@en)', 'error'],
    ['REGEX("chat", "ch", 1)', 'error'],
    ['REGEX(1, "1")', 'error'],
    ['REGEX(?iri, "x")', 'error'],
    ['REGEX(?unbound, "x")', 'error'],
    [r`REGEX("é", "^\\w$")`, T],
    [r`REGEX("-", "^\\w$")`, F],
    [r`REGEX("a-", "^\\w\\W$")`, T],
    [r`REGEX("٣", "^\\d$")`, T],
    [r`REGEX("x", "^\\D$")`, T],
    [r`REGEX("a\u00a0b", "a\\sb")`, F],
    [r`REGEX("a\tb", "a\\sb")`, T],
    [r`REGEX("ab", "a\\Sb")`, F],
    [r`REGEX("x1", "^\\i\\c*$")`, T],
    [r`REGEX("1x", "^\\i")`, F],
    [r`REGEX("Ab", "^\\p{Lu}\\p{Ll}$")`, T],
    [r`REGEX("ab", "^\\P{Lu}+$")`, T],
    [r`REGEX("a", "\\p{IsBasicLatin}")`, T],
    [r`REGEX("é", "^\\p{IsBasicLatin}$")`, F],
    [r`REGEX("a", "\\p{IsNoSuchBlock}")`, 'error'],
    [r`REGEX("b", "^[a-z-[aeiou]]$")`, T],
    [r`REGEX("a", "^[a-z-[aeiou]]$")`, F],
    [r`REGEX("a1", "^[\\w-[\\d]][\\d]$")`, T],
    [r`REGEX("a-b", "a\\-b")`, T],
    [r`REGEX("a-b", "a[\\-]b")`, T],
    [r`REGEX("a.b", "a\\.b")`, T],
    [r`REGEX("axb", "a\\.b")`, F],
    [r`REGEX("a", "\\q")`, 'error'],
    [r`REGEX("x", "^[\\S-[x]]$")`, F],
    [r`REGEX("y", "^[\\S-[x]]$")`, T],
    [r`REGEX(" ", "^[\\S]$")`, F],
    [r`REGEX("\f", "^[\\S]$")`, T],
    [r`REGEX("b", "^[a-c-[a-c]]$")`, F],
    [r`REGEX("c", "^[a-z-[b-y-[c]]]$")`, T],
    [r`REGEX("d", "^[a-z-[b-y-[c]]]$")`, F],
    [r`REGEX("\U0001F46A", "^[\\p{So}-[a]]$")`, T],
    ['REGEX("Ab", "^[a-z-[c]]+$", "i")', T],
    ['REGEX("a", "^a{1001}$")', 'error'],
    ['REGEX("\\U0001F46A", "^.$")', T],
    ['REGEX("aaa", "^a{2,3}$")', T],
    ['REGEX("aaaa", "^a{2,3}$")', F],
    ['REGEX("a", "^[^b]$")', T],
  ])('%s → %s', (expr, expected) => {
    expect(run(expr)).toBe(expected);
  });
});

describe('REGEX and REPLACE in linear time (issue 14)', () => {
  // Catastrophic backtracking in a backtracking engine: each extra "a" doubles the work, so on
  // JS RegExp these would not finish within the test's time limit. The assertion is the answer.
  const poison = 'a'.repeat(40) + '!';
  it.each([
    [`REGEX("${poison}", "^(a+)+$")`, F],
    [`REGEX("${poison}", "^(a|a)*$")`, F],
    [`REGEX("${poison}", "^(a|aa)+$")`, F],
    [`REGEX("${poison}", "(a*)*b")`, F],
    [`REGEX("${poison}", "^(a+)+!$")`, T],
    [`REPLACE("${poison}", "(a+)+$", "x")`, `"${poison}"`],
    [`REPLACE("${poison}", "^(a+)+", "x")`, '"x!"'],
  ])('%s → %s', (expr, expected) => {
    expect(run(expr)).toBe(expected);
  });

  it('a long text against a pathological pattern is answered (not a hang)', () => {
    const text = 'a'.repeat(20_000) + '!';
    expect(run(`REGEX("${text}", "^(a+)+$")`)).toBe(F);
    expect(run(`REGEX("${text}", "(.*a){20}$")`)).toBe(F);
  });

  it('a constant pattern with a back-reference is a clear SPARQL_UNSUPPORTED error of the query', () => {
    expect(() => run(String.raw`REGEX("abab", "^(ab)\\1$")`)).toThrow(expect.objectContaining({ code: 'SPARQL_UNSUPPORTED', message: expect.stringMatching(/back-references/) }));
    expect(() => run(String.raw`REPLACE("abab", "(b)\\1", "x")`)).toThrow(expect.objectContaining({ code: 'SPARQL_UNSUPPORTED' }));
  });

  it('a computed pattern with a back-reference is an expression error (FILTER false, BIND unbound)', () => {
    expect(run(String.raw`REGEX("ababcab", CONCAT("^(ab)", ?str, "\\1$"))`)).toBe('error');
  });

  it('compiles a constant pattern once and caches computed ones', () => {
    const a = compileRegex('^[a-z-[aeiou]]+$', '');
    expect(compileRegex('^[a-z-[aeiou]]+$', '')).toBe(a);
    expect(a.re.test('bcd')).toBe(true);
    expect(a.re.test('bad')).toBe(false);
    expect(compileRegex('(a)(b)?', '').groups).toBe(2);
    expect(compileRegex('a*', '').matchesEmpty).toBe(true);
  });
});

describe('REPLACE (§17.4.3.15)', () => {
  it.each([
    ['REPLACE("abcd", "b", "Z")', '"aZcd"'],
    ['REPLACE("abab", "B", "Z", "i")', '"aZaZ"'],
    ['REPLACE("abcd"@en, "b", "Z")', '"aZcd"@en'],
    ['REPLACE("abc", "(b)", "[$1]")', '"a[b]c"'],
    ['REPLACE("abc", "(b)", "$0$0")', '"abbc"'],
    ['REPLACE("abc", "(b)", "$2")', '"ac"'],
    ['REPLACE("abracadabra", "a(.)", "a$1$1")', '"abbraccaddabbra"'],
    ['REPLACE("darted", "^(.*?)d(.*)$", "$1c$2")', '"carted"'],
    ['REPLACE("AAAA", "A+?", "b")', '"bbbb"'],
    ['REPLACE("a.b.c", ".", "-", "q")', '"a-b-c"'],
    [r`REPLACE("abc", "b", "\\$")`, '"a$c"'],
    [r`REPLACE("a\\b", "\\\\", "/")`, '"a/b"'],
    ['REPLACE("abc", "b", "$")', 'error'],
    [r`REPLACE("abc", "b", "\\n")`, 'error'],
    ['REPLACE("abc", "x*", "-")', 'error'],
    ['REPLACE("abc", "b", "x"@en)', 'error'],
    ['REPLACE(1, "1", "2")', 'error'],
    ['REPLACE("abc", "(", "x")', 'error'],
  ])('%s → %s', (expr, expected) => {
    expect(run(expr)).toBe(expected);
  });
});
