/**
 * Basic graph patterns (SPARQL 1.1 §18.2.1, §18.5 Join) as index nested-loop joins: each pattern is
 * a stage that, for every incoming row, substitutes the row's bound ids into the pattern, scans the
 * matching quads with `matchBatches` and appends one output row per match. Rows are copied between
 * typed arrays; no object is allocated per row.
 */
import { estimateOf, type Dataset, type QuadBatch, type QuadPattern } from '@ianode/rdf';
import type { GraphRef, PlanOf, PlanPattern } from '../algebra/plan.js';
import { appendRow, BATCH_ROWS, FIRST_BATCH_ROWS, grownBatch, newBatch, unitBatch, type Batch } from './batch.js';
import { constantPattern, PatternHashIndex } from './pattern-hash.js';
import type { Env, QueryContext } from './context.js';

/** How a pattern's graph is read for one evaluation. */
export type GraphMode =
  | { kind: 'fixed'; id: number }
  | { kind: 'merge'; ids: number[] }
  | { kind: 'none' }
  | { kind: 'var'; slot: number };

export function graphMode(q: QueryContext, g: GraphRef, env: Env): GraphMode {
  switch (g.kind) {
    case 'default': {
      const ids = q.defaultGraphs;
      if (ids.length === 0) return { kind: 'none' };
      return ids.length === 1 ? { kind: 'fixed', id: ids[0]! } : { kind: 'merge', ids };
    }
    case 'active':
      return env.graph !== 0 ? { kind: 'fixed', id: env.graph } : { kind: 'none' };
    case 'const':
      return q.isNamed(g.id) ? { kind: 'fixed', id: g.id } : { kind: 'none' };
    case 'var':
      return { kind: 'var', slot: g.slot };
  }
}

/** Quads per `matchBatches` batch when probing once per input row: small typed arrays stay on
 * V8's heap (<= 64 bytes each), which makes a probe cheap; large fan-outs just take more batches. */
const PROBE_BATCH = 16;

export function* evalBgp(plan: PlanOf<'bgp'>, q: QueryContext, env: Env): Generator<Batch> {
  const unit = unitBatch(q.width, env.seed);
  if (plan.patterns.length === 0) {
    yield unit;
    return;
  }
  yield* bgpJoin(q, plan.patterns, [unit], env);
}

/** Join `input` with the patterns, in order. */
export function bgpJoin(q: QueryContext, patterns: readonly PlanPattern[], input: Iterable<Batch>, env: Env): Iterable<Batch> {
  let stream = input;
  for (const p of patterns) stream = patternStage(q, p, stream, env, false);
  return stream;
}

/** Rows buffered before a stage considers hash mode, and the ratio of pattern quads to incoming
 * rows above which probing per row stays cheaper than hashing the whole pattern. */
const HASH_MIN_ROWS = 512;
const HASH_RATIO = 16;

/**
 * One pattern joined with `input`. With `optional`, a row without matches passes through
 * unchanged (LeftJoin with a single-pattern right side and no filter). Few rows are joined by
 * probing the index once per row; many (relative to the pattern's size) by hashing the pattern.
 */
export function* patternStage(q: QueryContext, pat: PlanPattern, input: Iterable<Batch>, env: Env, optional: boolean): Generator<Batch> {
  const gm = graphMode(q, pat.g, env);
  if (gm.kind !== 'fixed' && gm.kind !== 'var') {
    yield* probeStage(q, pat, gm, input, env, optional);
    return;
  }
  const it = input[Symbol.iterator]();
  const buffered: Batch[] = [];
  let rows = 0;
  // Buffering and the hash table both hold rows: neither may pass the row budget, so a stage
  // that would need more than that keeps probing instead.
  let threshold = Math.min(HASH_MIN_ROWS, q.rowBudget);
  let counted = false;
  let hash = false;
  let quads = 0;
  for (;;) {
    if (rows >= threshold) {
      if (counted || threshold >= q.rowBudget) break;
      counted = true;
      const constant = constantPattern(pat, gm.kind === 'fixed' ? gm.id : undefined);
      quads = estimateOf(q.dataset, constant);
      if (quads > q.rowBudget) break;
      threshold = Math.min(Math.max(HASH_MIN_ROWS, quads / HASH_RATIO), q.rowBudget);
      hash = true;
      continue;
    }
    const r = it.next();
    if (r.done === true) {
      yield* probeStage(q, pat, gm, buffered, env, optional);
      return;
    }
    buffered.push(r.value);
    rows += r.value.length;
  }
  if (hash && rows >= threshold) yield* hashStage(q, pat, gm, concat(buffered, it), env, optional, quads);
  else yield* probeStage(q, pat, gm, concat(buffered, it), env, optional);
}

