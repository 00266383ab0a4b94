/**
 * LOAD for local files (SPEC §4; off unless the server configures a folder): `file:` IRIs under
 * `root` only; any other scheme is refused with an error naming the rule.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatFromExtension, parseQuadKeys } from '@ianode/rdf';
import { SparqlError } from '../errors.js';
import type { UpdateOptions } from './api.js';

/** Readers for formats @ianode/rdf does not parse (RDF/XML ...): file extension (lower case,
 * without the dot) -> a function giving the document's N-Triples or N-Quads text. */
export type LoadConverters = Readonly<Record<string, (text: string, baseIRI: string) => Promise<string>>>;

export function createFileLoader(root: string, converters: LoadConverters = {}): NonNullable<UpdateOptions['load']> {
  const base = path.resolve(root);
  return async (iri, sink) => {
    if (!iri.startsWith('file:')) {
      throw new SparqlError('SPARQL_UNSUPPORTED', `LOAD <${iri}> refused: only local files (file: IRIs) may be loaded; remote documents are never fetched`);
    }
    const file = path.resolve(fileURLToPath(iri));
    if (file !== base && !file.startsWith(base + path.sep)) {
      throw new SparqlError('SPARQL_UNSUPPORTED', `LOAD <${iri}> refused: only files under the configured load folder may be loaded`);
    }
    const extension = path.extname(file).slice(1).toLowerCase();
    const convert = Object.prototype.hasOwnProperty.call(converters, extension) ? converters[extension] : undefined;
    if (convert !== undefined) {
      parseQuadKeys(await convert(await readFile(file, 'utf8'), iri), { format: 'application/n-quads', baseIRI: iri }, sink);
      return;
    }
    const format = formatFromExtension(file);
    if (format === undefined) throw new Error(`LOAD <${iri}>: unknown RDF format (file extension)`);
    const text = await readFile(file, 'utf8');
    parseQuadKeys(text, { format, baseIRI: iri }, sink);
  };
}
