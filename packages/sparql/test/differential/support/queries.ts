/**
 * Random SPARQL queries over the vocabulary of data.ts, one generator per query shape of the ABAC
 * acceptance criterion. Every query is deterministic given the data (no SAMPLE, GROUP_CONCAT, RAND
 * or NOW, no LIMIT without an ORDER BY that leaves no ties, no sums of doubles), so two datasets
 * holding the same quads must give the same answer, whatever order their indexes return.
 */
import { GRAPHS, LITERAL_SPARQL, NODE_COUNT, type Rng } from './data.js';

export interface GeneratedQuery {
  shape: string;
  query: string;
  /** ORDER BY variables whose sequence of values must match (top-level ORDER BY only). */
  orderBy?: string[];
}

export const PREFIXES = 'PREFIX : <http://ex/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n';

const node = (rng: Rng): string => `:n${rng.int(NODE_COUNT)}`;
const graph = (rng: Rng): string => `:${rng.pick(GRAPHS)}`;
const literal = (rng: Rng): string => rng.pick(LITERAL_SPARQL);
const NODE_PREDICATES = [':knows', ':sub'];
const ALL_PREDICATES = [':knows', ':sub', ':val', ':tag'];

/** An object constant that can match for predicate `p`. */
function objectConstant(rng: Rng, p: string): string {
  if (p === ':val') return literal(rng);
  if (p === ':tag') return rng.chance(0.5) ? node(rng) : literal(rng);
  return node(rng);
}

/** Variable scope of a pattern being built: the variables used so far, fresh ones on demand. */
class Scope {
  vars: string[] = [];
  private next = 0;
  constructor(private readonly prefix = 'v') {}
  fresh(): string {
    const v = `?${this.prefix}${this.next++}`;
    this.vars.push(v);
    return v;
  }
  /** A variable used so far (or a fresh one when none). */
  some(rng: Rng): string {
    return this.vars.length === 0 ? this.fresh() : rng.pick(this.vars);
  }
}

/** One triple pattern, joined to the scope most of the time. */
function triple(rng: Rng, scope: Scope): string {
  // Joined to the scope three times in four; a fresh (unconnected) subject rarely, as cross
  // products of whole-store patterns are slow and say nothing new.
  const k = rng.int(20);
  const s = scope.vars.length === 0 ? (k < 17 ? scope.fresh() : node(rng)) : k < 15 ? scope.some(rng) : k < 18 ? node(rng) : scope.fresh();
  const p = rng.chance(0.88) ? rng.pick(ALL_PREDICATES) : scope.fresh();
  const r = rng.int(10);
  const o = r < 6 ? scope.fresh() : r < 8 && scope.vars.length > 0 ? scope.some(rng) : objectConstant(rng, p.startsWith('?') ? ':tag' : p);
  return `${s} ${p} ${o} .`;
}

/** A connected basic graph pattern of `min`..`max` triples (with at least one variable). */
function bgp(rng: Rng, scope: Scope, min = 1, max = 3): string {
  const n = min + rng.int(max - min + 1);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(triple(rng, scope));
  if (scope.vars.length === 0) out.push(`${scope.fresh()} ${rng.pick(ALL_PREDICATES)} ${node(rng)} .`);
  return out.join(' ');
}

const PATHS = [
  ':sub+',
  ':sub*',
  '^:knows',
  ':knows/:sub',
  '(:knows|:sub)',
  '!:knows',
  '!(:knows|^:sub)',
  ':sub?',
  ':knows/^:knows',
  ':knows+/:val',
  '(^:sub)*',
  '(:knows|:tag)+',
  ':sub/:sub/:sub',
];

function pathPattern(rng: Rng, scope: Scope): string {
  const path = rng.pick(PATHS);
  const s = rng.chance(0.4) ? node(rng) : scope.vars.length > 0 && rng.chance(0.6) ? scope.some(rng) : scope.fresh();
  // A constant object one time in five (both ends constant: an ASK-like yes/no pattern).
  const o = rng.chance(0.2) ? node(rng) : scope.fresh();
  return `${s} ${path} ${o} .`;
}

/** A small random group pattern: a BGP or path, then 0-2 of OPTIONAL / UNION / MINUS / FILTER
 * (NOT) EXISTS / GRAPH / BIND / path, nested one level. */
