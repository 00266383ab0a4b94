/**
 * Shared memory for the store's immutable arrays. Row columns, run permutations and the term
 * dictionary live in SharedArrayBuffers so query workers (another thread) read them in place:
 * posting a state to a worker shares the memory, never copies it (see `shareState`).
 */

export function sharedU32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(n * 4));
}

export function isShared(a: Uint32Array): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

/** A shared copy of the first `n` values of `a` (default all). */
export function sharedCopy(a: Uint32Array, n = a.length): Uint32Array {
  const b = sharedU32(n);
  b.set(n === a.length ? a : a.subarray(0, n));
  return b;
}

/** `a` when it is in shared memory already, else a shared copy. */
export function shareable(a: Uint32Array): Uint32Array {
  return isShared(a) ? a : sharedCopy(a);
}
