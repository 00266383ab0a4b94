/**
 * Reading store files end to end, and telling a torn tail from damage (docs/ARCHITECTURE.md,
 * "Durability").
 *
 * The torn-tail rule: a crash can only tear the last append, which was never acknowledged. So the
 * first point where a log stops making sense (a frame that is not intact, or frames out of place)
 * is a *torn tail* iff nothing after it in the file is evidence of a later commit: no intact COMMIT
 * frame, and no intact BEGIN of any transaction other than the one being appended. A torn tail is
 * cut off by the next open (and reported); anything else is damage, and the open refuses.
 * A checkpoint is written to a temporary file, synced and renamed, so it is never torn: it must be
 * exactly one intact transaction whose id is the one in its name.
 */
import { basename } from 'node:path';
import { StoreError } from './errors.js';
import { FrameType, decodeMeta, framesAfter, scanFrames, type ScannedFrame } from './wal.js';

/** A complete transaction of a file, or (`txId` undefined) a TERMS frame logged ahead of a commit. */
export interface FileTx {
  txId: number | undefined;
  frames: ScannedFrame[];
}

export interface Damage {
  file: string;
  offset: number;
  reason: string;
  /** True when the damage is a torn tail (see above): cutting it off loses no acknowledged commit. */
  torn: boolean;
  /** Intact COMMIT frames after the damaged point, with their transaction ids. */
  commitsAfter: number[];
}

export interface FileRead {
  file: string;
  size: number;
  txs: FileTx[];
  /** Byte offset after the last complete entry. */
  validEnd: number;
  damage?: Damage | undefined;
}

const txIdOf = (f: ScannedFrame): number | undefined => (f.payload.byteLength === 4 ? f.payload.readUInt32LE(0) : undefined);

/**
 * The complete transactions of a log or checkpoint file, and its first damaged point.
 * `firstTxId` is the id the file's first transaction must have (wal-X: X+1; checkpoint-X: X).
 */
export function readStoreFile(path: string, kind: 'log' | 'checkpoint', firstTxId: number): FileRead {
  const file = basename(path);
  const { frames, size, stop } = scanFrames(path);
  const txs: FileTx[] = [];
  let current: ScannedFrame[] | undefined;
  let currentId = 0;
  let validEnd = 0;
  let expected = firstTxId;
  let bad: { offset: number; reason: string } | undefined;
  for (const f of frames) {
    if (current === undefined) {
      if (f.type === FrameType.Terms && kind === 'log') {
        txs.push({ txId: undefined, frames: [f] });
        validEnd = f.end;
        continue;
      }
      if (f.type !== FrameType.Begin) {
        bad = { offset: f.start, reason: `a ${FrameType[f.type]} frame outside a transaction` };
        break;
      }
      const id = txIdOf(f);
      if (id === undefined) {
        bad = { offset: f.start, reason: 'a BEGIN frame of the wrong size' };
        break;
      }
      if (id !== expected) {
        bad = { offset: f.start, reason: `transaction ${id} where transaction ${expected} was expected` };
        break;
      }
      current = [f];
      currentId = id;
    } else if (f.type === FrameType.Begin) {
      bad = { offset: f.start, reason: `a BEGIN frame inside transaction ${currentId}` };
      break;
    } else if (f.type === FrameType.Commit) {
      if (txIdOf(f) !== currentId) {
        bad = { offset: f.start, reason: `the COMMIT frame of transaction ${currentId} names transaction ${txIdOf(f)}` };
        break;
      }
      current.push(f);
      txs.push({ txId: currentId, frames: current });
      current = undefined;
      validEnd = f.end;
      expected = currentId + 1;
      if (kind === 'checkpoint') break;
    } else {
      current.push(f);
    }
  }
  if (bad === undefined && stop !== undefined) bad = stop;
  if (bad === undefined && current !== undefined) bad = { offset: validEnd, reason: `transaction ${currentId} has no COMMIT frame` };
  if (bad === undefined && kind === 'checkpoint') {
    if (txs.length === 0) bad = { offset: 0, reason: size === 0 ? 'the file is empty' : 'no transaction' };
    else if (validEnd < size) bad = { offset: validEnd, reason: `${size - validEnd} bytes after the checkpoint's COMMIT frame` };
  }
  if (bad === undefined) return { file, size, txs, validEnd };

  // What lies after the damaged point decides torn tail versus damage.
  const commitsAfter: number[] = [];
  let laterBegin = false;
  for (const f of framesAfter(path, bad.offset + 1)) {
    if (f.end <= bad.offset) continue;
    const id = txIdOf(f);
    if (f.type === FrameType.Commit && id !== undefined) commitsAfter.push(id);
    if (f.type === FrameType.Begin && id !== expected) laterBegin = true;
  }
  const torn = kind === 'log' && commitsAfter.length === 0 && !laterBegin;
  return { file, size, txs, validEnd, damage: { file, ...bad, torn, commitsAfter } };
}

