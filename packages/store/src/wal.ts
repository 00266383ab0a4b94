/**
 * The write-ahead log and checkpoint file format: a sequence of frames, each
 *
 *   magic u32 | type u32 | payload length u32 | crc32(payload) u32 | payload
 *
 * A transaction is BEGIN, any number of TERMS / LABELS / ADD / DELETE / PENDING_SET /
 * PENDING_DELETE frames, then COMMIT. A reader applies a transaction only when it has read its
 * COMMIT frame intact, so a torn tail (crash in mid-write) loses only the transaction that was
 * never acknowledged. A checkpoint file is one such transaction holding the whole state.
 */
import { crc32 } from 'node:zlib';
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';

export const MAGIC = 0x4c4e4149; // "IANL"
const HEADER = 16;

export enum FrameType {
  Begin = 1,
  Terms = 2,
  Labels = 3,
  Add = 4,
  Delete = 5,
  PendingSet = 6,
  PendingDelete = 7,
  Commit = 8,
}

export interface Frame {
  type: FrameType;
  payload: Buffer;
}

/** Encode one frame (header + payload). */
export function encodeFrame(type: FrameType, payload: Uint8Array): Buffer[] {
  const header = Buffer.allocUnsafe(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(type, 4);
  header.writeUInt32LE(payload.byteLength, 8);
  header.writeUInt32LE(crc32(payload), 12);
  return [header, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)];
}

export function u32Payload(...values: number[]): Buffer {
  const b = Buffer.allocUnsafe(values.length * 4);
  values.forEach((v, i) => b.writeUInt32LE(v, i * 4));
  return b;
}

const STRINGS_PER_FRAME = 65536;

/** Frames holding strings (terms or labels) with ids from `firstId`, in chunks. */
export function stringFrames(type: FrameType.Terms | FrameType.Labels, firstId: number, strings: readonly string[]): Buffer[] {
  const out: Buffer[] = [];
  for (let start = 0; start < strings.length; start += STRINGS_PER_FRAME) {
    const end = Math.min(strings.length, start + STRINGS_PER_FRAME);
    let max = 8 + (end - start) * 4;
    for (let i = start; i < end; i++) max += strings[i]!.length * 3;
    const buf = Buffer.allocUnsafe(max);
    buf.writeUInt32LE(firstId + start, 0);
    buf.writeUInt32LE(end - start, 4);
    let off = 8 + (end - start) * 4;
    for (let i = start; i < end; i++) {
      const n = buf.write(strings[i]!, off, 'utf8');
      buf.writeUInt32LE(n, 8 + (i - start) * 4);
      off += n;
    }
    out.push(...encodeFrame(type, buf.subarray(0, off)));
  }
  return out;
}

const BYTES_PER_FRAME = 64 << 20;

/** Frames holding already-encoded strings (the dictionary's arena bytes), split so no frame's
 * payload passes 64 MiB; same payload layout as `stringFrames`. */
export function encodedStringFrames(
  type: FrameType.Terms,
  firstId: number,
  lengths: Uint32Array,
  bytes: Uint8Array,
): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  let off = 0;
  while (i < lengths.length) {
    let j = i;
    let size = 0;
    while (j < lengths.length && j - i < STRINGS_PER_FRAME * 4 && (size === 0 || size + lengths[j]! <= BYTES_PER_FRAME)) size += lengths[j++]!;
    const head = Buffer.allocUnsafe(8 + (j - i) * 4);
    head.writeUInt32LE(firstId + i, 0);
    head.writeUInt32LE(j - i, 4);
    Buffer.from(lengths.buffer, lengths.byteOffset + i * 4, (j - i) * 4).copy(head, 8);
    const body = bytes.subarray(off, off + size);
    const header = Buffer.allocUnsafe(HEADER);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(type, 4);
    header.writeUInt32LE(head.byteLength + size, 8);
    header.writeUInt32LE(crc32(body, crc32(head)), 12);
    out.push(header, head, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    off += size;
    i = j;
  }
  return out;
}

export function decodeStrings(payload: Buffer): { firstId: number; strings: string[] } {
  const firstId = payload.readUInt32LE(0);
  const count = payload.readUInt32LE(4);
  const strings = new Array<string>(count);
  let off = 8 + count * 4;
  for (let i = 0; i < count; i++) {
    const n = payload.readUInt32LE(8 + i * 4);
    strings[i] = payload.toString('utf8', off, off + n);
    off += n;
  }
  return { firstId, strings };
}

/** 256k rows: frames are built lazily as the log is written, so only a few MiB are in flight. */
const ROWS_PER_FRAME = 1 << 18;

/** Frames of u32 tuples taken from parallel columns (row ids `rows`, or 0..count-1), stored
 * column by column: `width` blocks of n values each. */
export function* tupleFrames(type: FrameType, columns: readonly Uint32Array[], rows: ArrayLike<number> | undefined, count: number): Generator<Buffer> {
  const width = columns.length;
  for (let start = 0; start < count; start += ROWS_PER_FRAME) {
    const end = Math.min(count, start + ROWS_PER_FRAME);
    const n = end - start;
    const data = new Uint32Array(n * width);
    for (let c = 0; c < width; c++) {
      const col = columns[c]!;
      const base = c * n;
      if (rows === undefined) data.set(col.subarray(start, end), base);
      else for (let i = 0; i < n; i++) data[base + i] = col[rows[start + i]!]!;
    }
    yield* encodeFrame(type, new Uint8Array(data.buffer));
  }
}

/** The columns of a tuple frame of `width` columns. */
export function decodeTuples(payload: Buffer, width: number): Uint32Array[] {
  // Copy to an aligned buffer (the payload may start at any offset).
  const all = new Uint32Array(payload.byteLength / 4);
  new Uint8Array(all.buffer).set(payload);
  const n = all.length / width;
  const cols: Uint32Array[] = [];
  for (let c = 0; c < width; c++) cols.push(all.subarray(c * n, (c + 1) * n));
  return cols;
}

/** Read frames of a file in order; stops at the first torn or corrupt frame. */
export function* readFrames(path: string): Generator<Frame & { end: number }> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.allocUnsafe(HEADER);
    let pos = 0;
    while (pos + HEADER <= size) {
      if (readSync(fd, header, 0, HEADER, pos) !== HEADER) return;
      if (header.readUInt32LE(0) !== MAGIC) return;
      const type = header.readUInt32LE(4) as FrameType;
      const len = header.readUInt32LE(8);
      const crc = header.readUInt32LE(12);
      if (pos + HEADER + len > size) return;
      const payload = Buffer.allocUnsafe(len);
      if (len > 0 && readSync(fd, payload, 0, len, pos + HEADER) !== len) return;
      if (crc32(payload) !== crc) return;
      pos += HEADER + len;
      yield { type, payload, end: pos };
    }
  } finally {
    closeSync(fd);
  }
}
