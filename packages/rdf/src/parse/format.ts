/**
 * The concrete RDF syntaxes the parsers and serialisers handle, and how to recognise them from a
 * media type (RFC 9110 `Content-Type`, parameters allowed) or a file extension.
 */

export type RdfFormat = 'text/turtle' | 'application/trig' | 'application/n-triples' | 'application/n-quads';

export const RDF_FORMATS: readonly RdfFormat[] = [
  'text/turtle',
  'application/trig',
  'application/n-triples',
  'application/n-quads',
];

const MEDIA_TYPES: Readonly<Record<string, RdfFormat>> = {
  'text/turtle': 'text/turtle',
  'application/turtle': 'text/turtle',
  'application/x-turtle': 'text/turtle',
  'application/trig': 'application/trig',
  'application/x-trig': 'application/trig',
  'application/n-triples': 'application/n-triples',
  'text/n-triples': 'application/n-triples',
  'text/plain': 'application/n-triples',
  'application/n-quads': 'application/n-quads',
  'text/n-quads': 'application/n-quads',
  'text/x-nquads': 'application/n-quads',
  'application/x-nquads': 'application/n-quads',
};

const EXTENSIONS: Readonly<Record<string, RdfFormat>> = {
  ttl: 'text/turtle',
  turtle: 'text/turtle',
  trig: 'application/trig',
  nt: 'application/n-triples',
  ntriples: 'application/n-triples',
  nq: 'application/n-quads',
  nquads: 'application/n-quads',
};

/** The format of a media type such as `text/turtle; charset=utf-8`, or undefined when it is not
 * one of ours. Case and parameters are ignored. */
export function formatFromContentType(contentType: string | undefined | null): RdfFormat | undefined {
  return MEDIA_TYPES[mediaTypeEssence(contentType)];
}

/**
 * The essence of a Content-Type header (`type/subtype`): parameters after `;` dropped, trimmed,
 * lower case (media types are case-insensitive, RFC 9110 §8.3.1); '' when there is none. The one
 * place the services and tools read a media type; a two-line split, so no library is needed.
 */
export function mediaTypeEssence(contentType: string | undefined | null): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type header (quotes removed, case kept), or undefined. */
export function charsetOf(contentType: string | undefined | null): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
}

/** Whether a charset names UTF-8 (`utf-8`, `utf8`, any case). */
export function isUtf8Charset(charset: string): boolean {
  return /^utf-?8$/i.test(charset);
}

/** The format of a file extension (`.ttl`, `ttl`) or file name (`data.nq`), or undefined. */
export function formatFromExtension(nameOrExtension: string): RdfFormat | undefined {
  const dot = nameOrExtension.lastIndexOf('.');
  const ext = (dot < 0 ? nameOrExtension : nameOrExtension.slice(dot + 1)).toLowerCase();
  return EXTENSIONS[ext];
}

/** Throws TypeError unless `format` is one of the supported formats. */
export function assertFormat(format: unknown): asserts format is RdfFormat {
  if (!RDF_FORMATS.includes(format as RdfFormat)) {
    throw new TypeError(`unsupported RDF format ${JSON.stringify(format)}; expected one of ${RDF_FORMATS.join(', ')}`);
  }
}