function* concat(first: Batch[], rest: Iterator<Batch>): Generator<Batch> {
  yield* first;
  for (let r = rest.next(); r.done !== true; r = rest.next()) yield r.value;
}

/** Index nested loop: one `matchBatches` per row. */
function* probeStage(q: QueryContext, pat: PlanPattern, gm: GraphMode, input: Iterable<Batch>, env: Env, optional: boolean): Generator<Batch> {
  void env;
  const W = q.width;
  const ds = q.dataset;
  const sSlot = pat.s.kind === 'var' ? pat.s.slot : -1;
  const pSlot = pat.p.kind === 'var' ? pat.p.slot : -1;
  const oSlot = pat.o.kind === 'var' ? pat.o.slot : -1;
  const gSlot = gm.kind === 'var' ? gm.slot : -1;
  const sId = pat.s.kind === 'const' ? pat.s.id : 0;
  const pId = pat.p.kind === 'const' ? pat.p.id : 0;
  const oId = pat.o.kind === 'const' ? pat.o.id : 0;
  const graphs = gm.kind === 'fixed' ? [gm.id] : gm.kind === 'merge' ? gm.ids : gm.kind === 'none' ? [] : [-1];
  const dedupe = graphs.length > 1;
  const probe: QuadPattern = {};
  // Made on the first probe that can use it (a seeded stage probes one row and never does).
  let memo: ProbeMemo | undefined;
  // Start small and grow: a stage run once per row of a seeded join often yields a handful.
  let out = newBatch(W, FIRST_BATCH_ROWS);

  for (const inb of input) {
    q.tick();
    const d = inb.data;
    const n = inb.length;
    const bs = n === 1 ? 1024 : PROBE_BATCH;
    for (let r = 0; r < n; r++) {
      const base = r * W;
      const s = sSlot >= 0 ? d[base + sSlot]! : sId;
      const p = pSlot >= 0 ? d[base + pSlot]! : pId;
      const o = oSlot >= 0 ? d[base + oSlot]! : oId;
      const sFree = sSlot >= 0 && s === 0;
      const pFree = pSlot >= 0 && p === 0;
      const oFree = oSlot >= 0 && o === 0;
      let gFree = false;
      let gBound = 0;
      if (gSlot >= 0) {
        gBound = d[base + gSlot]!;
        gFree = gBound === 0;
      }
      probe.s = s === 0 ? undefined : s;
      probe.p = p === 0 ? undefined : p;
      probe.o = o === 0 ? undefined : o;
      let matched = false;
      const seen = dedupe ? new Set<string>() : undefined;
      // Rows often repeat the value they probe with (many offers, few vendors): remember small
      // answers by that value when exactly one variable position is bound.
      const boundVars = (sSlot >= 0 && !sFree ? 1 : 0) + (pSlot >= 0 && !pFree ? 1 : 0) + (oSlot >= 0 && !oFree ? 1 : 0) + (gSlot >= 0 && !gFree ? 1 : 0);
      // The key is the value and which position holds it (rows may bind different positions).
      const memoKey =
        graphs.length === 1 && n > 1 && boundVars === 1
          ? sSlot >= 0 && !sFree
            ? s * 4
            : pSlot >= 0 && !pFree
              ? p * 4 + 1
              : oSlot >= 0 && !oFree
                ? o * 4 + 2
                : gBound * 4 + 3
          : -1;
      for (const g of graphs) {
        if (g === -1) {
          if (!gFree && !q.isNamed(gBound)) continue;
          probe.g = gFree ? undefined : gBound;
        } else probe.g = g;
        const source = memoKey >= 0 ? (memo ??= new ProbeMemo()).answer(memoKey, ds, probe, bs) : ds.matchBatches(probe, bs);
        for (const qb of source) {
          if (bs !== PROBE_BATCH) q.tick();
          const qs = qb.s;
          const qp = qb.p;
          const qo = qb.o;
          const qg = qb.g;
          const m = qb.length;
          for (let i = 0; i < m; i++) {
            if (gFree) {
              const gv = qg[i]!;
              if (gv === 0 || !q.isNamed(gv)) continue;
            }
            if (seen !== undefined) {
              const k = `${qs[i]} ${qp[i]} ${qo[i]}`;
              if (seen.has(k)) continue;
              seen.add(k);
            }
            if (out.length * W >= out.data.length) {
              if (out.length >= BATCH_ROWS) {
                yield out;
                out = newBatch(W);
              } else out = grownBatch(out);
            }
            const od = out.data;
            const ob = out.length * W;
            for (let j = 0; j < W; j++) od[ob + j] = d[base + j]!;
            if (sFree) od[ob + sSlot] = qs[i]!;
            if (pFree) {
              const v = qp[i]!;
              const cur = od[ob + pSlot]!;
              if (cur !== 0 && cur !== v) continue;
              od[ob + pSlot] = v;
            }
            if (oFree) {
              const v = qo[i]!;
              const cur = od[ob + oSlot]!;
              if (cur !== 0 && cur !== v) continue;
              od[ob + oSlot] = v;
            }
            if (gFree) {
              const v = qg[i]!;
              const cur = od[ob + gSlot]!;
              if (cur !== 0 && cur !== v) continue;
              od[ob + gSlot] = v;
            }
            out.length++;
            matched = true;
          }
        }
      }
      if (optional && !matched) {
        if (out.length * W >= out.data.length) {
          if (out.length >= BATCH_ROWS) {
            yield out;
            out = newBatch(W);
          } else out = grownBatch(out);
        }
        appendRow(out, d, base);
      }
    }
  }
  if (out.length > 0) yield out;
}

