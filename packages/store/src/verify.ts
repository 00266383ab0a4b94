/**
 * `verifyStore` and `recoverStore`: the store folder checked end to end, and a damaged folder's
 * commits before the damage saved to a new folder (docs/operations.md). Neither changes the folder
 * it reads.
 */
import { existsSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { StoreError } from './errors.js';
import { readStoreFile, type FileRead } from './integrity.js';
import { ORDER_NAMES, ORDERS } from './orders.js';
import { describeHolder, lockStatus, type LockStatus } from './lock.js';
import { checkpointName, FILE_MODE, listDir, walName } from './persistence.js';
import { LabelledQuadStore, openStore, type LoadReport } from './store.js';

export interface Finding {
  /** damage: an acknowledged commit or the state is at stake; torn: an unacknowledged tail the
   * next open cuts off; note: harmless (a leftover temporary file). */
  severity: 'damage' | 'torn' | 'note';
  file: string;
  offset?: number | undefined;
  message: string;
}

export interface VerifyReport {
  dir: string;
  /** Every file intact, the open would succeed and change nothing but leftovers. */
  healthy: boolean;
  /** Whether a normal open would succeed (possibly cutting a torn tail or passing over a damaged
   * checkpoint), and its refusal otherwise. */
  opens: boolean;
  openError?: string | undefined;
  findings: Finding[];
  /** The state the open would rebuild. */
  state?: { txId: number; quads: number; checkpoint: number | undefined; commits: number } | undefined;
  files: { name: string; bytes: number; transactions: number }[];
  /** Who holds the folder (`DIR/LOCK`), when someone does or did: verify does not need the lock,
   * but a folder a live process holds may change while it is read. */
  lock?: LockStatus | undefined;
  /** A human-readable summary, one line each. */
  lines: string[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function damageFinding(read: FileRead): Finding | undefined {
  const d = read.damage;
  if (d === undefined) return undefined;
  if (d.torn) {
    return { severity: 'torn', file: read.file, offset: d.offset, message: `torn tail at byte ${d.offset} (${d.reason}): ${read.size - d.offset} bytes of an append that was never acknowledged; the next open cuts them off` };
  }
  const after = d.commitsAfter.length > 0 ? `; ${plural(d.commitsAfter.length, 'intact commit')} follow (transactions ${d.commitsAfter[0]} to ${d.commitsAfter.at(-1)})` : '';
  return { severity: 'damage', file: read.file, offset: d.offset, message: `damaged at byte ${d.offset} (${d.reason})${after}` };
}

/** Index order of a loaded store: every run's six permutations hold its rows, sorted. */
function indexProblems(store: LabelledQuadStore): string[] {
  const { cols, runs } = store.indexState();
  const column = { s: cols.s, p: cols.p, o: cols.o, g: cols.g };
  const problems: string[] = [];
  runs.forEach((run, k) => {
    for (const name of ORDER_NAMES) {
      const perm = run.perms[name];
      if (perm.length !== run.size) {
        problems.push(`run ${k}: the ${name} index holds ${perm.length} rows, not ${run.size}`);
        continue;
      }
      const keys = ORDERS[name].map((pos) => column[pos]);
      for (let i = 0; i < perm.length; i++) {
        if (perm[i]! >= cols.length) {
          problems.push(`run ${k}: the ${name} index points at row ${perm[i]} of ${cols.length}`);
          break;
        }
        if (i === 0) continue;
        let cmp = 0;
        for (const col of keys) {
          cmp = col[perm[i - 1]!]! - col[perm[i]!]!;
          if (cmp !== 0) break;
        }
        if (cmp > 0) {
          problems.push(`run ${k}: the ${name} index is out of order at position ${i}`);
          break;
        }
      }
    }
  });
  return problems;
}

/** Read every file of a store folder, check every checksum, frame sequence, id bound and index
 * order, and say what a normal open would do. Changes nothing. */
export function verifyStore(dir: string): VerifyReport {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
  const { checkpoints, wals, tmps } = listDir(dir);
  const findings: Finding[] = [];
  const files: VerifyReport['files'] = [];
  for (const c of checkpoints) {
    const read = readStoreFile(join(dir, checkpointName(c)), 'checkpoint', c);
    files.push({ name: read.file, bytes: read.size, transactions: read.txs.length });
    const f = damageFinding(read);
    if (f) {
      findings.push({ ...f, severity: 'damage' });
      continue;
    }
    // An intact checkpoint must also load: id bounds, string sequence, row order, index order.
    const store = new LabelledQuadStore({});
    try {
      store.loadFrom(dir, { base: c });
      for (const p of indexProblems(store)) findings.push({ severity: 'damage', file: read.file, message: p });
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      findings.push({ severity: 'damage', file: read.file, message: err.message });
    }
  }
  for (const w of wals) {
    const read = readStoreFile(join(dir, walName(w)), 'log', w + 1);
    files.push({ name: read.file, bytes: read.size, transactions: read.txs.filter((t) => t.txId !== undefined).length });
    const f = damageFinding(read);
    if (f) findings.push(f);
  }
  for (const t of tmps) findings.push({ severity: 'note', file: t, message: 'leftover of an interrupted checkpoint; the next open removes it' });

  // What a normal open would do (in memory only).
  const store = new LabelledQuadStore({});
  let opens = true;
  let openError: string | undefined;
  let state: VerifyReport['state'];
  try {
    const report = store.loadFrom(dir);
    for (const d of report.damagedCheckpoints) {
      findings.push({ severity: 'damage', file: d.file, offset: d.offset, message: `passed over by the open, which falls back to ${report.base === undefined ? 'the logs alone' : checkpointName(report.base)}` });
    }
    for (const p of indexProblems(store)) findings.push({ severity: 'damage', file: '(loaded state)', message: p });
    const { txId, quads } = store.indexState();
    state = { txId, quads, checkpoint: report.base, commits: report.commits };
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
    opens = false;
    openError = err.message;
    findings.push({ severity: 'damage', file: '(open)', message: `the store would refuse to open: ${err.message}` });
  }
  const healthy = opens && !findings.some((f) => f.severity !== 'note');
  const lock = lockStatus(dir);
  const lockLine = lock === undefined
    ? []
    : lock.holder === undefined
      ? [`lock: ${join(dir, 'LOCK')} is unreadable (being written, or left by a crash)`]
      : [`lock: held by ${describeHolder(lock.holder)}${lock.alive === true ? ', running: the folder may change while it is read (this report is of the files as read)' : lock.alive === false ? ', no longer running (stale: the next open takes it over)' : ' (another host: cannot tell whether it runs)'}`];
  const lines = [
    `ianode store verify ${dir}: ${healthy ? 'healthy' : opens ? 'DAMAGED (the store still opens; see below)' : 'DAMAGED (the store refuses to open)'}`,
    `files: ${plural(checkpoints.length, 'checkpoint')}, ${plural(wals.length, 'log')}, ${files.reduce((n, f) => n + f.bytes, 0)} bytes`,
    ...files.map((f) => `  ${f.name}: ${f.bytes} bytes, ${plural(f.transactions, 'transaction')}`),
    ...lockLine,
    ...(state ? [`state: transaction ${state.txId}, ${plural(state.quads, 'quad')} (${state.checkpoint === undefined ? 'no checkpoint' : checkpointName(state.checkpoint)} + ${plural(state.commits, 'commit')} from logs)`] : []),
    ...findings.map((f) => `${f.severity.toUpperCase()}: ${f.file}${f.offset === undefined ? '' : ` @${f.offset}`}: ${f.message}`),
  ];
  if (!healthy) lines.push(`to save every commit before the damage into a new folder: ianode store recover ${dir} --to NEW_DIR`);
  return { dir, healthy, opens, openError, findings, state, files, lock, lines };
}

export interface RecoveryReport {
  from: string;
  to: string;
  /** The transaction the new store holds, and from what it was rebuilt. */
  txId: number;
  quads: number;
  checkpoint: number | undefined;
  commits: number;
  /** The newest transaction seen anywhere in the folder (intact COMMIT frames, checkpoint names). */
  latestSeen: number;
  /** Transactions not recovered: latestSeen - txId. */
  lostCommits: number;
  /** Damage met, with the bytes from there to the end of that file that were not recovered. */
  damage: { file: string; offset: number; reason: string; bytesNotRecovered: number }[];
  lines: string[];
}

/**
 * Write a new, healthy store at `out` holding every commit of `dir` up to the first damage (the
 * best of: each intact checkpoint, or none, rolled forward through the logs until the first
 * damage). Never changes `dir`; `out` must not exist or be empty. The report (also written to
 * `out/RECOVERY.txt`) says what was lost.
 */
export async function recoverStore(dir: string, out: string): Promise<RecoveryReport> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
  const source = realpathSync(dir);
  const target = existsSync(out) ? realpathSync(out) : resolve(out);
  if (target === source || target.startsWith(source + sep)) throw new Error(`${out} is inside ${dir}: recover never writes into the folder it reads`);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty: recover writes a new store folder`);
  const { checkpoints, wals } = listDir(dir);
  const reads = new Map<string, FileRead>();
  let latestSeen = checkpoints.at(-1) ?? 0;
  for (const c of checkpoints) reads.set(checkpointName(c), readStoreFile(join(dir, checkpointName(c)), 'checkpoint', c));
  for (const w of wals) {
    const read = readStoreFile(join(dir, walName(w)), 'log', w + 1);
    reads.set(read.file, read);
    for (const t of read.txs) if (t.txId !== undefined) latestSeen = Math.max(latestSeen, t.txId);
    for (const id of read.damage?.commitsAfter ?? []) latestSeen = Math.max(latestSeen, id);
  }
  // Each intact checkpoint (newest first), then none: keep the one that reaches furthest.
  const bases: (number | undefined)[] = [...checkpoints.filter((c) => reads.get(checkpointName(c))!.damage === undefined).reverse(), undefined];
  let best: { store: LabelledQuadStore; report: LoadReport } | undefined;
  for (const base of bases) {
    const store = new LabelledQuadStore({});
    let report: LoadReport;
    try {
      report = store.loadFrom(dir, { base });
    } catch (err) {
      if (err instanceof StoreError) continue; // a checkpoint whose contents do not check out
      throw err;
    }
    if (best === undefined || store.stats().txId > best.store.stats().txId) best = { store, report };
  }
  if (best === undefined) throw new Error(`nothing in ${dir} can be recovered`);
  const { store, report } = best;
  await store.exportTo(out);
  const { txId, quads } = store.indexState();
  // The new folder must open as a healthy store holding exactly that state.
  const check = await openStore({ dir: out });
  const reopened = check.stats();
  await check.close();
  if (reopened.txId !== txId || reopened.quads !== quads) {
    throw new Error(`the recovered store at ${out} reopens at transaction ${reopened.txId} with ${reopened.quads} quads, not ${txId} with ${quads}`);
  }

  const damage: RecoveryReport['damage'] = [];
  for (const [name, read] of reads) {
    if (read.damage === undefined) continue;
    // A damaged checkpoint whose state the logs rebuilt costs nothing.
    const covered = name.startsWith('checkpoint-') && Number(/\d+/.exec(name)![0]) <= txId;
    damage.push({ file: read.file, offset: read.damage.offset, reason: read.damage.reason, bytesNotRecovered: covered ? 0 : read.size - read.damage.offset });
  }
  if (report.stopped && !damage.some((d) => d.file === report.stopped!.file)) {
    const read = reads.get(report.stopped.file);
    damage.push({ file: report.stopped.file || '(folder)', offset: report.stopped.offset, reason: report.stopped.reason, bytesNotRecovered: read ? read.size - report.stopped.offset : 0 });
  }
  const lostCommits = Math.max(0, latestSeen - txId);
  const lines = [
    `ianode store recover ${dir} --to ${out}`,
    `recovered: transaction ${txId}, ${plural(quads, 'quad')} (${report.base === undefined ? 'no checkpoint' : checkpointName(report.base)} + ${plural(report.commits, 'commit')} from logs)`,
    lostCommits === 0
      ? 'lost: no commit (every transaction found in the folder was recovered)'
      : `LOST: ${plural(lostCommits, 'commit')}, transactions ${txId + 1} to ${latestSeen}, were not recovered`,
    ...(report.stopped ? [`stopped at: ${report.stopped.message}`] : []),
    ...damage.map((d) =>
      d.bytesNotRecovered === 0 && d.file.startsWith('checkpoint-')
        ? `damage: ${d.file} at byte ${d.offset} (${d.reason}); passed over, its state rebuilt from an earlier checkpoint and the logs`
        : `damage: ${d.file} at byte ${d.offset} (${d.reason}); ${d.bytesNotRecovered} bytes from there not recovered`,
    ),
    `${resolve(dir)} was not changed; the new store at ${resolve(out)} holds one checkpoint and an empty log`,
  ];
  writeFileSync(join(out, 'RECOVERY.txt'), `${lines.join('\n')}\n`, { mode: FILE_MODE });
  return { from: dir, to: out, txId, quads, checkpoint: report.base, commits: report.commits, latestSeen, lostCommits, damage, lines };
}
