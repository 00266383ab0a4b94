/** Term helpers for the traversal schema: node text, IRIs from arguments, short IRIs, hashes. */
import { createHash } from 'node:crypto';
import { blankNode, namedNode, type Dataset, type Term } from '@ianode/rdf';

/** Prefixes used by `shortUri` and `shortPredicate` unless the caller gives others. */
export const DEFAULT_PREFIXES: Readonly<Record<string, string>> = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  dc: 'http://purl.org/dc/elements/1.1/',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  schema: 'https://schema.org/',
  ies: 'http://ies.data.gov.uk/ontology/ies4#',
};

/** A node's text as the schema shows it: the IRI, or `_:label` for a blank node. */
export function nodeText(dataset: Dataset, id: number): string {
  const key = dataset.key(id);
  return key.charCodeAt(0) === 60 /* < */ ? key.slice(1) : key;
}

/** The term a node argument names: `_:label` is a blank node, anything else an IRI. */
export function nodeTerm(text: string): Term {
  return text.startsWith('_:') ? blankNode(text.slice(2)) : namedNode(text);
}

/** `prefix:local` for the longest matching namespace, else the IRI unchanged. */
export function shorten(iri: string, prefixes: Readonly<Record<string, string>>): string {
  let best: [string, string] | undefined;
  for (const [prefix, ns] of Object.entries(prefixes)) {
    if (iri.startsWith(ns) && (best === undefined || ns.length > best[1].length)) best = [prefix, ns];
  }
  if (best === undefined) return iri;
  const local = iri.slice(best[1].length);
  return /^[\p{L}\p{N}_]([\p{L}\p{N}_.-]*[\p{L}\p{N}_-])?$/u.test(local) || local === '' ? `${best[0]}:${local}` : iri;
}

/** SHA-1 (hex) of a text: graphql-jena's `uriHash` and `Rel.id`, keys for client-side caches
 * (not a security function, so the reference's algorithm is kept for compatibility). */
export function sha1Text(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
