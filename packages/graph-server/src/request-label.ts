/** The `Security-Label` header of a write request (upload, Graph Store, PATCH, SPARQL Update). */
import type { FastifyRequest } from 'fastify';
import { readLabel } from '@ianode/abac';
import { SECURITY_LABEL_HEADER } from '@ianode/store';
import { GraphServerError } from './errors.js';

/** The request's `Security-Label` header, read as the dataset reads labels (`dataset.labels.legacy`:
 * the RDF-ABAC fallback gives a quoted attribute name) and validated (LabelSyntaxError -> 400), or
 * undefined. */
export function requestLabel(request: FastifyRequest, legacy: boolean): string | undefined {
  const header = request.headers[SECURITY_LABEL_HEADER.toLowerCase()];
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new GraphServerError('BAD_REQUEST', 'one Security-Label header per request');
  return readLabel(header, { legacy });
}
