/**
 * Engine-independent digests of query answers, so engines can be compared on content and not only
 * on counts. Every engine here hands out RDF/JS terms; a digest is the SHA-1 of the answer's rows
 * written canonically (sorted unless the query's order is part of the answer).
 *
 * Numeric literals are compared by value ("1.50"^^xsd:decimal and "1.5"^^xsd:decimal are one
 * row): engines may keep the lexical form or a canonical one, and SPARQL equality is by value.
 */
import { createHash } from 'node:crypto';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const NUMERIC = new Set(['integer', 'decimal', 'double', 'float', 'int', 'long', 'short', 'byte',
  'nonNegativeInteger', 'positiveInteger', 'nonPositiveInteger', 'negativeInteger', 'unsignedInt',
  'unsignedLong', 'unsignedShort', 'unsignedByte'].map((t) => XSD + t));

/**
 * @param {import('@rdfjs/types').Term | undefined | null} t
 * @returns {string}
 */
export function termKey(t) {
  if (!t) return '';
  switch (t.termType) {
    case 'NamedNode':
      return `<${t.value}>`;
    case 'BlankNode':
      return '_:'; // blank node labels are not comparable across engines
    case 'Literal': {
      const dt = t.datatype?.value ?? XSD + 'string';
      if (t.language) return `"${t.value}"@${t.language.toLowerCase()}`;
      if (NUMERIC.has(dt)) {
        const n = Number(t.value);
        return `${Number.isNaN(n) ? t.value : String(n)}^^numeric`;
      }
      return dt === XSD + 'string' ? `"${t.value}"` : `"${t.value}"^^<${dt}>`;
    }
    case 'DefaultGraph':
      return '';
    default:
      return `?${t.value}`;
  }
}

/**
 * One solution: `entries` are [variable name, term] pairs (bound variables only).
 * @param {Iterable<[string, import('@rdfjs/types').Term]>} entries
 */
export function solutionKey(entries) {
  const parts = [];
  for (const [name, term] of entries) parts.push(`${name}=${termKey(term)}`);
  return parts.sort().join('\t');
}

/** @param {import('@rdfjs/types').Quad} q */
export function quadKey(q) {
  return `${termKey(q.subject)} ${termKey(q.predicate)} ${termKey(q.object)} ${termKey(q.graph)}`;
}

/** Collects row keys; `digest()` hashes them (sorted unless `ordered`). */
export class Digest {
  /** @param {boolean} ordered */
  constructor(ordered) {
    this.ordered = ordered;
    /** @type {string[]} */
    this.keys = [];
  }

  /** @param {string} key */
  add(key) {
    this.keys.push(key);
  }

  /** @returns {{ digest: string, sample: string[] }} the hash and the first rows (for reports) */
  digest() {
    const keys = this.ordered ? this.keys : [...this.keys].sort();
    const h = createHash('sha1');
    for (const k of keys) h.update(k).update('\n');
    return { digest: h.digest('hex').slice(0, 16), sample: keys.slice(0, 3) };
  }
}
