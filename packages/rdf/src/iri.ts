/**
 * The characters an IRI may not hold (N-Triples IRIREF, RFC 3987: controls, space and
 * `<>"{}|^`\`) and the scheme test for absolute IRIs: one definition for the parsers, the
 * serialisers, SPARQL's IRI() and the graph server's request IRIs.
 */

/** Matches one character an IRI may not hold. */
// eslint-disable-next-line no-control-regex -- IRIREF excludes #x00-#x20 by definition
export const IRI_FORBIDDEN = /[\u0000-\u0020<>"{}|^`\\]/;

/** Matches every such character (for replace). */
export const IRI_FORBIDDEN_ALL = new RegExp(IRI_FORBIDDEN.source, 'g');

/** Matches a leading `scheme:`. */
export const IRI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Whether `text` holds no character an IRI may not hold. */
export function isIriText(text: string): boolean {
  return !IRI_FORBIDDEN.test(text);
}

/** Whether `iri` starts with a scheme (is absolute, as opposed to relative). */
export function hasScheme(iri: string): boolean {
  return IRI_SCHEME.test(iri);
}
