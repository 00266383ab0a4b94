/**
 * Term dictionary: term key <-> dense 32-bit id. Id 0 is the default graph. Ids are handed out in
 * order of first sight and never reused, so an id is stable for the life of a store.
 *
 * Memory matters more than anything here (a store holds millions of terms), so keys are not kept
 * as JavaScript strings in a Map (~150 bytes a term): they are UTF-8 bytes in one growing arena,
 * with an open-addressing hash table of ids (~75 bytes a term all told, for BSBM-like data).
 * A key is encoded to UTF-8 once (natively) into a scratch buffer, hashed (FNV-1a over the bytes)
 * and compared byte-wise with the arena; `key(id)` decodes on demand. A lone surrogate is stored
 * as U+FFFD, as UTF-8 requires.
 */
import { keyToTerm, termToKey, type Term } from './terms.js';

export const DEFAULT_GRAPH_ID = 0;

export interface TermLookup {
  /** The id of a term, or undefined when the dictionary has never seen it. */
  lookup(term: Term): number | undefined;
  /** The term with this id. Throws RangeError for an unknown id. */
  term(id: number): Term;
  /** The key (see terms.ts) of the term with this id. */
  key(id: number): string;
  /**
   * An object that stays the same for as long as every id names the same term; a dictionary
   * replaces it when it forgets ids that it may hand out again (`truncate`). Callers may key caches
   * of facts about ids (a literal's parsed value) by it, across datasets and queries. Absent: no
   * such promise, cache per use.
   */
  termScope?(): object;
}

const EMPTY = 0xffffffff;
const CACHE_SIZE = 1024;
/** Slots of the decoded-term cache (direct-mapped by id; about 5 MB when full). */
export const DECODED_CACHE_SLOTS = 1 << 15;
const DECODED_SIZE = DECODED_CACHE_SLOTS;

/** Cache slot of a key from its length and two of its characters (no full hash). */
function cacheSlot(key: string): number {
  const n = key.length;
  return (n ^ (key.charCodeAt(n >> 1) << 3) ^ (key.charCodeAt(n - 1) << 6) ^ (key.charCodeAt(n - 3) << 1)) & (CACHE_SIZE - 1);
}
const MAX_ARENA = 0xffffffff;

/** Node's Buffer#utf8Slice where it exists: `toString('utf8', a, b)` checks its arguments and
 * looks up the encoding on every call, about as much work as decoding a short key. */
const nativeUtf8Slice = (Buffer.prototype as unknown as { utf8Slice?: (start: number, end: number) => string }).utf8Slice;
function utf8Slice(buf: Buffer, start: number, end: number): string {
  return nativeUtf8Slice !== undefined ? nativeUtf8Slice.call(buf, start, end) : buf.toString('utf8', start, end);
}

/** FNV-1a over bytes [0, n). */
function hashBytes(b: Uint8Array, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

/**
 * What a reader on another thread needs to look terms up and decode ids (`TermDictionary.share`,
 * `TermDictionary.reader`): the arrays live in SharedArrayBuffers, so posting this to a worker
 * shares them, never copies.
 */
export interface DictionaryShare {
  readonly arena: Uint8Array;
  readonly starts: Uint32Array;
  readonly slots: Uint32Array;
  /** Ids the reader may use: [0, count). */
  readonly count: number;
  /** Changes whenever the dictionary forgets ids (`truncate`): a reader then drops its caches. */
  readonly scope: number;
}

/** A Buffer over new shared memory (zero-filled). */
function sharedBytes(n: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(n));
}

function sharedU32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(n * 4));
}

function sharedSlice(a: Uint32Array, n: number): Uint32Array {
  const b = sharedU32(n);
  b.set(a.subarray(0, n));
  return b;
}

/**
 * The arrays are in shared memory so query workers read the store's dictionary in place
 * (`share` / `reader`). That is safe without locks because of how the writer changes them: bytes
 * and starts of an id never change once written (appends go past the end; a grown array is a new
 * one); a hash slot goes from free to taken and never back (a rehash builds a new table); and a
 * reader only uses ids below the count it was given, which were all written before the message
 * that gave it the count (message passing orders memory).
 */
