/**
 * The one loop that turns a streaming RDF/JS parser (jsonld-streaming-parser, rdfxml-streaming-parser)
 * into N-Quads text for the store, whose own parsers do the Turtle family only. Used by ./jsonld.ts
 * and ./rdfxml.ts; each maps the parser's error to its own 400.
 */
import type { EventEmitter } from 'node:events';
import { createQuadSerialiser, type Quad } from '@ianode/rdf';

/** What both parsers are: an event emitter of quads that takes text. */
export interface QuadParser extends EventEmitter {
  write(text: string): unknown;
  end(): unknown;
}

/**
 * The N-Quads text of `text` as `parser` reads it. `beforeEnd` runs after the text is written and
 * before the parser is ended (RDF/XML closes its XML parser there). Rejects with the parser's error
 * (or the serialiser's, for a term N-Quads cannot write), unchanged.
 */
export async function parsedToNQuads(parser: QuadParser, text: string, beforeEnd?: () => void): Promise<string> {
  const out: string[] = [];
  const serialiser = createQuadSerialiser('application/n-quads', (chunk) => out.push(chunk));
  await new Promise<void>((resolve, reject) => {
    parser.on('data', (quad: Quad) => {
      try {
        serialiser.push(quad);
      } catch (error) {
        reject(error);
      }
    });
    parser.on('error', reject);
    parser.on('end', () => resolve());
    parser.write(text);
    beforeEnd?.();
    parser.end();
  });
  serialiser.end();
  return out.join('');
}