/** Small probe answers by the one bound value (see probeStage). A value's answer is kept from its
 * second probe on (a direct-mapped table remembers which values were probed), so rows with
 * distinct values cost nothing extra. */
class ProbeMemo {
  private readonly answers = new Map<number, QuadBatch | null>();
  private readonly probed = new Float64Array(1024).fill(-1);

  answer(key: number, ds: Dataset, probe: QuadPattern, bs: number): Iterable<QuadBatch> {
    const known = this.answers.get(key);
    if (known !== undefined) return known === null ? ds.matchBatches(probe, bs) : [known];
    const at = key % 1024;
    if (this.probed[at] !== key) {
      this.probed[at] = key;
      return ds.matchBatches(probe, bs);
    }
    if (this.answers.size >= MEMO_ENTRIES) this.answers.clear();
    const s: number[] = [];
    const p: number[] = [];
    const o: number[] = [];
    const g: number[] = [];
    for (const qb of ds.matchBatches(probe, bs)) {
      if (s.length + qb.length > MEMO_QUADS) {
        this.answers.set(key, null);
        return ds.matchBatches(probe, bs);
      }
      for (let i = 0; i < qb.length; i++) {
        s.push(qb.s[i]!);
        p.push(qb.p[i]!);
        o.push(qb.o[i]!);
        g.push(qb.g[i]!);
      }
    }
    const b: QuadBatch = { length: s.length, s: Uint32Array.from(s), p: Uint32Array.from(p), o: Uint32Array.from(o), g: Uint32Array.from(g) };
    this.answers.set(key, b);
    return [b];
  }
}

