/**
 * JSON-LD uploads: parsed with jsonld-streaming-parser and handed to the store as N-Quads (the
 * store's parsers do the Turtle family only). Remote contexts are never fetched: a server that
 * dereferences URLs named by an uploader is an SSRF hole, so `@context` must be inline.
 */
import { JsonLdParser } from 'jsonld-streaming-parser';
import { GraphServerError } from './errors.js';
import { parsedToNQuads } from './parsed-to-nquads.js';
import { mediaTypeEssence } from '@ianode/rdf';

export const JSON_LD_TYPES = ['application/ld+json', 'application/json+ld'];

export function isJsonLd(contentType: string | undefined, fileName?: string): boolean {
  const essence = mediaTypeEssence(contentType);
  if (JSON_LD_TYPES.includes(essence)) return true;
  return fileName !== undefined && /\.jsonld$/i.test(fileName);
}

/** The N-Quads text of a JSON-LD document; a syntax problem is a 400 (`BAD_REQUEST`). */
export async function jsonLdToNQuads(text: string, baseIRI: string | undefined): Promise<string> {
  const parser = new JsonLdParser({
    ...(baseIRI === undefined ? {} : { baseIRI }),
    documentLoader: {
      load: async (url: string) => {
        throw new Error(`remote JSON-LD context ${url} is not fetched: put the context inline`);
      },
    },
  });
  return parsedToNQuads(parser, text).catch((error: unknown) => {
    throw new GraphServerError('BAD_REQUEST', `JSON-LD error: ${error instanceof Error ? error.message : String(error)}; nothing was stored`, { cause: error });
  });
}
