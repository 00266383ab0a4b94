/**
 * Term dictionary: term key <-> dense 32-bit id. Id 0 is the default graph. Ids are handed out in
 * order of first sight and never reused, so an id is stable for the life of a store.
 *
 * A JavaScript Map holds at most 2^24 entries, so keys are spread over several maps once one fills.
 */
import { keyToTerm, termToKey, type Term } from './terms.js';

const SHARD_LIMIT = 1 << 23;

export const DEFAULT_GRAPH_ID = 0;

export interface TermLookup {
  /** The id of a term, or undefined when the dictionary has never seen it. */
  lookup(term: Term): number | undefined;
  /** The term with this id. Throws RangeError for an unknown id. */
  term(id: number): Term;
  /** The key (see terms.ts) of the term with this id. */
  key(id: number): string;
}

/**
 * A copy of `s` that does not share memory with a larger string. Parsers hand out slices of their
 * input chunks; V8 keeps a slice's whole parent alive, so storing slices would keep the entire
 * uploaded text in memory. Concatenation then slicing forces a flat copy of just this string.
 */
function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

export class TermDictionary implements TermLookup {
  private readonly keys: string[] = [''];
  private readonly shards: Map<string, number>[] = [new Map([['', DEFAULT_GRAPH_ID]])];

  /** Number of ids handed out (including the default graph). */
  get size(): number {
    return this.keys.length;
  }

  lookupKey(key: string): number | undefined {
    for (const shard of this.shards) {
      const id = shard.get(key);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  lookup(term: Term): number | undefined {
    return this.lookupKey(termToKey(term));
  }

  /** The id of a key, creating it when new. */
  intern(key: string): number {
    const shards = this.shards;
    for (let i = 0; i < shards.length; i++) {
      const id = shards[i]!.get(key);
      if (id !== undefined) return id;
    }
    let last = shards[shards.length - 1]!;
    if (last.size >= SHARD_LIMIT) {
      last = new Map();
      shards.push(last);
    }
    const id = this.keys.length;
    const own = ownString(key);
    this.keys.push(own);
    last.set(own, id);
    return id;
  }

  internTerm(term: Term): number {
    return this.intern(termToKey(term));
  }

  key(id: number): string {
    const k = this.keys[id];
    if (k === undefined) throw new RangeError(`unknown term id ${id}`);
    return k;
  }

  term(id: number): Term {
    return keyToTerm(this.key(id));
  }

  /** Forget every id at or above `size` (used to roll back a failed transaction). */
  truncate(size: number): void {
    if (size < 1) throw new RangeError('cannot truncate below the default graph');
    for (let id = this.keys.length - 1; id >= size; id--) {
      const k = this.keys[id]!;
      for (const shard of this.shards) if (shard.delete(k)) break;
    }
    this.keys.length = size;
    while (this.shards.length > 1 && this.shards[this.shards.length - 1]!.size === 0) this.shards.pop();
  }

  /** Keys with id in [from, to), in id order (for logs and checkpoints). */
  keysFrom(from: number, to = this.keys.length): string[] {
    return this.keys.slice(from, to);
  }
}
