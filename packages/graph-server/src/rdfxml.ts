/**
 * RDF/XML bodies (uploads, Graph Store writes, LOAD of `.rdf` files): parsed with
 * rdfxml-streaming-parser and handed on as N-Quads (the store's own parsers do the Turtle family
 * only), like JSON-LD (./jsonld.ts). RDF/XML has no named graphs: its triples behave like a Turtle
 * body's. Nothing outside the document is ever read: the XML parser (saxes) resolves no external
 * entity or DTD, so a body cannot make the server open a file or a URL.
 */
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { mediaTypeEssence, RdfSyntaxError } from '@ianode/rdf';
import { parsedToNQuads } from './parsed-to-nquads.js';

export const RDF_XML_TYPES = ['application/rdf+xml', 'text/rdf+xml', 'application/rdf'];

/** Whether a body is RDF/XML by its media type or (multipart, LOAD) its file name. */
export function isRdfXml(contentType: string | undefined, fileName?: string): boolean {
  const essence = mediaTypeEssence(contentType);
  if (RDF_XML_TYPES.includes(essence)) return true;
  return fileName !== undefined && /\.(?:rdf|owl)$/i.test(fileName);
}

/** `Line 3 column 7: ...` / `3:7: ...` in the parser's messages. */
const POSITION = /(?:line[: ]+(\d+)[, ]+column[: ]+(\d+))|(?:^|\s|\()(\d+):(\d+)(?::|\))/i;

/** The N-Quads text of an RDF/XML document; a syntax problem is an RdfSyntaxError (400 with the
 * line and column where the parser stopped). */
export async function rdfXmlToNQuads(text: string, baseIRI: string | undefined): Promise<string> {
  const parser = new RdfXmlParser({ ...(baseIRI === undefined ? {} : { baseIRI }), trackPosition: true });
  // The parser does not close its XML parser at the end, so a document cut short (`<rdf:RDF`)
  // or empty would pass as no triples: closing it reports unclosed elements and a missing root.
  const closeXml = () => (parser as unknown as { saxParser: { close(): void } }).saxParser.close();
  return parsedToNQuads(parser, text, closeXml).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const at = POSITION.exec(message);
    const line = Number(at?.[1] ?? at?.[3] ?? 0);
    const column = Number(at?.[2] ?? at?.[4] ?? 0);
    throw new RdfSyntaxError(`RDF/XML: ${message.replace(/^\d+:\d+:\s*/, '')}`, line, column, { cause: error });
  });
}
