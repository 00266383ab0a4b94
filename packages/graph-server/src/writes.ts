/**
 * Label-aware, atomic writes for SPARQL Update and Graph Store Protocol writes (SPEC §3, §4).
 *
 * Every write request is ONE store transaction. Reads inside it go through the caller's view of
 * the snapshot taken when the transaction starts (one writer at a time, so nothing commits in
 * between), plus the request's own pending writes (the update overlay of @ianode/sparql).
 *
 * The rules (docs/graph-server.md, "Writes and labels"):
 * - inserted quads get the request's `Security-Label` header, else the dataset default label; a
 *   quad the caller can already see and re-inserts without a header keeps its label;
 * - deletes (DELETE DATA/WHERE, CLEAR, DROP, COPY/MOVE targets, GSP PUT/DELETE) reach only quads
 *   the caller can see; inserting a quad that exists under a label the caller cannot see leaves
 *   it and its label untouched. Responses report the same counts either way, so a caller learns
 *   nothing of invisible quads.
 */
import type { FastifyRequest } from 'fastify';
import { validateLabel } from '@ianode/abac';
import { namedNode, type Dataset } from '@ianode/rdf';
import { createFileLoader, executeUpdate, parseUpdate, type ParsedUpdate, type UpdateOp, type UpdateResult } from '@ianode/sparql';
import type { KeyQuad, WriteTransaction } from '@ianode/store';
import { GraphServerError } from './errors.js';
import type { RouteContext } from './routes/context.js';
import type { Caller } from './security.js';

/** The request's `Security-Label` header, validated (LabelSyntaxError -> 400), or undefined. */
export function requestLabel(request: FastifyRequest): string | undefined {
  const header = request.headers['security-label'];
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new GraphServerError('BAD_REQUEST', 'one Security-Label header per request');
  validateLabel(header);
  return header;
}

export interface WriteScope {
  /** The caller's view of the state the transaction starts from. */
  view: Dataset;
  /** Adds (label rule above) and deletes of visible quads, straight into the transaction. */
  apply(ops: readonly UpdateOp[]): void;
  /** Whether the caller will see what it inserts. */
  insertsVisible: boolean;
  added: number;
  deleted: number;
}

/** Runs `body` as one atomic, durable store transaction with the caller's write scope. */
export async function withWriteScope<T>(ctx: RouteContext, caller: Caller, label: string | undefined, body: (scope: WriteScope) => T | Promise<T>): Promise<{ value: T; added: number; deleted: number }> {
  const visible = caller.visible;
  const effectiveLabel = label ?? ctx.config.dataset.defaultLabel;
  return ctx.store.transaction(async (tx: WriteTransaction) => {
    const snapshot = ctx.store.snapshot();
    const view = visible === undefined ? snapshot : snapshot.view(visible);
    const scope: WriteScope = {
      view,
      insertsVisible: visible === undefined ? true : safeVisible(visible, effectiveLabel),
      added: 0,
      deleted: 0,
      apply(ops) {
        for (const op of ops) {
          const quad: KeyQuad = op.quad;
          if (op.type === 'delete') {
            // The update layer only deletes quads of the view; checked again here (fail closed).
            if (visible !== undefined && !visibleNow(ctx, quad, visible)) continue;
            tx.delete(quad);
            scope.deleted++;
          } else {
            if (visible !== undefined) {
              const current = ctx.store.labelOf(quad);
              if (current !== undefined && !safeVisible(visible, current)) continue; // invisible: untouched
            }
            tx.add(quad, label);
            scope.added++;
          }
        }
      },
    };
    const value = await body(scope);
    return { value, added: scope.added, deleted: scope.deleted };
  });
}

function safeVisible(visible: (label: string) => boolean, label: string): boolean {
  try {
    return visible(label);
  } catch {
    return false;
  }
}

