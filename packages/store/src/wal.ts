/**
 * The write-ahead log and checkpoint file format: a sequence of frames, each
 *
 *   magic u32 | type u32 | payload length u32 | crc32(payload) u32 | payload
 *
 * The checksum covers the first 12 header bytes (magic, type, length) and the payload, so a flipped
 * bit anywhere in a frame is caught (frames of the first format, magic "IANL", checksummed the
 * payload only; they are still read).
 *
 * A transaction is BEGIN, any number of TERMS / LABELS / ADD / DELETE / PENDING_SET /
 * PENDING_DELETE / META frames, then COMMIT. A reader applies a transaction only when it has read its
 * COMMIT frame intact, so a torn tail (crash in mid-write) loses only the transaction that was
 * never acknowledged. A checkpoint file is one such transaction holding the whole state.
 * `scanFrames` reads a file and says where and why it stops making sense; integrity.ts decides
 * whether that is a torn tail or damage.
 */
import { crc32 } from 'node:zlib';
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';

/** "IAN2": the checksum covers header bytes 0..11 and the payload. */
export const MAGIC = 0x324e4149;
/** "IANL": the first format, whose checksum covers the payload only (read, never written). */
export const LEGACY_MAGIC = 0x4c4e4149;
export const HEADER = 16;
const MAX_TYPE = 9;

export enum FrameType {
  Begin = 1,
  Terms = 2,
  Labels = 3,
  Add = 4,
  Delete = 5,
  PendingSet = 6,
  PendingDelete = 7,
  Commit = 8,
  /** Commit metadata set by the transaction (`WriteOptions.meta`): a JSON object of strings. */
  Meta = 9,
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
  header.writeUInt32LE(crc32(payload, crc32(header.subarray(0, 12))), 12);
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
    header.writeUInt32LE(crc32(body, crc32(head, crc32(header.subarray(0, 12)))), 12);
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

export interface ScannedFrame extends Frame {
  /** Byte offsets of the frame's header and of the byte after its payload. */
  start: number;
  end: number;
}

export interface FrameScan {
  frames: ScannedFrame[];
  size: number;
  /** Where the file stops being a sequence of intact frames, and why (absent: clean to the end). */
  stop?: { offset: number; reason: string } | undefined;
}

/** Checks the frame whose header is at `pos`; returns its payload, or why it is not intact. */
function frameAt(fd: number, size: number, pos: number, header: Buffer): { type: FrameType; payload: Buffer } | string {
  const got = readSync(fd, header, 0, HEADER, pos);
  if (got < HEADER) return `incomplete frame header (${got} of ${HEADER} bytes)`;
  const magic = header.readUInt32LE(0);
  if (magic !== MAGIC && magic !== LEGACY_MAGIC) return `no frame marker (0x${magic.toString(16).padStart(8, '0')})`;
  const type = header.readUInt32LE(4);
  const len = header.readUInt32LE(8);
  if (pos + HEADER + len > size) return `a frame of ${len} bytes runs past the end of the file (${size} bytes)`;
  const payload = Buffer.allocUnsafe(len);
  if (len > 0 && readSync(fd, payload, 0, len, pos + HEADER) !== len) return 'short read';
  const crc = magic === MAGIC ? crc32(payload, crc32(header.subarray(0, 12))) : crc32(payload);
  if (crc !== header.readUInt32LE(12)) return 'checksum mismatch';
  if (type < 1 || type > MAX_TYPE) return `unknown frame type ${type}`;
  return { type: type as FrameType, payload };
}

/** Read the frames of a file in order, up to the first one that is not intact. */
export function scanFrames(path: string): FrameScan {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.allocUnsafe(HEADER);
    const frames: ScannedFrame[] = [];
    let pos = 0;
    while (pos < size) {
      const f = frameAt(fd, size, pos, header);
      if (typeof f === 'string') return { frames, size, stop: { offset: pos, reason: f } };
      frames.push({ ...f, start: pos, end: pos + HEADER + f.payload.byteLength });
      pos += HEADER + f.payload.byteLength;
    }
    return { frames, size };
  } finally {
    closeSync(fd);
  }
}

/** Intact frames found anywhere after byte `from` (resynchronising on the frame marker at every
 * byte), in file order: what survives past a damaged point. */
export function* framesAfter(path: string, from: number): Generator<ScannedFrame> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.allocUnsafe(HEADER);
    const markers = [Buffer.alloc(4), Buffer.alloc(4)];
    markers[0]!.writeUInt32LE(MAGIC);
    markers[1]!.writeUInt32LE(LEGACY_MAGIC);
    const CHUNK = 8 << 20;
    const chunk = Buffer.allocUnsafe(CHUNK + 3);
    let base = from;
    while (base < size) {
      const n = readSync(fd, chunk, 0, Math.min(CHUNK + 3, size - base), base);
      const view = chunk.subarray(0, n);
      // Every marker position in this chunk, in order.
      const positions: number[] = [];
      for (const m of markers) for (let i = view.indexOf(m); i >= 0 && i < CHUNK; i = view.indexOf(m, i + 1)) positions.push(i);
      positions.sort((a, b) => a - b);
      for (const i of positions) {
        const pos = base + i;
        const f = frameAt(fd, size, pos, header);
        if (typeof f !== 'string') yield { ...f, start: pos, end: pos + HEADER + f.payload.byteLength };
      }
      base += CHUNK;
    }
  } finally {
    closeSync(fd);
  }
}

/** A META frame's payload: the entries as a JSON object. */
export function encodeMeta(entries: Iterable<[string, string]>): Buffer {
  return Buffer.from(JSON.stringify(Object.fromEntries(entries)), 'utf8');
}

/** The entries of a META frame, or undefined when the payload is not a JSON object of strings. */
export function decodeMeta(payload: Buffer): [string, string][] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.every(([, v]) => typeof v === 'string') ? (entries as [string, string][]) : undefined;
}
