/**
 * Hash functions (SPARQL 1.1 §17.4.6): MD5, SHA1, SHA256, SHA384, SHA512 of the UTF-8 bytes of a
 * simple literal or xsd:string, as lower-case hex in a simple literal.
 */
import { createHash } from 'node:crypto';
import { literal } from '@ianode/rdf';
import type { FunctionDef, FunctionTable } from './functions.js';
import { fn1 } from './functions.js';
import { simpleStringArg } from './literals.js';

function hash(algorithm: string, name: string): FunctionDef {
  return fn1((a) => literal(createHash(algorithm).update(simpleStringArg(a, name), 'utf8').digest('hex')));
}

export const hashFunctions: FunctionTable = {
  md5: hash('md5', 'MD5'),
  sha1: hash('sha1', 'SHA1'),
  sha256: hash('sha256', 'SHA256'),
  sha384: hash('sha384', 'SHA384'),
  sha512: hash('sha512', 'SHA512'),
};