/** A stored quad's label is visible to the caller, or the quad is not stored (a pending add). */
function visibleNow(ctx: RouteContext, quad: KeyQuad, visible: (label: string) => boolean): boolean {
  const label = ctx.store.labelOf(quad);
  return label === undefined || safeVisible(visible, label);
}

/** The protocol's dataset for an update: `using-graph-uri` and `using-named-graph-uri` IRIs. */
export interface UpdateDataset {
  default: string[];
  named: string[];
}

/**
 * The update with the protocol's dataset (SPARQL 1.1 Protocol §2.2.3) as the USING / USING NAMED
 * of every DELETE/INSERT operation. An update that names its own dataset (USING, USING NAMED or
 * WITH) together with the parameters is refused (400). DELETE WHERE and INSERT DATA / DELETE DATA
 * have no dataset clause and are left as they are.
 */
export function withProtocolDataset(parsed: ParsedUpdate, dataset: UpdateDataset | undefined): ParsedUpdate {
  if (dataset === undefined || (dataset.default.length === 0 && dataset.named.length === 0)) return parsed;
  const modify = (op: unknown): op is { updateType: 'insertdelete'; graph?: unknown; using?: { default?: unknown[]; named?: unknown[] } } =>
    (op as { updateType?: string }).updateType === 'insertdelete';
  for (const op of parsed.operations) {
    if (modify(op) && (op.graph !== undefined || (op.using?.default?.length ?? 0) > 0 || (op.using?.named?.length ?? 0) > 0)) {
      throw new GraphServerError('BAD_REQUEST', 'the update names its dataset (USING, USING NAMED or WITH): give that or using-graph-uri / using-named-graph-uri, not both');
    }
  }
  const using = { default: dataset.default.map((iri) => namedNode(iri)), named: dataset.named.map((iri) => namedNode(iri)) };
  const operations = parsed.operations.map((op) => (modify(op) ? ({ ...op, using } as unknown as typeof op) : op));
  return { ...parsed, operations };
}

/** SPARQL Update for a caller: parse (400 before any write), then one transaction. */
export async function runSparqlUpdate(
  ctx: RouteContext,
  request: FastifyRequest,
  text: string,
  options: { baseIRI?: string | undefined; using?: UpdateDataset | undefined } = {},
): Promise<UpdateResult & { txId: number }> {
  const caller = request.caller!;
  const label = requestLabel(request);
  const parsed = withProtocolDataset(parseUpdate(text, { baseIRI: options.baseIRI ?? ctx.baseIRI }), options.using);
  const { queryTimeoutMs, resultRows } = ctx.config.limits;
  const loadDir = process.env.IANODE_UPDATE_LOAD_DIR;
  let value: UpdateResult;
  try {
    ({ value } = await withWriteScope(ctx, caller, label, (scope) =>
      executeUpdate(scope.view, parsed, { applyOps: (ops) => scope.apply(ops) }, {
        deadline: queryTimeoutMs > 0 ? Date.now() + queryTimeoutMs : undefined,
        rowBudget: resultRows > 0 ? resultRows : undefined,
        insertsVisible: scope.insertsVisible,
        // LOAD is off unless IANODE_UPDATE_LOAD_DIR names a folder; then only files under it.
        load: loadDir ? createFileLoader(loadDir) : undefined,
      }),
    ));
  } catch (error) {
    audit(request, 'sparql-update', { outcome: 'failed', code: (error as { code?: string }).code, label });
    throw error;
  }
  const txId = ctx.store.stats().txId;
  audit(request, 'sparql-update', { outcome: 'ok', operations: value.operations, inserted: value.inserted, deleted: value.deleted, label, txId });
  return { ...value, txId };
}

/** The audit line of a write: pino, `audit: true`, who, what, how much. */
export function audit(request: FastifyRequest, operation: string, details: Record<string, unknown>): void {
  request.log.info({ audit: true, user: request.caller?.user, operation, method: request.method, url: request.url.split('?')[0], ...details }, `write: ${operation}`);
}
