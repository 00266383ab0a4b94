/**
 * Worker thread that sorts a row permutation by column tuples (radix-sort.ts). The columns and
 * the permutation live in SharedArrayBuffers, so nothing is copied: the worker sorts in place and
 * answers when done. Used for the big index sorts of a bulk commit, which then run on the second
 * core while the main thread writes the log.
 */
import { parentPort } from 'node:worker_threads';
import type { Position } from './orders.js';
import { sortRows } from './radix-sort.js';

export interface SortRequest {
  id: number;
  g: Uint32Array;
  s: Uint32Array;
  p: Uint32Array;
  o: Uint32Array;
  perm: Uint32Array;
  dst: Uint32Array;
  digits: Uint32Array;
  keys: Position[];
}

parentPort?.on('message', (req: SortRequest) => {
  try {
    sortRows({ g: req.g, s: req.s, p: req.p, o: req.o }, req.keys, req.perm, { dst: req.dst, digits: req.digits });
    parentPort!.postMessage({ id: req.id });
  } catch (err) {
    parentPort!.postMessage({ id: req.id, error: (err as Error).message });
  }
});
