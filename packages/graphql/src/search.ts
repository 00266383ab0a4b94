/**
 * Text search for the IES schema's `search` / `searchWithMetadata` (graphql-jena asks an external
 * search service; ianode answers from the graph itself).
 *
 * Confidentiality: the index is built per request from the caller's view (the request's Dataset),
 * over the literal objects of the triples the caller can see. A hidden literal never enters it, so
 * neither the hits nor anything computed from the index (ranks, document frequencies, totals,
 * `maybeMore`) can depend on it. The alternative, one shared index filtered by label after the fact,
 * would have to carry each posting's quad label and filter before every count and score; a per-request
 * build has no such step to get wrong. The cost is a scan of the scope's quads per search request
 * (measured linear; the request's deadline applies to it).
 *
 * Why not a library: minisearch, flexsearch and lunr (npm) have neither phrase nor glob queries, and
 * their indexes pay off when built once and queried often; here an index lives for one request, so a
 * map from token to postings with positions is all it needs.
 *
 * Tokens: Unicode NFKC, lower-cased, runs of letters and digits (`\p{L}\p{N}`); everything else
 * separates. A node's "document" is every visible literal of which it is the subject.
 *
 *   QUERY    every token of the search term occurs in the node's literals (any order); the default
 *   TERM     the search term, lower-cased, is exactly one of the node's tokens
 *   PHRASE   the term's tokens occur consecutively in one literal
 *   WILDCARD each whitespace-separated pattern (`*` any run, `?` one character) matches a token
 *
 * Ranking: BM25-like (term frequency saturated, inverse document frequency over the visible nodes of
 * the scope), ties by node IRI; stable for one view.
 */
import type { TraversalLoader } from './loader.js';

export type SearchType = 'QUERY' | 'TERM' | 'PHRASE' | 'WILDCARD';

export function tokenize(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

interface Posting {
  /** Literal number within the node (for phrases). */
  lit: number;
  pos: number;
}

class NodeDoc {
  readonly postings = new Map<string, Posting[]>();
  literals = 0;
  tokens = 0;
}

const built = new WeakMap<TraversalLoader, Map<number, TextIndex>>();

/** The request's index of graph g (built once per request, however many search fields ask). */
export function textIndex(loader: TraversalLoader, g: number): TextIndex {
  let byGraph = built.get(loader);
  if (byGraph === undefined) built.set(loader, (byGraph = new Map()));
  let index = byGraph.get(g);
  if (index === undefined) byGraph.set(g, (index = new TextIndex(loader, g)));
  return index;
}

/** The per-request index of one graph of the caller's view. */
export class TextIndex {
  private readonly docs = new Map<number, NodeDoc>();
  /** token → number of nodes holding it */
  private readonly df = new Map<string, number>();

  constructor(loader: TraversalLoader, g: number) {
    const text = new Map<number, string[]>();
    for (const batch of loader.dataset.matchBatches({ g })) {
      loader.tick();
      for (let i = 0; i < batch.length; i++) {
        const o = batch.o[i]!;
        const s = batch.s[i]!;
        if (!loader.isLiteral(o) || loader.isLiteral(s)) continue;
        let toks = text.get(o);
        if (toks === undefined) text.set(o, (toks = tokenize(loader.dataset.term(o).value)));
        if (toks.length === 0) continue;
        let doc = this.docs.get(s);
        if (doc === undefined) this.docs.set(s, (doc = new NodeDoc()));
        const lit = doc.literals++;
        toks.forEach((tok, pos) => {
          let list = doc.postings.get(tok);
          if (list === undefined) {
            doc.postings.set(tok, (list = []));
            this.df.set(tok, (this.df.get(tok) ?? 0) + 1);
          }
          list.push({ lit, pos });
        });
        doc.tokens += toks.length;
      }
    }
  }

  /** Matching node ids with scores, best first (ties by `order`). */
  search(term: string, type: SearchType, order: (a: number, b: number) => number): Array<{ id: number; score: number }> {
    const hits: Array<{ id: number; score: number }> = [];
    let wanted: (doc: NodeDoc) => string[] | undefined;
    if (type === 'TERM') {
      const tok = term.normalize('NFKC').toLowerCase().trim();
      wanted = (doc) => (doc.postings.has(tok) ? [tok] : undefined);
    } else if (type === 'WILDCARD') {
      const patterns = term.normalize('NFKC').toLowerCase().trim().split(/\s+/).filter((p) => p !== '');
      wanted = (doc) => {
        const found: string[] = [];
        for (const pattern of patterns) {
          const matching = [...doc.postings.keys()].filter((tok) => globMatches(pattern, tok));
          if (matching.length === 0) return undefined;
          found.push(...matching);
        }
        return found;
      };
      if (patterns.length === 0) return [];
    } else {
      const toks = tokenize(term);
      if (toks.length === 0) return [];
      wanted = type === 'PHRASE' ? (doc) => (hasPhrase(doc, toks) ? toks : undefined) : (doc) => (toks.every((t) => doc.postings.has(t)) ? toks : undefined);
    }
    const n = this.docs.size;
    for (const [id, doc] of this.docs) {
      const toks = wanted(doc);
      if (toks === undefined) continue;
      let score = 0;
      for (const tok of new Set(toks)) {
        const tf = doc.postings.get(tok)!.length;
        const df = this.df.get(tok)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += idf * ((tf * 2.2) / (tf + 1.2));
      }
      hits.push({ id, score });
    }
    return hits.sort((a, b) => b.score - a.score || order(a.id, b.id));
  }
}

function hasPhrase(doc: NodeDoc, toks: string[]): boolean {
  const first = doc.postings.get(toks[0]!);
  if (first === undefined) return false;
  const rest = toks.slice(1).map((t) => doc.postings.get(t));
  if (rest.some((r) => r === undefined)) return false;
  return first.some(({ lit, pos }) => rest.every((list, k) => list!.some((p) => p.lit === lit && p.pos === pos + k + 1)));
}

/**
 * Whether a glob (`*` any run, `?` one character) matches the whole text. The classic greedy
 * matcher with one backtrack point (the last `*`): O(pattern × text) at worst, never exponential —
 * a glob turned into a backtracking RegExp (`*a*a*a*b`) can take exponential time on a long token.
 */
export function globMatches(pattern: string, text: string): boolean {
  const p = [...pattern];
  const t = [...text];
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < t.length) {
    if (i < p.length && (p[i] === '?' || p[i] === t[j])) {
      i++;
      j++;
    } else if (i < p.length && p[i] === '*') {
      star = i++;
      mark = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}
