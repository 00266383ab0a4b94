import { describe, expect, it } from 'vitest';
import { run } from './helpers.js';

describe('hash functions (§17.4.6)', () => {
  it.each([
    ['MD5("abc")', '"900150983cd24fb0d6963f7d28e17f72"'],
    ['MD5("abc"^^xsd:string)', '"900150983cd24fb0d6963f7d28e17f72"'],
    ['MD5("")', '"d41d8cd98f00b204e9800998ecf8427e"'],
    // UTF-8 bytes C3 A9 (md5sum of printf '\xc3\xa9').
    ['MD5("\u00E9")', '"66ddcd97cfdeabb2f6fb8a999b4bc76f"'],
    ['SHA1("abc")', '"a9993e364706816aba3e25717850c26c9cd0d89d"'],
    ['SHA1("")', '"da39a3ee5e6b4b0d3255bfef95601890afd80709"'],
    ['SHA256("abc")', '"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"'],
    ['SHA384("abc")', '"cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"'],
    [
      'SHA512("abc")',
      '"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"',
    ],
    ['MD5("abc"@en)', 'error'],
    ['SHA256(1)', 'error'],
    ['SHA1(?iri)', 'error'],
  ])('%s → %s', (expr, expected) => {
    expect(run(expr)).toBe(expected);
  });
});