function group(rng: Rng, scope: Scope, depth = 0): string {
  const parts: string[] = [rng.chance(0.75) ? bgp(rng, scope, 1, 2) : pathPattern(rng, scope)];
  const extra = rng.int(3);
  for (let i = 0; i < extra; i++) {
    const inner = (): string => (depth < 1 && rng.chance(0.3) ? group(rng, scope, depth + 1) : bgp(rng, scope, 1, 2));
    switch (rng.int(8)) {
      case 0:
        parts.push(`OPTIONAL { ${inner()} }`);
        break;
      case 1:
        parts.push(`{ ${inner()} } UNION { ${inner()} }`);
        break;
      case 2:
        parts.push(`MINUS { ${inner()} }`);
        break;
      case 3:
        parts.push(`FILTER ${rng.chance(0.5) ? 'NOT ' : ''}EXISTS { ${inner()} }`);
        break;
      case 4:
        parts.push(`GRAPH ${rng.chance(0.6) ? scope.fresh() : graph(rng)} { ${inner()} }`);
        break;
      case 5:
        parts.push(`BIND(isLiteral(${scope.some(rng)}) AS ${scope.fresh()})`);
        break;
      case 6:
        parts.push(pathPattern(rng, scope));
        break;
      default:
        parts.push(triple(rng, scope));
    }
  }
  return parts.join(' ');
}

const select = (body: string, distinct = false): string => `SELECT ${distinct ? 'DISTINCT ' : ''}* WHERE { ${body} }`;

type Shape = (rng: Rng) => Omit<GeneratedQuery, 'shape'>;

