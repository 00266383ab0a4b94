/**
 * IRIs that come from a request: the origin the client addressed (scheme + `Host` header), the URL
 * of an endpoint (service description, default base IRI), the IRI of a graph named directly by a
 * Graph Store Protocol request path (SPARQL 1.1 Graph Store HTTP Protocol §4.1), and graph IRIs
 * given as parameters (`graph=`, `using-graph-uri=` ...).
 *
 * A Host header only ever picks a *name*: reads and writes of the graph so named go through the
 * caller's view like any other (../writes.ts, routes/gsp.ts), so naming a graph through a forged
 * Host reaches nothing a `?graph=` with the same IRI would not.
 */
import type { FastifyRequest } from 'fastify';
import { hasScheme, isIriText } from '@ianode/rdf';
import { GraphServerError } from './errors.js';

/** `host[:port]`: a DNS name (letters, digits, `-`, `_`), an IPv4 address or a bracketed IPv6 one. */
const HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** `http://host[:port]` as the client addressed the server; 400 when the Host header is not a host. */
export function requestOrigin(request: FastifyRequest): string {
  const host = request.headers.host;
  if (typeof host !== 'string' || !HOST.test(host)) {
    throw new GraphServerError('BAD_REQUEST', `the Host header must be a host name with an optional port, not ${JSON.stringify(host ?? '')}`);
  }
  try {
    return new URL(`${request.protocol}://${host}`).origin;
  } catch {
    throw new GraphServerError('BAD_REQUEST', `the Host header must be a host name with an optional port, not ${JSON.stringify(host)}`);
  }
}

/** The absolute URL of `path` (an endpoint such as `/ds/query`) on the origin the client addressed. */
export function endpointUrl(request: FastifyRequest, path: string): string {
  return requestOrigin(request) + path;
}

/**
 * The IRI of the graph a GSP request names directly: the request URL (origin from the Host header,
 * the path exactly as sent, percent-encoding kept, no query string). `prefix` is the GSP endpoint
 * (`/ds/data`); the path must continue it with `/<something>`. Dot segments (`.`, `..`, also
 * percent-encoded) and characters an IRI cannot hold are refused (400), so the name is the URL the
 * client sent and nothing a URL parser rewrote.
 */
export function directGraphIri(request: FastifyRequest, prefix: string): string {
  const rawPath = request.url.split('?')[0]!;
  if (!rawPath.startsWith(prefix + '/')) {
    // The router decoded a percent-encoded prefix (`/%64s/data/x`): not the endpoint's URL space.
    throw new GraphServerError('NOT_FOUND', `no endpoint ${request.method} ${rawPath}`);
  }
  const rest = rawPath.slice(prefix.length + 1);
  if (rest === '') throw new GraphServerError('BAD_REQUEST', `name a graph after ${prefix}/ (direct identification) or use ${prefix}?graph=<iri>`);
  if (rest.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) {
    throw new GraphServerError('BAD_REQUEST', 'a graph URL may not contain "." or ".." path segments');
  }
  if (!isIriText(rawPath)) throw new GraphServerError('BAD_REQUEST', `the request path is not an IRI path: ${JSON.stringify(rawPath)}`);
  const url = new URL(rawPath, requestOrigin(request));
  const iri = url.origin + url.pathname;
  if (!isIriText(iri)) throw new GraphServerError('BAD_REQUEST', `the request path is not an IRI path: ${JSON.stringify(rawPath)}`);
  return iri;
}

/**
 * A graph IRI a client gave as a parameter (`graph=`, `using-graph-uri=` ...), decoded once by the
 * query-string parser: an absolute IRI is taken exactly as given (IRIs are compared character by
 * character: no case folding, no trailing `/` added, percent-encoding kept), a relative one is
 * resolved against `base` (400 without one). `name` is the parameter, for the message.
 */
export function parameterIri(value: string, base: string | undefined, name: string): string {
  if (hasScheme(value)) {
    if (!isIriText(value)) throw new GraphServerError('BAD_REQUEST', `${name} must be an IRI: ${JSON.stringify(value)}`);
    return value;
  }
  if (base === undefined) throw new GraphServerError('BAD_REQUEST', `${name} must be an absolute IRI (no base IRI is configured): ${JSON.stringify(value)}`);
  let iri: string;
  try {
    iri = new URL(value, base).href;
  } catch {
    throw new GraphServerError('BAD_REQUEST', `${name} must be an IRI: ${JSON.stringify(value)}`);
  }
  if (!isIriText(iri)) throw new GraphServerError('BAD_REQUEST', `${name} must be an IRI: ${JSON.stringify(value)}`);
  return iri;
}
