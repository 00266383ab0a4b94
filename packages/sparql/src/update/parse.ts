/**
 * Parsing SPARQL 1.1 Update (sparqljs): the request's operations as sparqljs trees, checked for the
 * static rules sparqljs leaves out. WHERE clauses are translated to algebra when executed
 * (execute.ts), with the same patches and checks as queries (algebra/parse.ts).
 */
import type { Update, UpdateOperation } from 'sparqljs';
import { guardStack, SparqlError } from '../errors.js';
import { parseSparqljs, patchTree } from '../algebra/parse.js';

export interface ParsedUpdate {
  /** The operations, in request order (sparqljs trees; never mutated after parsing). */
  readonly operations: readonly UpdateOperation[];
  readonly prefixes: Readonly<Record<string, string>>;
  readonly baseIRI: string | undefined;
}

/** Parse a SPARQL 1.1 Update request (one or more operations separated by `;`). */
export function parseUpdate(text: string, options: { baseIRI?: string | undefined } = {}): ParsedUpdate {
  if (typeof text !== 'string') throw new TypeError('the update must be a string');
  return guardStack('parse', () => parseUncheckedStack(text, options));
}

function parseUncheckedStack(text: string, options: { baseIRI?: string | undefined }): ParsedUpdate {
  const parsed = parseSparqljs(text, options.baseIRI);
  // A request of only prologue and comments is an empty update (sparqljs reads it as a query).
  if (parsed.type !== 'update' && isEmptyRequest(text)) return { operations: [], prefixes: {}, baseIRI: options.baseIRI };
  if (parsed.type !== 'update') throw new SparqlError('SPARQL_SYNTAX', 'expected an update (INSERT, DELETE, LOAD, CLEAR, ...), got a query');
  checkUpdate(parsed);
  // The query-tree workarounds, once, on each WHERE clause (they are not idempotent).
  for (const op of parsed.updates) {
    const where = (op as { where?: unknown }).where;
    if (where !== undefined) patchTree(where);
  }
  return { operations: parsed.updates, prefixes: parsed.prefixes ?? {}, baseIRI: parsed.base ?? options.baseIRI };
}

interface Triple { subject: { termType: string; value: string }; predicate: unknown; object: { termType: string; value: string } }
interface QuadsBlock { type: string; triples: Triple[]; name?: { termType: string } }

/**
 * SPARQL 1.1 Update rules sparqljs does not check (§19.6 grammar notes):
 * - no blank nodes in DELETE DATA, DELETE WHERE or a DELETE template;
 * - a blank node label of INSERT DATA may not be used by another operation of the request.
 */
function checkUpdate(update: Update): void {
  const dataLabels = new Map<string, number>();
  update.updates.forEach((op, index) => {
    const o = op as { updateType?: string; insert?: QuadsBlock[]; delete?: QuadsBlock[] };
    if (o.updateType === undefined) return;
    for (const block of o.delete ?? []) {
      for (const t of block.triples) {
        if (t.subject.termType === 'BlankNode' || t.object.termType === 'BlankNode') {
          throw new SparqlError('SPARQL_SYNTAX', 'blank nodes are not allowed in DELETE DATA, DELETE WHERE or a DELETE template');
        }
      }
    }
    if (o.updateType === 'insert' || o.updateType === 'insertdelete') {
      for (const block of o.insert ?? []) {
        for (const t of block.triples) {
          for (const term of [t.subject, t.object]) {
            if (term.termType !== 'BlankNode') continue;
            const owner = dataLabels.get(term.value);
            if (owner !== undefined && owner !== index && o.updateType === 'insert') {
              throw new SparqlError('SPARQL_SYNTAX', `blank node label _:${term.value.replace(/^e_/, '')} is used in more than one INSERT DATA operation`);
            }
            if (o.updateType === 'insert') dataLabels.set(term.value, index);
          }
        }
      }
    }
  });
}

/** Whether the text is only comments, BASE and PREFIX declarations. */
function isEmptyRequest(text: string): boolean {
  const stripped = text
    .replace(/#[^\n\r]*/g, ' ')
    .replace(/\b(BASE\s*<[^>]*>|PREFIX\s*[\w.-]*:\s*<[^>]*>)/gi, ' ');
  return stripped.trim() === '';
}