export class TermDictionary implements TermLookup {
  private arena = sharedBytes(1 << 16);
  private arenaLength = 0;
  /** Start of each id's bytes; `starts[id + 1]` is its end. */
  private starts = sharedU32(1 << 12);
  private hashes = sharedU32(1 << 12);
  /** Pairs (hash, id) so a probe reads one cache line; id EMPTY marks a free slot. Capacity (in
   * pairs) is a power of two, load at most 1/2. */
  private slots = sharedU32(2 << 13).fill(EMPTY);
  private count = 0;
  /** A reader (`TermDictionary.reader`): looks up and decodes, never interns. */
  private readOnly = false;
  /** Bumped by `truncate` (see DictionaryShare.scope). */
  private scopeNumber = 0;
  /** The UTF-8 bytes of the key being looked up (encoded natively, then hashed and compared as
   * bytes: no character loop over a possibly sliced or concatenated string). */
  private scratch = Buffer.allocUnsafe(1 << 12);
  /** A small direct-mapped cache of recently found keys (predicates, classes, recent subjects):
   * a hit costs one native string comparison instead of hashing and comparing in JavaScript.
   * It holds copies decoded from the arena, never the caller's strings (which may be slices of
   * large parser chunks that must not be kept alive). */
  private readonly cacheKeys: string[] = new Array<string>(CACHE_SIZE).fill('\u0000');
  private readonly cacheIds = new Uint32Array(CACHE_SIZE);
  /** Recently decoded ids, direct-mapped: `key(id)` and `term(id)` of the same ids come back query
   * after query (predicates, classes, the hot part of the data), and decoding from the arena costs
   * a native UTF-8 decode plus a term object each time. Ids are never reused (only `truncate`
   * forgets some, and it clears this), so an entry never goes stale. Terms are shared: treat
   * them as immutable, as RDF/JS terms are. */
  private readonly decodedIds = new Uint32Array(DECODED_SIZE);
  private readonly decodedKeys: string[] = new Array<string>(DECODED_SIZE).fill('');
  private readonly decodedTerms: (Term | undefined)[] = new Array<Term | undefined>(DECODED_SIZE).fill(undefined);

  /** See TermLookup.termScope: replaced whenever ids are forgotten. */
  private scope: object = {};

  constructor() {
    this.clearDecoded();
    this.intern('');
  }

  /** The shared arrays and the id count, for a reader on another thread. `count` (default: every
   * id) bounds what the reader may use: pass the count of a committed state. */
  share(count = this.count): DictionaryShare {
    return { arena: this.arena, starts: this.starts, slots: this.slots, count: Math.min(count, this.count), scope: this.scopeNumber };
  }

  /** A read-only dictionary over a share (on a worker thread); `update` moves it to a later one. */
  static reader(share: DictionaryShare): TermDictionary {
    const dict = new TermDictionary();
    dict.readOnly = true;
    dict.hashes = new Uint32Array(0);
    dict.update(share);
    return dict;
  }

  /** Take a later share of the same dictionary (a reader only). */
  update(share: DictionaryShare): void {
    if (!this.readOnly) throw new TypeError('update() is for a dictionary made by TermDictionary.reader');
    const arena = share.arena;
    this.arena = Buffer.isBuffer(arena) ? arena : Buffer.from(arena.buffer, arena.byteOffset, arena.byteLength);
    this.starts = share.starts;
    this.slots = share.slots;
    this.count = share.count;
    this.arenaLength = this.starts[share.count]!;
    if (share.scope !== this.scopeNumber) {
      this.scopeNumber = share.scope;
      this.scope = {};
      this.cacheKeys.fill('\u0000');
      this.clearDecoded();
    }
  }

  /** Number of ids handed out (including the default graph). */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the dictionary's arrays (for statistics). */
  get byteSize(): number {
    return this.arena.byteLength + this.starts.byteLength + this.hashes.byteLength + this.slots.byteLength;
  }

