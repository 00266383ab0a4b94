/**
 * The audit record of an HTTP request (the audit log itself is ./audit.ts): who (the request's
 * caller), what, on which route, and the details the route adds (counts, labels, txId, outcome).
 * Kept out of the write side (./writes.ts), which knows nothing of HTTP requests. The request and
 * server fields it reads (`caller`, `audited`, `auditLog`, `auditDataset`) are declared in
 * ./server.ts.
 */
import type { FastifyRequest } from 'fastify';
import { redact, type AuditKind, type AuditRecord } from './audit.js';

/** The audit record of a write (./audit.ts): who, what, how much, which label, txId, outcome.
 * To the audit file when `audit.file` is set, else a pino line with `audit: true` as before. */
export function audit(request: FastifyRequest, operation: string, details: Record<string, unknown>): void {
  auditRequest(request, 'write', operation, details);
}

/** The audit record of one request (writes, admin actions, refusals, reads): at most one per request. */
export function auditRequest(request: FastifyRequest, kind: AuditKind, operation: string, details: Record<string, unknown>): void {
  request.audited = true;
  const record: AuditRecord = {
    kind,
    operation,
    dataset: request.server.auditDataset,
    identity: request.caller?.id,
    user: request.caller?.user,
    method: request.method,
    route: request.routeOptions.url,
    url: request.url.split('?')[0],
    requestId: request.id,
    ...details,
  };
  const log = request.server.auditLog;
  if (log !== undefined && log.config.file !== undefined) log.record(record);
  // No audit file: the service log, with the request's log bindings (its reqId), as before.
  else request.log.info({ audit: true, ...redact(record) }, `${kind}: ${operation}`);
}
