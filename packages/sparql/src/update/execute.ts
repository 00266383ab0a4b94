/**
 * SPARQL 1.1 Update evaluation (SPEC §3, §4). One request = one call; the caller makes it one
 * atomic transaction (the graph server wraps it in `store.transaction`, handing `tx.add` /
 * `tx.delete` in as the target). This package never sees the store:
 *
 * - every read (WHERE, DELETE DATA, CLEAR, COPY ...) goes through `view`, the caller's ABAC view,
 *   so an update can neither touch nor detect a quad the caller cannot see: DELETE DATA of an
 *   invisible quad is a no-op, CLEAR/DROP/COPY/MOVE act on visible quads only;
 * - each operation reads an OverlayDataset = view + the writes of the request's earlier operations,
 *   so later operations see the effects of earlier ones;
 * - writes are quad keys handed to `target.applyOps`, one call per operation.
 */
import { randomBytes } from 'node:crypto';
import type { UpdateOperation } from 'sparqljs';
import { translate, type Algebra } from 'sparqlalgebrajs';
import { namedNode, termToKey, type Dataset, type IdQuad, type Term } from '@ianode/rdf';
import { checkQuery } from '../algebra/parse.js';
import { executeAlgebra } from '../engine/execute.js';
import { isStackOverflow, SparqlError, tooComplex } from '../errors.js';
import type { Solution } from '../api.js';
import type { UpdateOp, UpdateOptions, UpdateQuad, UpdateResult, UpdateTarget } from './api.js';
import { OverlayDataset } from './overlay.js';
import { parseUpdate, type ParsedUpdate } from './parse.js';


type RdfTerm = { termType: string; value: string };
interface TemplateTriple { subject: RdfTerm; predicate: RdfTerm; object: RdfTerm }
interface QuadsBlock { type: 'bgp' | 'graph'; triples: TemplateTriple[]; name?: RdfTerm }
interface GraphRef { type?: 'graph'; name?: RdfTerm; default?: true; named?: true; all?: true }

/** Parse (when given text) and execute an update request over `view`, writing through `target`. */
export async function executeUpdate(view: Dataset, update: string | ParsedUpdate, target: UpdateTarget, options: UpdateOptions = {}): Promise<UpdateResult> {
  const parsed = typeof update === 'string' ? parseUpdate(update, { baseIRI: options.baseIRI }) : update;
  const run = new UpdateRun(view, target, { ...options, baseIRI: parsed.baseIRI });
  for (const op of parsed.operations) await run.operation(op, parsed.prefixes);
  return { operations: parsed.operations.length, inserted: run.inserted, deleted: run.deleted };
}

class UpdateRun {
  readonly data: OverlayDataset;
  inserted = 0;
  deleted = 0;
  /** Fresh blank node labels: unique per request (random) and per solution (counter). */
  private readonly bnodePrefix = 'u' + randomBytes(6).toString('hex') + '_';
  private bnodeCount = 0;

  constructor(view: Dataset, private readonly target: UpdateTarget, private readonly options: UpdateOptions) {
    this.data = new OverlayDataset(view);
  }

  async operation(op: UpdateOperation, prefixes: Readonly<Record<string, string>>): Promise<void> {
    const o = op as unknown as Record<string, unknown>;
    if (typeof o.updateType === 'string') {
      await this.insertDelete(o, prefixes);
      return;
    }
    const silent = o.silent === true;
    switch (o.type) {
      case 'load':
        return this.load(o.source as RdfTerm, (o.destination as RdfTerm | undefined) ?? undefined, silent);
      case 'clear':
      case 'drop':
        return this.write(this.quadsOf(o.graph as GraphRef).map((q) => ({ type: 'delete', q })));
      case 'create': {
        const g = this.graphId(o.graph as GraphRef);
        if (g !== undefined && this.data.count({ g }) > 0 && !silent) {
          throw new SparqlError('SPARQL_SYNTAX', `CREATE GRAPH <${(o.graph as GraphRef).name!.value}>: the graph already exists`);
        }
        return;
      }
      case 'add':
      case 'copy':
      case 'move':
        return this.transfer(o.type, o.source as GraphRef, o.destination as GraphRef);
      default:
        throw new SparqlError('SPARQL_UNSUPPORTED', `unsupported update operation ${String(o.type)}`);
    }
  }

