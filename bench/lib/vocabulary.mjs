/**
 * Namespaces and the word list of the BSBM-like generator. The namespaces are those of the Berlin
 * SPARQL Benchmark (http://wbsg.informatik.uni-mannheim.de/bizer/berlinsparqlbenchmark/spec/).
 */
import { mulberry32 } from './random.mjs';

export const BSBM = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/';
export const VOC = BSBM + 'vocabulary/';
export const INST = BSBM + 'instances/';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const DC = 'http://purl.org/dc/elements/1.1/';
export const REV = 'http://purl.org/stuff/rev#';
export const FOAF = 'http://xmlns.com/foaf/0.1/';
export const COUNTRIES = 'http://downlode.org/rdf/iso-3166/countries#';

export const COUNTRY_CODES = ['US', 'GB', 'DE', 'FR', 'JP', 'CN', 'RU', 'ES', 'AT', 'KR'];

const SYLLABLES = [
  'ba', 'be', 'bi', 'bo', 'ca', 'ce', 'co', 'da', 'de', 'di', 'fa', 'fe', 'ga', 'gi', 'ha', 'ka',
  'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'ni', 'no', 'pa', 'pe', 'ra', 're',
  'ri', 'ro', 'sa', 'se', 'si', 'ta', 'te', 'to', 'va', 've', 'za', 'ster', 'ment', 'ness', 'tion',
];

/**
 * A fixed word list (independent of the data seed), lower-case ASCII letters only, so generated
 * literals never need N-Triples escaping.
 * @param {number} count
 * @returns {string[]}
 */
function makeWords(count) {
  const next = mulberry32(0x5eed);
  const seen = new Set();
  while (seen.size < count) {
    const n = 2 + Math.floor(next() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
    seen.add(w);
  }
  return [...seen];
}

export const WORDS = makeWords(5000);
