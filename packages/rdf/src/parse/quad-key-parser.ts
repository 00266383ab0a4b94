/** The one entry point to the parser cores: picks the core for a format. */
import { resolveBlankNodePrefix } from './blank-node-prefix.js';
import { assertFormat } from './format.js';
import { createLineParser } from './line-parser.js';
import { createTurtleParser } from './turtle-parser.js';
import type { QuadKeyParser, QuadKeyParserOptions, QuadKeySink } from './types.js';

/**
 * A push-style parser that hands every quad to `sink` as dictionary keys (terms.ts; the default
 * graph is `''`). N-Triples and N-Quads use the strict hand-written line parser; Turtle and TriG
 * use N3.js. Syntax errors throw RdfSyntaxError with line and column.
 */
export function createQuadKeyParser(options: QuadKeyParserOptions, sink: QuadKeySink): QuadKeyParser {
  const { format } = options;
  assertFormat(format);
  if (typeof sink !== 'function') throw new TypeError('sink must be a function');
  const prefix = resolveBlankNodePrefix(options.blankNodePrefix);
  switch (format) {
    case 'application/n-triples':
      return createLineParser(false, prefix, sink);
    case 'application/n-quads':
      return createLineParser(true, prefix, sink);
    case 'text/turtle':
    case 'application/trig':
      return createTurtleParser(format, options.baseIRI, prefix, sink);
  }
}
