/**
 * A small picture of a CONSTRUCT/DESCRIBE result: the Turtle parsed by N3.js, subjects and objects
 * as nodes, predicates as labelled arrows, placed by a few hundred steps of a plain force layout
 * (written here: a picture of at most MAX_TRIPLES triples needs no graph library), drawn as SVG
 * with text set as text. Deterministic: the same triples give the same picture.
 */
import { Parser, type Quad } from 'n3';

export const MAX_TRIPLES = 60;

export interface GraphNode {
  id: string;
  label: string;
  kind: 'iri' | 'bnode' | 'literal';
  x: number;
  y: number;
}

export interface GraphEdge {
  from: number;
  to: number;
  label: string;
}

export interface GraphPicture {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Triples in the result (all of them, drawn or not). */
  triples: number;
  /** True when only the first MAX_TRIPLES were drawn. */
  cut: boolean;
}

/** The last segment of an IRI (after #, / or :), or the IRI when that is empty. */
export function shortName(iri: string): string {
  const m = /[#/:]([^#/:]+)\/?$/.exec(iri);
  return m ? m[1]! : iri;
}

export function parseTurtle(turtle: string): Quad[] {
  return new Parser({ format: 'text/turtle' }).parse(turtle);
}

/** Nodes, edges and their places in a width × height box. */
export function layoutGraph(quads: Quad[], width = 900, height = 420): GraphPicture {
  const drawn = quads.slice(0, MAX_TRIPLES);
  const nodes: GraphNode[] = [];
  const index = new Map<string, number>();
  const nodeOf = (term: Quad['subject'] | Quad['object']): number => {
    const kind = term.termType === 'Literal' ? 'literal' : term.termType === 'BlankNode' ? 'bnode' : 'iri';
    // Every literal is a node of its own (two equal values are two facts).
    const id = kind === 'literal' ? `lit:${nodes.length}` : `${kind}:${term.value}`;
    const known = index.get(id);
    if (known !== undefined) return known;
    const label = kind === 'literal' ? (term.value.length > 28 ? `${term.value.slice(0, 27)}…` : term.value) : kind === 'bnode' ? `_:${term.value}` : shortName(term.value);
    nodes.push({ id, label, kind, x: 0, y: 0 });
    index.set(id, nodes.length - 1);
    return nodes.length - 1;
  };
  const edges = drawn.map((q) => ({ from: nodeOf(q.subject), to: nodeOf(q.object), label: shortName(q.predicate.value) }));
  // Start on a circle, then springs along edges and repulsion between every pair.
  const n = nodes.length;
  nodes.forEach((node, i) => {
    node.x = width / 2 + (width / 3) * Math.cos((2 * Math.PI * i) / Math.max(1, n));
    node.y = height / 2 + (height / 3) * Math.sin((2 * Math.PI * i) / Math.max(1, n));
  });
  const ideal = Math.min(140, Math.sqrt((width * height) / Math.max(1, n)));
  for (let step = 0; step < 300; step++) {
    const dx = new Array<number>(n).fill(0);
    const dy = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const ex = nodes[i]!.x - nodes[j]!.x || 0.01;
        const ey = nodes[i]!.y - nodes[j]!.y || 0.01;
        const d2 = Math.max(1, ex * ex + ey * ey);
        const f = (ideal * ideal) / d2;
        dx[i]! += ex * f * 0.05; dy[i]! += ey * f * 0.05;
        dx[j]! -= ex * f * 0.05; dy[j]! -= ey * f * 0.05;
      }
    }
    for (const e of edges) {
      const a = nodes[e.from]!;
      const b = nodes[e.to]!;
      const ex = b.x - a.x;
      const ey = b.y - a.y;
      const d = Math.max(1, Math.hypot(ex, ey));
      const f = (d - ideal) / d * 0.1;
      dx[e.from]! += ex * f; dy[e.from]! += ey * f;
      dx[e.to]! -= ex * f; dy[e.to]! -= ey * f;
    }
    const cool = 1 - step / 300;
    nodes.forEach((node, i) => {
      const limit = 20 * cool + 0.5;
      node.x = Math.min(width - 60, Math.max(60, node.x + Math.max(-limit, Math.min(limit, dx[i]!))));
      node.y = Math.min(height - 34, Math.max(20, node.y + Math.max(-limit, Math.min(limit, dy[i]!))));
    });
  }
  return { nodes, edges, triples: quads.length, cut: quads.length > drawn.length };
}

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

export function drawGraph(picture: GraphPicture, width = 900, height = 420): SVGSVGElement {
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', 'aria-label': `Graph of ${picture.edges.length} triples`, class: 'graph' });
  const defs = svg('defs', {});
  const marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#4a4a4a' }));
  defs.append(marker);
  root.append(defs);
  for (const e of picture.edges) {
    const a = picture.nodes[e.from]!;
    const b = picture.nodes[e.to]!;
    const d = Math.max(1, Math.hypot(b.x - a.x, b.y - a.y));
    const end = { x: b.x - ((b.x - a.x) / d) * 12, y: b.y - ((b.y - a.y) / d) * 12 };
    root.append(svg('line', { x1: a.x, y1: a.y, x2: end.x, y2: end.y, stroke: '#6b7280', 'stroke-width': 1.2, 'marker-end': 'url(#arrow)' }));
    root.append(svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, 'text-anchor': 'middle', 'font-size': 11, fill: '#4a4a4a' }, e.label));
  }
  for (const node of picture.nodes) {
    const g = svg('g', { class: `node ${node.kind}` });
    if (node.kind === 'literal') g.append(svg('rect', { x: node.x - 6, y: node.y - 6, width: 12, height: 12, fill: '#fff7d6', stroke: '#8a6d00' }));
    else g.append(svg('circle', { cx: node.x, cy: node.y, r: 8, fill: node.kind === 'bnode' ? '#e5e7eb' : '#dbeafe', stroke: '#0b5394' }));
    g.append(svg('text', { x: node.x, y: node.y + 22, 'text-anchor': 'middle', 'font-size': 12, fill: '#1a1a1a' }, node.label));
    root.append(g);
  }
  return root;
}
