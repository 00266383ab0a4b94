/**
 * The RDF 1.1 syntax suites (Turtle, TriG, N-Triples, N-Quads) run against @ianode/rdf's parsers.
 * Test types: https://www.w3.org/TR/rdf11-testcases/ (rdft:Test{Turtle,Trig,NTriples,NQuads}
 * {PositiveSyntax,NegativeSyntax,Eval,NegativeEval}).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatFromExtension, keyToNTriples, keyToTerm, parseQuadKeys, quad, RdfSyntaxError } from '@ianode/rdf';
import { isomorphic } from 'rdf-isomorphic';
import { fileOf } from './manifest.mjs';

const FORMATS = {
  Turtle: 'text/turtle',
  Trig: 'application/trig',
  NTriples: 'application/n-triples',
  NQuads: 'application/n-quads',
};
const TYPE = /^Test(Turtle|Trig|NTriples|NQuads)(PositiveSyntax|NegativeSyntax|Eval|NegativeEval)$/;

function parseFile(file, format, baseIRI) {
  const keys = [];
  parseQuadKeys(readFileSync(file, 'utf8'), { format, baseIRI }, (s, p, o, g) => keys.push([s, p, o, g]));
  return keys;
}

const toQuad = ([s, p, o, g]) => quad(keyToTerm(s), keyToTerm(p), keyToTerm(o), keyToTerm(g));
const show = ([s, p, o, g]) => [s, p, o, g].filter((k) => k !== '').map(keyToNTriples).join(' ');

/** Why two parsed documents differ, in a line. */
function difference(actual, expected) {
  const ground = (keys) => new Set(keys.filter((k) => !k.some((t) => t.startsWith('_:'))).map(show));
  const a = ground(actual);
  const e = ground(expected);
  const missing = [...e].filter((x) => !a.has(x));
  const extra = [...a].filter((x) => !e.has(x));
  let reason = `not isomorphic to the expected result (${actual.length} quads, expected ${expected.length})`;
  if (missing.length) reason += `; missing ${missing.slice(0, 2).join(' | ')}`;
  if (extra.length) reason += `; unexpected ${extra.slice(0, 2).join(' | ')}`;
  return reason;
}

/** Runs one manifest entry; returns undefined when it passes, else the reason it failed. */
export function runRdfSyntaxTest(entry, manifest) {
  const m = TYPE.exec(entry.type ?? '');
  if (!m) return `unsupported test type ${entry.types.join(', ')}`;
  const [, syntax, kind] = m;
  const format = FORMATS[syntax];
  const file = fileOf(entry.action);
  // The suites require the base IRI of each test document to be mf:assumedTestBase + its name.
  const base = manifest.assumedTestBase
    ? manifest.assumedTestBase + path.relative(manifest.dir, file).split(path.sep).join('/')
    : undefined;
  let actual;
  try {
    actual = parseFile(file, format, base);
  } catch (error) {
    if (kind === 'NegativeSyntax' || kind === 'NegativeEval') {
      if (!(error instanceof RdfSyntaxError)) return `threw ${error?.name}: ${error?.message} instead of RdfSyntaxError`;
      const positioned = Number.isInteger(error.line) && error.line >= 1 && Number.isInteger(error.column) && error.column >= 1;
      return positioned ? undefined : `RdfSyntaxError without a line and column: ${error.message}`;
    }
    return `${error?.name}: ${error?.message}`;
  }
  if (kind === 'NegativeSyntax' || kind === 'NegativeEval') return `parsed without error (${actual.length} quads) but must be rejected`;
  if (kind === 'PositiveSyntax') return undefined;
  const resultFile = fileOf(entry.result);
  const expectedFormat = formatFromExtension(resultFile);
  if (!expectedFormat) return `cannot tell the format of the expected result ${resultFile}`;
  const expected = parseFile(resultFile, expectedFormat, undefined);
  return isomorphic(actual.map(toQuad), expected.map(toQuad)) ? undefined : difference(actual, expected);
}

/** Suites for scripts/w3c.mjs: a name, a manifest relative to the suites folder, a test runner. */
export const rdfSuites = ['rdf-turtle', 'rdf-trig', 'rdf-n-triples', 'rdf-n-quads'].map((name) => ({
  name,
  manifest: `rdf/rdf11/${name}/manifest.ttl`,
  run: runRdfSyntaxTest,
}));
