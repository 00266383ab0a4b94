/** Reading a results document of any of our formats by media type. */
import { parseCsvResults } from './csv.js';
import { parseJsonResults } from './json.js';
import { canonicalMediaType, SPARQL_RESULTS_CSV, SPARQL_RESULTS_JSON, SPARQL_RESULTS_TSV, SPARQL_RESULTS_XML } from './media-types.js';
import { parseTsvResults } from './tsv.js';
import type { ParsedResults } from './types.js';
import { parseXmlResults } from './xml.js';

/** The media type of a results file by its extension (`.srj`, `.srx`, `.csv`, `.tsv`), or undefined. */
export function resultsFormatFromExtension(nameOrExtension: string): string | undefined {
  const dot = nameOrExtension.lastIndexOf('.');
  const ext = (dot < 0 ? nameOrExtension : nameOrExtension.slice(dot + 1)).toLowerCase();
  return ({ srj: SPARQL_RESULTS_JSON, json: SPARQL_RESULTS_JSON, srx: SPARQL_RESULTS_XML, xml: SPARQL_RESULTS_XML, csv: SPARQL_RESULTS_CSV, tsv: SPARQL_RESULTS_TSV } as Record<string, string>)[ext];
}

/** Reads a whole results document in `mediaType` (JSON, XML, CSV or TSV; aliases and parameters
 * allowed). Throws ResultsSyntaxError for a malformed document, TypeError for another type. */
export function parseResults(text: string, mediaType: string): ParsedResults {
  if (typeof text !== 'string') throw new TypeError('text must be a string');
  switch (canonicalMediaType(mediaType, 'bindings')) {
    case SPARQL_RESULTS_JSON:
      return parseJsonResults(text);
    case SPARQL_RESULTS_XML:
      return parseXmlResults(text);
    case SPARQL_RESULTS_CSV:
      return parseCsvResults(text);
    case SPARQL_RESULTS_TSV:
      return parseTsvResults(text);
    default:
      throw new TypeError(`cannot read results in ${JSON.stringify(mediaType)}`);
  }
}
