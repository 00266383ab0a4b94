/** Streaming serialisers for every RdfFormat, and a string convenience on top. */
import { Writer } from 'n3';
import type { Quad } from '../terms.js';
import { assertFormat, type RdfFormat } from '../parse/format.js';
import { termToNTriples } from './n-triples-terms.js';
import { memoTermText } from './term-memo.js';
import { IRI_FORBIDDEN } from '../iri.js';

export interface QuadSerialiserOptions {
  /** Prefixes for Turtle and TriG (prefix -> namespace IRI); ignored by the line formats. */
  prefixes?: Record<string, string> | undefined;
}

/** Push quads in, text comes out through `write` as it is ready; `end` flushes the rest. */
export interface QuadSerialiser {
  push(quad: Quad): void;
  end(): void;
}

function checkGraph(format: RdfFormat, q: Quad): void {
  if (q.graph.termType !== 'DefaultGraph') {
    throw new TypeError(`${format} cannot hold a quad in the named graph ${termToNTriples(q.graph)}; use TriG or N-Quads`);
  }
}

/** N3.js would write such an IRI raw, which no Turtle parser reads back: refuse it instead. */
function checkTurtleIris(q: Quad): void {
  for (const term of [q.subject, q.predicate, q.object, q.graph]) {
    const iri = term.termType === 'NamedNode' ? term.value : term.termType === 'Literal' ? term.datatype.value : '';
    if (IRI_FORBIDDEN.test(iri)) throw new TypeError(`the IRI ${JSON.stringify(iri)} has characters Turtle cannot write; use N-Triples or N-Quads`);
  }
}

/** N-Triples or N-Quads, one line per quad; each Term object is escaped once per serialiser
 * (term-memo.ts). */
function createLineSerialiser(quads: boolean, write: (chunk: string) => void): QuadSerialiser {
  const format: RdfFormat = quads ? 'application/n-quads' : 'application/n-triples';
  let done = false;
  const text = memoTermText(termToNTriples);
  return {
    push(q) {
      if (done) throw new TypeError('push() called after end()');
      if (!quads) checkGraph(format, q);
      const g = q.graph.termType === 'DefaultGraph' ? '' : ' ' + text(q.graph);
      write(text(q.subject) + ' ' + text(q.predicate) + ' ' + text(q.object) + g + ' .\n');
    },
    end() {
      done = true;
    },
  };
}

function createTurtleSerialiser(format: 'text/turtle' | 'application/trig', write: (chunk: string) => void, prefixes: Record<string, string> | undefined): QuadSerialiser {
  const writer = new Writer({ write: (chunk: string) => write(chunk), end: () => {} }, { format, prefixes, end: false });
  let done = false;
  return {
    push(q) {
      if (done) throw new TypeError('push() called after end()');
      if (format === 'text/turtle') checkGraph(format, q);
      checkTurtleIris(q);
      let error: unknown;
      writer.addQuad(q.subject, q.predicate, q.object, q.graph, ((e?: unknown) => {
        if (e) error = e;
      }) as () => void);
      if (error !== undefined) throw error;
    },
    end() {
      if (done) return;
      done = true;
      writer.end();
    },
  };
}

/** A streaming serialiser: Turtle and TriG through N3.js's writer, N-Triples and N-Quads by hand. */
export function createQuadSerialiser(format: RdfFormat, write: (chunk: string) => void, options: QuadSerialiserOptions = {}): QuadSerialiser {
  assertFormat(format);
  if (typeof write !== 'function') throw new TypeError('write must be a function');
  switch (format) {
    case 'application/n-triples':
      return createLineSerialiser(false, write);
    case 'application/n-quads':
      return createLineSerialiser(true, write);
    case 'text/turtle':
    case 'application/trig':
      return createTurtleSerialiser(format, write, options.prefixes);
  }
}

/** The whole serialisation of `quads` as one string. */
export function serialiseQuads(quads: Iterable<Quad>, format: RdfFormat, options: QuadSerialiserOptions = {}): string {
  const chunks: string[] = [];
  const serialiser = createQuadSerialiser(format, (chunk) => chunks.push(chunk), options);
  for (const q of quads) serialiser.push(q);
  serialiser.end();
  return chunks.join('');
}