const MEMO_ENTRIES = 4096;
const MEMO_QUADS = 16;

/** Hash join of rows with every quad of the pattern (see pattern-hash.ts); `quads` is the
 * pattern's estimate, already taken by patternStage. */
function* hashStage(q: QueryContext, pat: PlanPattern, gm: GraphMode & { kind: 'fixed' | 'var' }, input: Iterable<Batch>, env: Env, optional: boolean, quads: number): Generator<Batch> {
  void env;
  const W = q.width;
  const slots = [pat.s, pat.p, pat.o].map((t) => (t.kind === 'var' ? t.slot : -1));
  const [sSlot, pSlot, oSlot] = slots as [number, number, number];
  const gSlot = gm.kind === 'var' ? gm.slot : -1;
  const pattern = constantPattern(pat, gm.kind === 'fixed' ? gm.id : undefined);
  const indexes = new Map<number, PatternHashIndex>();
  const key: number[] = [];
  let out = newBatch(W);
  for (const inb of input) {
    q.tick();
    const d = inb.data;
    for (let r = 0; r < inb.length; r++) {
      const base = r * W;
      // Which variable positions this row binds (usually the same for every row).
      let mask = 0;
      key.length = 0;
      for (let k = 0; k < 3; k++) {
        const slot = slots[k]!;
        if (slot >= 0 && d[base + slot] !== 0) {
          mask |= 1 << k;
          key.push(d[base + slot]!);
        }
      }
      let index = indexes.get(mask);
      if (index === undefined) {
        index = new PatternHashIndex(q, pattern, [0, 1, 2].filter((k) => (mask & (1 << k)) !== 0), quads);
        indexes.set(mask, index);
      }
      const [cs, cp, co] = index.cols;
      const cg = index.g;
      const sFree = sSlot >= 0 && (mask & 1) === 0;
      const pFree = pSlot >= 0 && (mask & 2) === 0;
      const oFree = oSlot >= 0 && (mask & 4) === 0;
      const gBound = gSlot >= 0 ? d[base + gSlot]! : 0;
      let matched = false;
      for (let i = index.first(key); i !== -1; i = index.nextOf(i)) {
        // The key hash may collide: check the bound positions.
        if (mask !== 0) {
          let same = true;
          let j = 0;
          for (let k = 0; k < 3; k++) {
            if ((mask & (1 << k)) === 0) continue;
            if (index.cols[k]![i] !== key[j++]) same = false;
          }
          if (!same) continue;
        }
        if (gSlot >= 0) {
          const gv = cg[i]!;
          if (gBound !== 0 ? gv !== gBound || !q.isNamed(gv) : gv === 0 || !q.isNamed(gv)) continue;
        }
        if (out.length === BATCH_ROWS) {
          yield out;
          out = newBatch(W);
        }
        const od = out.data;
        const ob = out.length * W;
        for (let j = 0; j < W; j++) od[ob + j] = d[base + j]!;
        let ok = true;
        if (sFree) od[ob + sSlot] = cs[i]!;
        if (pFree) {
          const cur = od[ob + pSlot]!;
          if (cur !== 0 && cur !== cp[i]) ok = false;
          else od[ob + pSlot] = cp[i]!;
        }
        if (oFree && ok) {
          const cur = od[ob + oSlot]!;
          if (cur !== 0 && cur !== co[i]) ok = false;
          else od[ob + oSlot] = co[i]!;
        }
        if (ok && gSlot >= 0 && gBound === 0) {
          const cur = od[ob + gSlot]!;
          if (cur !== 0 && cur !== cg[i]) ok = false;
          else od[ob + gSlot] = cg[i]!;
        }
        if (!ok) continue;
        out.length++;
        matched = true;
      }
      if (optional && !matched) {
        if (out.length === BATCH_ROWS) {
          yield out;
          out = newBatch(W);
        }
        appendRow(out, d, base);
      }
    }
  }
  if (out.length > 0) yield out;
}