  lookupKey(key: string): number | undefined {
    const n = this.encode(key);
    const h = hashBytes(this.scratch, n);
    const slots = this.slots;
    const mask = (slots.length >>> 1) - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const id = slots[2 * i + 1]!;
      if (id === EMPTY) return undefined;
      // A reader may meet ids past its count (the writer goes on interning): not its terms.
      if (slots[2 * i] === h && id < this.count && this.equalsScratch(id, n)) return id;
    }
  }

  /** Encode `key` into the scratch buffer; returns the byte length. */
  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(key.length * 3 + 1024);
    return this.scratch.write(key, 0, 'utf8');
  }

  private equalsScratch(id: number, n: number): boolean {
    const start = this.starts[id]!;
    if (this.starts[id + 1]! - start !== n) return false;
    const a = this.arena;
    const b = this.scratch;
    if (n <= 32) {
      for (let i = 0; i < n; i++) if (a[start + i] !== b[i]) return false;
      return true;
    }
    return b.compare(a, start, start + n, 0, n) === 0;
  }

  lookup(term: Term): number | undefined {
    return this.lookupKey(termToKey(term));
  }

  /** The id of a key, creating it when new. */
  intern(key: string): number {
    if (this.readOnly) throw new TypeError('a dictionary reader cannot intern terms');
    const c = cacheSlot(key);
    if (this.cacheKeys[c] === key) return this.cacheIds[c]!;
    const n = this.encode(key);
    const h = hashBytes(this.scratch, n);
    let slots = this.slots;
    let mask = (slots.length >>> 1) - 1;
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const id = slots[2 * i + 1]!;
      if (id === EMPTY) break;
      if (slots[2 * i] === h && this.equalsScratch(id, n)) {
        this.cacheKeys[c] = this.key(id);
        this.cacheIds[c] = id;
        return id;
      }
    }
    const id = this.count;
    this.append(n, h);
    if (this.count * 4 > slots.length) {
      this.rehash(slots.length); // twice the pairs
      slots = this.slots;
      mask = (slots.length >>> 1) - 1;
      for (i = h & mask; slots[2 * i + 1] !== EMPTY; i = (i + 1) & mask);
    }
    slots[2 * i] = h;
    slots[2 * i + 1] = id;
    return id;
  }

  internTerm(term: Term): number {
    return this.intern(termToKey(term));
  }

  key(id: number): string {
    const slot = id & (DECODED_SIZE - 1);
    if (this.decodedIds[slot] === id) return this.decodedKeys[slot]!;
    if (!(id >= 0 && id < this.count)) throw new RangeError(`unknown term id ${id}`);
    const key = utf8Slice(this.arena, this.starts[id]!, this.starts[id + 1]!);
    this.decodedIds[slot] = id;
    this.decodedKeys[slot] = key;
    this.decodedTerms[slot] = undefined;
    return key;
  }

  term(id: number): Term {
    const key = this.key(id);
    const slot = id & (DECODED_SIZE - 1);
    let term = this.decodedTerms[slot];
    if (term === undefined) {
      term = keyToTerm(key);
      this.decodedTerms[slot] = term;
    }
    return term;
  }

  termScope(): object {
    return this.scope;
  }

  /** Give back growth slack (after a bulk load) when more than a quarter of the arena is unused. */
  compact(): void {
    if (this.arenaLength < this.arena.length * 0.75) {
      const arena = sharedBytes(Math.max(1024, this.arenaLength));
      arena.set(this.arena.subarray(0, this.arenaLength));
      this.arena = arena;
    }
    if (this.count + 1 < this.starts.length * 0.75) {
      this.starts = sharedSlice(this.starts, this.count + 1);
      this.hashes = sharedSlice(this.hashes, this.count + 1);
    }
  }

  /** Forget every id at or above `size` (used to roll back a failed transaction). */
  truncate(size: number): void {
    if (size < 1) throw new RangeError('cannot truncate below the default graph');
    if (size >= this.count) return;
    this.count = size;
    this.scope = {}; // forgotten ids may come back naming other terms
    this.scopeNumber++;
    this.arenaLength = this.starts[size]!;
    this.cacheKeys.fill('\u0000');
    this.clearDecoded();
    this.rehash(this.slots.length >>> 1);
  }

  /** The UTF-8 bytes of ids [from, to) as stored (a view of the arena, valid until the next
   * intern) and each id's byte length: logs and checkpoints write these without re-encoding. */
  encodedRange(from: number, to = this.count): { lengths: Uint32Array; bytes: Uint8Array } {
    const lengths = new Uint32Array(Math.max(0, to - from));
    for (let id = from; id < to; id++) lengths[id - from] = this.starts[id + 1]! - this.starts[id]!;
    return { lengths, bytes: this.arena.subarray(this.starts[from]!, this.starts[to]!) };
  }

  /** Keys with id in [from, to), in id order (for logs and checkpoints). */
  keysFrom(from: number, to = this.count): string[] {
    const out: string[] = [];
    for (let id = from; id < to; id++) out.push(this.key(id));
    return out;
  }

  /** Empty the decoded-term cache: slot k gets an id that does not map to slot k (k ^ 1), so no
   * id, not even 0xffffffff, ever hits an empty slot. */
  private clearDecoded(): void {
    for (let k = 0; k < DECODED_SIZE; k++) this.decodedIds[k] = k ^ 1;
    this.decodedKeys.fill('');
    this.decodedTerms.fill(undefined);
  }

  /** Append the scratch buffer's `n` bytes as the next id. */
  private append(n: number, h: number): void {
    const id = this.count;
    if (id + 2 > this.starts.length) {
      const cap = this.starts.length * 2;
      const starts = sharedU32(cap);
      starts.set(this.starts);
      this.starts = starts;
      const hashes = sharedU32(cap);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    const need = this.arenaLength + n;
    if (need > this.arena.length) {
      if (need > MAX_ARENA) throw new RangeError('term dictionary is full (4 GiB of term text)');
      const next = sharedBytes(Math.min(MAX_ARENA, Math.max(need, this.arena.length * 2)));
      next.set(this.arena.subarray(0, this.arenaLength)); // TypedArray.set: a plain memcpy
      this.arena = next;
    }
    const p = this.arenaLength;
    if (n <= 64) for (let i = 0; i < n; i++) this.arena[p + i] = this.scratch[i]!;
    else this.arena.set(this.scratch.subarray(0, n), p);
    this.arenaLength = p + n;
    this.hashes[id] = h;
    this.starts[id + 1] = p + n;
    this.count = id + 1;
  }

  /** Rebuild the table with `pairs` slots. */
  private rehash(pairs: number): void {
    const slots = sharedU32(pairs * 2).fill(EMPTY);
    const mask = pairs - 1;
    for (let id = 0; id < this.count; id++) {
      const h = this.hashes[id]!;
      let i = h & mask;
      while (slots[2 * i + 1] !== EMPTY) i = (i + 1) & mask;
      slots[2 * i] = h;
      slots[2 * i + 1] = id;
    }
    this.slots = slots;
  }
}