  /** Id of a graph reference (0 = default), or undefined when no term has that IRI. */
  private graphId(ref: GraphRef): number | undefined {
    if (ref.default) return 0;
    if (ref.name === undefined) throw new SparqlError('SPARQL_UNSUPPORTED', 'a graph reference without a graph');
    return this.data.lookup(namedNode(ref.name.value));
  }

  /** Visible quads of GRAPH g / DEFAULT / NAMED / ALL (as they are now). */
  private quadsOf(ref: GraphRef): IdQuad[] {
    if (ref.all) return [...this.data.match({})];
    if (ref.named) return [...this.data.match({})].filter((q) => q.g !== 0);
    const g = this.graphId(ref);
    return g === undefined ? [] : [...this.data.match({ g })];
  }

  private async transfer(kind: 'add' | 'copy' | 'move', source: GraphRef, destination: GraphRef): Promise<void> {
    const from = this.graphId(source);
    const toKey = destination.default ? '' : termToKey(namedNode(destination.name!.value));
    const to = this.data.idOfKey(toKey);
    if (from === to) return; // ADD/COPY/MOVE of a graph onto itself changes nothing
    const sourceQuads = from === undefined ? [] : [...this.data.match({ g: from })];
    const writes: { type: 'add' | 'delete'; q: IdQuad }[] = [];
    if (kind !== 'add') for (const q of this.data.match({ g: to })) writes.push({ type: 'delete', q });
    for (const q of sourceQuads) writes.push({ type: 'add', q: { s: q.s, p: q.p, o: q.o, g: to } });
    if (kind === 'move') for (const q of sourceQuads) writes.push({ type: 'delete', q });
    await this.write(writes);
  }

  /** Applies writes in order to the overlay and hands them to the target. Deletes of quads the
   * overlay does not hold are dropped (never reach the store: invisible quads stay untouched). */
  private async write(writes: { type: 'add' | 'delete'; q: IdQuad }[]): Promise<void> {
    const ops: UpdateOp[] = [];
    const visible = this.options.insertsVisible !== false;
    for (const { type, q } of writes) {
      if (type === 'delete') {
        if (!this.data.has(q)) continue;
        this.data.delete(q);
        this.deleted++;
      } else {
        this.data.add(q, visible);
        this.inserted++;
      }
      ops.push({ type, quad: this.keysOf(q) });
    }
    if (ops.length > 0) await this.target.applyOps(ops);
  }

  private keysOf(q: IdQuad): UpdateQuad {
    return { s: this.data.key(q.s), p: this.data.key(q.p), o: this.data.key(q.o), g: q.g === 0 ? '' : this.data.key(q.g) };
  }

  private async insertDelete(o: Record<string, unknown>, prefixes: Readonly<Record<string, string>>): Promise<void> {
    const type = o.updateType as 'insert' | 'delete' | 'insertdelete' | 'deletewhere';
    const withGraph = o.graph as RdfTerm | undefined;
    const deletes = (o.delete as QuadsBlock[] | undefined) ?? [];
    const inserts = (o.insert as QuadsBlock[] | undefined) ?? [];
    let solutions: Solution[];
    if (type === 'insert' || type === 'delete') solutions = [new Map()];
    else {
      const where = type === 'deletewhere'
        ? deletes.map((b) => (b.type === 'graph' ? { type: 'graph', name: b.name, patterns: [{ type: 'bgp', triples: b.triples }] } : { type: 'bgp', triples: b.triples }))
        : (o.where as unknown[]);
      solutions = this.evaluateWhere(where, o.using as { default?: RdfTerm[]; named?: RdfTerm[] } | undefined, withGraph, prefixes);
    }
    const writes: { type: 'add' | 'delete'; q: IdQuad }[] = [];
    for (const solution of solutions) {
      for (const q of this.instantiate(deletes, solution, withGraph, false)) writes.push({ type: 'delete', q });
    }
    for (const solution of solutions) {
      const fresh = new Map<string, string>();
      for (const q of this.instantiate(inserts, solution, withGraph, true, fresh)) writes.push({ type: 'add', q });
    }
    await this.write(writes);
  }