/**
 * Checks a transaction against the dictionary and label table it is applied to: string frames
 * in id sequence with a consistent layout, tuple frames of whole rows, every term id below the
 * dictionary size and every label id below the label-table size at that point, added rows in SPOG
 * order. Throws StoreError('STORE_CORRUPT') naming the file and the frame's offset.
 */
export function checkTransaction(tx: FileTx, file: string, termCount: number, labelCount: number): void {
  let terms = termCount;
  let labels = labelCount;
  let last: [number, number, number, number] | undefined;
  for (const f of tx.frames) {
    const fail = (what: string): never => {
      throw new StoreError('STORE_CORRUPT', `${file} holds an inconsistent ${FrameType[f.type]} frame at byte ${f.start}: ${what}`);
    };
    const p = f.payload;
    switch (f.type) {
      case FrameType.Begin:
      case FrameType.Commit:
        break;
      case FrameType.Meta:
        if (decodeMeta(p) === undefined) fail('not a JSON object of strings');
        break;
      case FrameType.Terms:
      case FrameType.Labels: {
        if (p.byteLength < 8) fail('too short');
        const firstId = p.readUInt32LE(0);
        const count = p.readUInt32LE(4);
        if (8 + count * 4 > p.byteLength) fail(`${count} strings do not fit`);
        let bytes = 0;
        for (let i = 0; i < count; i++) bytes += p.readUInt32LE(8 + i * 4);
        if (8 + count * 4 + bytes !== p.byteLength) fail('string lengths do not add up to the frame size');
        const size = f.type === FrameType.Terms ? terms : labels;
        if (firstId !== size) fail(`ids start at ${firstId} where ${size} was expected`);
        if (f.type === FrameType.Terms) terms += count;
        else labels += count;
        break;
      }
      case FrameType.Add:
      case FrameType.Delete:
      case FrameType.PendingSet:
      case FrameType.PendingDelete: {
        const width = f.type === FrameType.Delete ? 4 : 5;
        if (p.byteLength % (width * 4) !== 0) fail(`${p.byteLength} bytes are not whole rows of ${width} ids`);
        const n = p.byteLength / (width * 4);
        const all = new Uint32Array(n * width);
        new Uint8Array(all.buffer).set(p);
        for (let c = 0; c < width; c++) {
          const limit = c < 4 ? terms : labels;
          for (let i = c * n; i < (c + 1) * n; i++) {
            const id = all[i]!;
            if (id >= limit) fail(`row ${i - c * n} has ${c < 4 ? 'term' : 'label'} id ${id}, past the ${limit} ${c < 4 ? 'terms' : 'labels'} defined`);
          }
        }
        if (f.type === FrameType.Add) {
          // Columns g s p o label; SPOG order compares (s, p, o, g). `last` carries across frames.
          for (let i = 0; i < n; i++) {
            const s = all[n + i]!, pr = all[2 * n + i]!, o = all[3 * n + i]!, g = all[i]!;
            if (last !== undefined) {
              const cmp = last[0] !== s ? last[0] - s : last[1] !== pr ? last[1] - pr : last[2] !== o ? last[2] - o : last[3] - g;
              if (cmp > 0) fail(`row ${i} is out of SPOG order`);
              last[0] = s;
              last[1] = pr;
              last[2] = o;
              last[3] = g;
            } else {
              last = [s, pr, o, g];
            }
          }
        }
        break;
      }
      default:
        fail('unknown frame type');
    }
  }
}