export const SHAPES: Record<string, Shape> = {
  bgp(rng) {
    const scope = new Scope();
    return { query: select(bgp(rng, scope, 1, 3), rng.chance(0.3)) };
  },

  optional(rng) {
    const scope = new Scope();
    const first = bgp(rng, scope, 1, 2);
    const second = bgp(rng, scope, 1, 2);
    const filter = rng.chance(0.3) ? ` FILTER(!isBlank(${scope.some(rng)}))` : '';
    const more = rng.chance(0.3) ? ` OPTIONAL { ${bgp(rng, scope, 1, 1)} }` : '';
    return { query: select(`${first} OPTIONAL { ${second}${filter} }${more}`) };
  },

  union(rng) {
    const scope = new Scope();
    const a = bgp(rng, scope, 1, 2);
    const b = rng.chance(0.3) ? pathPattern(rng, scope) : bgp(rng, scope, 1, 2);
    const after = rng.chance(0.4) ? ' ' + triple(rng, scope) : '';
    return { query: select(`{ ${a} } UNION { ${b} }${after}`, rng.chance(0.3)) };
  },

  minus(rng) {
    const scope = new Scope();
    const a = bgp(rng, scope, 1, 2);
    const b = bgp(rng, scope, 1, 2);
    return { query: select(`${a} MINUS { ${b} }`) };
  },

  exists(rng) {
    const scope = new Scope();
    const a = bgp(rng, scope, 1, 2);
    const b = rng.chance(0.3) ? pathPattern(rng, scope) : bgp(rng, scope, 1, 2);
    const not = rng.chance(0.5) ? 'NOT ' : '';
    // Sometimes in a BIND, where the test's truth value is itself a result (a side channel).
    if (rng.chance(0.25)) return { query: select(`${a} BIND(${not}EXISTS { ${b} } AS ?ex)`) };
    if (rng.chance(0.2)) return { query: select(`${a} FILTER(${not}EXISTS { ${b} } || isLiteral(${scope.some(rng)}))`) };
    return { query: select(`${a} FILTER ${not}EXISTS { ${b} }`) };
  },

  path(rng) {
    const scope = new Scope();
    const p = pathPattern(rng, scope);
    switch (rng.int(6)) {
      case 4:
        // The path's subject bound before the path is evaluated: a zero-length step must hold only
        // for nodes of the (visible) graph.
        return { query: select(`VALUES ?a { ${node(rng)} ${node(rng)} ${node(rng)} :nothing } ?a ${rng.pick(PATHS)} ?b`) };
      case 5:
        return { query: select(`GRAPH ${rng.chance(0.5) ? '?g' : graph(rng)} { ?a ${rng.pick(ALL_PREDICATES)} ?b } ?b ${rng.pick(PATHS)} ?c`) };
      case 0:
        return { query: select(`GRAPH ?g { ${p} }`) };
      case 1:
        return { query: select(`${p} ${triple(rng, scope)}`) };
      default:
        return { query: select(p, rng.chance(0.3)) };
    }
  },

  aggregate(rng) {
    const scope = new Scope();
    switch (rng.int(7)) {
      case 0:
        return { query: `SELECT (COUNT(*) AS ?n) WHERE { ${group(rng, scope)} }` };
      case 1: {
        const body = bgp(rng, scope, 1, 3);
        const key = scope.vars[0]!;
        const counted = rng.pick(scope.vars);
        const having = rng.chance(0.4) ? ` HAVING (COUNT(DISTINCT ${counted}) > 1)` : '';
        return { query: `SELECT ${key} (COUNT(DISTINCT ${counted}) AS ?n) (COUNT(${counted}) AS ?m) WHERE { ${body} } GROUP BY ${key}${having}` };
      }
      case 2: {
        const having = rng.chance(0.5) ? ` HAVING (SUM(?v) >= ${rng.pick(['2', '5', '8'])})` : '';
        const graphed = rng.chance(0.3);
        const body = `?s ${rng.chance(0.8) ? ':val' : ':tag'} ?v`;
        return {
          query:
            `SELECT ?s (SUM(?v) AS ?sum) (MIN(?v) AS ?min) (MAX(?v) AS ?max) (AVG(?v) AS ?avg) (COUNT(?v) AS ?n) ` +
            `WHERE { ${graphed ? `GRAPH ?g { ${body} }` : body} } GROUP BY ?s${having}`,
        };
      }
      case 3:
        return { query: `SELECT ?g (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?subjects) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g` };
      case 4:
        return { query: `SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p HAVING (COUNT(*) > ${rng.int(4)})` };
      case 5:
        // No GROUP BY: one row even when nothing matches.
        return { query: `SELECT (COUNT(*) AS ?n) (SUM(?v) AS ?sum) (MAX(?v) AS ?max) WHERE { ${node(rng)} ${rng.pick([':val', ':tag'])} ?v }` };
      default:
        return { query: `SELECT ?o (COUNT(?s) AS ?n) WHERE { ?s ${rng.pick(PATHS)} ?o } GROUP BY ?o` };
    }
  },

  subquery(rng) {
    const k = 1 + rng.int(4);
    switch (rng.int(3)) {
      case 0:
        return {
          query:
            `SELECT ?s ?n ?v WHERE { { SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ${rng.pick(NODE_PREDICATES)} ?o FILTER(isIRI(?s)) } ` +
            `GROUP BY ?s ORDER BY DESC(?n) ?s LIMIT ${k} } OPTIONAL { ?s :val ?v } }`,
        };
      case 1: {
        const offset = rng.chance(0.3) ? ` OFFSET ${rng.int(3)}` : '';
        return {
          query:
            `SELECT * WHERE { { SELECT DISTINCT ?o WHERE { ?s ${rng.pick(NODE_PREDICATES)} ?o FILTER(isIRI(?o)) } ORDER BY ?o LIMIT ${k}${offset} } ` +
            `OPTIONAL { ?o :sub ?x } }`,
        };
      }
      default:
        return {
          query: `SELECT ?s ?v WHERE { ${node(rng)} :knows* ?s { SELECT ?s (MAX(?w) AS ?v) WHERE { ?s :val ?w FILTER(isNumeric(?w)) } GROUP BY ?s } }`,
        };
    }
  },

  graph(rng) {
    const scope = new Scope();
    switch (rng.int(7)) {
      case 5:
        // Patterns that match without reading a quad: the answer is the list of graph names.
        return {
          query: select(
            `GRAPH ?g { ${rng.pick(['BIND(1 AS ?x)', `${node(rng)} :sub* ?o`, 'VALUES ?x { 1 2 }', 'FILTER NOT EXISTS { ?s :val 1 }', `${node(rng)} :sub? ${node(rng)}`])} }`,
          ),
        };
      case 6:
        return { query: `SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { OPTIONAL { ${node(rng)} ?p ?o } } } GROUP BY ?g` };
      case 0:
        return { query: select(`GRAPH ?g { ${bgp(rng, scope, 1, 2)} }`) };
      case 1:
        return { query: select(`GRAPH ${graph(rng)} { ${bgp(rng, scope, 1, 2)} }`) };
      case 2:
        return { query: `SELECT ?g WHERE { GRAPH ?g { } }` };
      case 3:
        return { query: select(`${triple(rng, scope)} GRAPH ?g { ${triple(rng, scope)} }`) };
      default:
        return { query: `SELECT DISTINCT ?g ?s WHERE { GRAPH ?g { ?s ${rng.pick(PATHS)} ${node(rng)} } }` };
    }
  },

  from(rng) {
    const scope = new Scope();
    switch (rng.int(4)) {
      case 0:
        return { query: `SELECT * FROM ${graph(rng)} WHERE { ${bgp(rng, scope, 1, 2)} }` };
      case 1:
        return { query: `SELECT DISTINCT * FROM :g1 FROM :g2 WHERE { ${bgp(rng, scope, 1, 2)} }` };
      case 2:
        return { query: `SELECT * FROM NAMED ${graph(rng)} WHERE { GRAPH ?g { ${bgp(rng, scope, 1, 2)} } }` };
      default:
        return {
          query: `SELECT * FROM ${graph(rng)} FROM NAMED ${graph(rng)} WHERE { ?s ?p ?o OPTIONAL { GRAPH ?g { ?s ?q ?x } } }`,
        };
    }
  },

  describe(rng) {
    switch (rng.int(4)) {
      case 0:
        return { query: `DESCRIBE ${rng.chance(0.8) ? node(rng) : ':nothing'}` };
      case 1:
        return { query: `DESCRIBE ${node(rng)} ${node(rng)}` };
      case 2:
        return { query: `DESCRIBE ?x WHERE { ?x ${rng.pick(ALL_PREDICATES)} ${rng.chance(0.5) ? node(rng) : '?y'} }` };
      default:
        return { query: `DESCRIBE ?o FROM ${graph(rng)} WHERE { ${node(rng)} ${rng.pick(PATHS)} ?o }` };
    }
  },

  construct(rng) {
    const scope = new Scope();
    switch (rng.int(4)) {
      case 0: {
        const body = bgp(rng, scope, 1, 3);
        const a = scope.vars[0]!;
        const b = rng.pick(scope.vars);
        return { query: `CONSTRUCT { ${a} :rel ${b} . ${b} :back ${a} } WHERE { ${body} }` };
      }
      case 1:
        return { query: `CONSTRUCT { ?s :has [ :v ?v ; :g ?g ] } WHERE { GRAPH ?g { ?s :val ?v } }` };
      case 2:
        return { query: `CONSTRUCT WHERE { ?s :knows ?o . ?o ?p ?x }` };
      default: {
        const body = group(rng, scope);
        const s = scope.vars[0] ?? scope.fresh(); // joined to the group: no cross product
        return { query: `CONSTRUCT { ${s} ?p ?o } WHERE { ${body} ${s} ?p ?o }` };
      }
    }
  },

  ask(rng) {
    const scope = new Scope();
    switch (rng.int(4)) {
      case 0:
        return { query: `ASK { ${bgp(rng, scope, 1, 3)} }` };
      case 1:
        return { query: `ASK { ${node(rng)} ${rng.pick(PATHS)} ${node(rng)} }` };
      case 2:
        return { query: `ASK { GRAPH ${graph(rng)} { ?s ${rng.pick(ALL_PREDICATES)} ?o } }` };
      default:
        return { query: `ASK { FILTER NOT EXISTS { ?s :val ${literal(rng)} } }` };
    }
  },

  values(rng) {
    const scope = new Scope();
    const nodes = [node(rng), node(rng), node(rng)];
    if (rng.chance(0.3)) {
      // Bound subjects or objects of a path that may take zero steps.
      const path = rng.pick([':sub*', ':sub?', '(:knows|:sub)*', '(^:sub)*', ':knows*/:sub?']);
      return { query: select(rng.chance(0.5) ? `VALUES ?a { ${nodes.join(' ')} } ?a ${path} ?b` : `VALUES ?b { ${nodes.join(' ')} } ?a ${path} ?b`) };
    }
    if (rng.chance(0.5)) {
      const v = scope.fresh(); // ?v0, joined by most of the BGP's subjects
      return { query: select(`VALUES ${v} { ${nodes.join(' ')} } ${bgp(rng, scope, 1, 2)}`) };
    }
    const rows = nodes.map((n) => `(${n} ${rng.chance(0.3) ? 'UNDEF' : literal(rng)})`).join(' ');
    return { query: `SELECT * WHERE { ?a :val ?v . VALUES (?a ?v) { ${rows} } OPTIONAL { ?a :knows ?b } }` };
  },

  bind(rng) {
    const scope = new Scope();
    switch (rng.int(3)) {
      case 0:
        return { query: `SELECT * WHERE { ?s :val ?v BIND(?v * 2 AS ?w) FILTER(?w > ${rng.pick(['2', '4', '6'])}) }` };
      case 1:
        return { query: `SELECT * WHERE { ${bgp(rng, scope, 1, 2)} BIND(COALESCE(?zz, ${scope.some(rng)}) AS ?c) }` };
      default:
        return {
          query: `SELECT ?s ?k WHERE { ?s ${rng.pick(ALL_PREDICATES)} ?o BIND(IF(EXISTS { ?s :knows ${node(rng)} }, "yes", "no") AS ?k) }`,
        };
    }
  },

  orderBy(rng) {
    if (rng.chance(0.5)) {
      return { query: `SELECT ?s ?v WHERE { ?s :val ?v FILTER(isNumeric(?v)) } ORDER BY DESC(?v) ?s`, orderBy: ['v'] };
    }
    return {
      query: `SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ${rng.pick(PATHS)} ?o FILTER(isIRI(?s)) } GROUP BY ?s ORDER BY DESC(?n) ?s`,
      orderBy: ['n', 's'],
    };
  },

  mixed(rng) {
    const scope = new Scope();
    return { query: select(group(rng, scope), rng.chance(0.3)) };
  },
};

export const SHAPE_NAMES = Object.keys(SHAPES);

export function generateQuery(rng: Rng, shape: string): GeneratedQuery {
  return { shape, ...SHAPES[shape]!(rng) };
}
