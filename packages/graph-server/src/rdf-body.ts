/**
 * An upload body's format and its parse into a `PreparedLoad` (syntax, `Security-Label` and
 * labels-graph checks, outside the writer lock): `POST /{ds}/upload` and the RDF messages of the
 * Kafka connector read bodies the same way.
 */
import { formatFromContentType, formatFromExtension, mediaTypeEssence, type RdfFormat } from '@ianode/rdf';
import { prepareLoad, type PreparedLoad } from '@ianode/store';
import type { SpooledBody } from './body-reader.js';
import { GraphServerError } from './errors.js';
import { isJsonLd, jsonLdToNQuads } from './jsonld.js';
import { isRdfXml, rdfXmlToNQuads } from './rdfxml.js';

/** What an upload may be (for messages naming what is accepted). */
export const UPLOAD_TYPES = 'text/turtle, application/trig, application/n-triples, application/n-quads, application/ld+json, application/rdf+xml, or multipart/form-data with one file';

/** Media types SPEC §4 names that @ianode/rdf does not list. */
const EXTRA_TYPES: Readonly<Record<string, RdfFormat>> = { 'text/trig': 'application/trig' };


/** The body's format (JSON-LD and RDF/XML are converted to N-Quads first); 415 when it is none we read. */
export function formatOf(contentType: string | undefined, fileName: string | undefined): RdfFormat | 'jsonld' | 'rdfxml' {
  if (isJsonLd(contentType, fileName)) return 'jsonld';
  if (isRdfXml(contentType, fileName)) return 'rdfxml';
  let format: RdfFormat | undefined = formatFromContentType(contentType) ?? EXTRA_TYPES[mediaTypeEssence(contentType)];
  if (format === undefined && fileName !== undefined) format = formatFromExtension(fileName);
  if (format === undefined) {
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `unsupported content type ${JSON.stringify(contentType)}${fileName ? ` for ${fileName}` : ''}: use ${UPLOAD_TYPES}`);
  }
  return format;
}

/** Parse and check the whole body, outside the writer lock (uploads, and RDF messages of the Kafka connector). */
export async function prepare(body: Pick<SpooledBody, 'text' | 'chunks'>, format: RdfFormat | 'jsonld' | 'rdfxml', label: string | undefined, baseIRI: string | undefined, legacyLabels: boolean): Promise<PreparedLoad> {
  if (format === 'jsonld') {
    const nquads = await jsonLdToNQuads(await body.text(), baseIRI);
    return prepareLoad(nquads, { format: 'application/n-quads', label, baseIRI, legacyLabels });
  }
  if (format === 'rdfxml') {
    // Triples only (RDF/XML has no graphs): as N-Triples, so a labels graph cannot be named.
    const ntriples = await rdfXmlToNQuads(await body.text(), baseIRI);
    return prepareLoad(ntriples, { format: 'application/n-triples', label, baseIRI, legacyLabels });
  }
  return prepareLoad(body.chunks(), { format, label, baseIRI, legacyLabels });
}