  private evaluateWhere(where: unknown[], using: { default?: RdfTerm[]; named?: RdfTerm[] } | undefined, withGraph: RdfTerm | undefined, prefixes: Readonly<Record<string, string>>): Solution[] {
    const tree = {
      type: 'query',
      queryType: 'SELECT',
      variables: [{ termType: 'Wildcard', value: '*' }],
      where,
      prefixes: { ...prefixes },
      ...(using && ((using.default?.length ?? 0) > 0 || (using.named?.length ?? 0) > 0) ? { from: { default: using.default ?? [], named: using.named ?? [] } } : {}),
    };
    let algebra: Algebra.Operation;
    try {
      checkQuery(tree as never);
      algebra = translate(tree as never, { quads: false, ...(this.options.baseIRI !== undefined ? { baseIRI: this.options.baseIRI } : {}) });
    } catch (e) {
      if (e instanceof SparqlError) throw e;
      if (isStackOverflow(e)) throw tooComplex('parse', e);
      throw new SparqlError('SPARQL_SYNTAX', e instanceof Error ? e.message : String(e), undefined, { cause: e });
    }
    const useWith = withGraph !== undefined && (tree as { from?: unknown }).from === undefined;
    const result = executeAlgebra(this.data, algebra, {
      baseIRI: this.options.baseIRI,
      deadline: this.options.deadline,
      clock: this.options.clock,
      rowBudget: this.options.rowBudget,
      now: this.options.now,
      ...(useWith ? { defaultGraphs: [withGraph.value], keepNamedGraphs: true } : {}),
    });
    if (result.type !== 'bindings') throw new Error('update WHERE: expected solutions');
    return [...result.solutions];
  }

  /** Ground quads of `blocks` under `solution`; quads with an unbound variable or a term in a
   * position RDF does not allow are skipped (SPARQL 1.1 Update §3.1.3). */
  private *instantiate(blocks: QuadsBlock[], solution: Solution, withGraph: RdfTerm | undefined, insert: boolean, fresh?: Map<string, string>): Generator<IdQuad> {
    const resolve = (t: RdfTerm): string | undefined => {
      if (t.termType === 'Variable') {
        const v = solution.get(t.value);
        return v === undefined ? undefined : termToKey(v as Term);
      }
      if (t.termType === 'BlankNode') {
        if (!insert || fresh === undefined) return undefined;
        let label = fresh.get(t.value);
        if (label === undefined) {
          label = `_:${this.bnodePrefix}${this.bnodeCount++}`;
          fresh.set(t.value, label);
        }
        return label;
      }
      return termToKey(t as Term);
    };
    for (const block of blocks) {
      let g: string | undefined = '';
      if (block.type === 'graph' && block.name !== undefined) g = resolve(block.name);
      else if (withGraph !== undefined) g = termToKey(withGraph as Term);
      if (g === undefined || (g !== '' && !g.startsWith('<'))) continue;
      for (const t of block.triples) {
        const s = resolve(t.subject);
        const p = resolve(t.predicate);
        const ob = resolve(t.object);
        if (s === undefined || p === undefined || ob === undefined) continue;
        if (s.startsWith('"') || !p.startsWith('<')) continue;
        yield { s: this.data.idOfKey(s), p: this.data.idOfKey(p), o: this.data.idOfKey(ob), g: this.data.idOfKey(g) };
      }
    }
  }

  private async load(source: RdfTerm, destination: RdfTerm | undefined, silent: boolean): Promise<void> {
    const loader = this.options.load;
    if (loader === undefined) {
      if (silent) return;
      throw new SparqlError('SPARQL_UNSUPPORTED', `LOAD <${source.value}> refused: LOAD is switched off on this server`);
    }
    const g = destination === undefined ? '' : termToKey(destination as Term);
    const writes: { type: 'add'; q: IdQuad }[] = [];
    try {
      await loader(source.value, (s, p, o, graph) => {
        writes.push({ type: 'add', q: { s: this.data.idOfKey(s), p: this.data.idOfKey(p), o: this.data.idOfKey(o), g: this.data.idOfKey(destination === undefined ? graph : g) } });
      });
    } catch (e) {
      if (silent) return; // LOAD SILENT: any failure, a refused IRI included, is no error
      throw e;
    }
    await this.write(writes);
  }
}
