/**
 * Index sorts on a second core. A small pool of worker threads (created on first use, never
 * keeping the process alive) sorts permutations held in SharedArrayBuffers; callers await the
 * result. When workers cannot be used (no SharedArrayBuffer-backed columns, or a worker fails to
 * start) the sort runs on the calling thread: the answer is the same either way.
 */
import { Worker } from 'node:worker_threads';
import type { Position } from './orders.js';
import { sortRows, type ColumnSet } from './radix-sort.js';
import type { SortRequest } from './sort-worker.js';

interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
}

class SortPool {
  private workers: Worker[] = [];
  private next = 0;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly size: number) {}

  private worker(): Worker {
    if (this.workers.length < this.size) {
      const w = new Worker(new URL('./sort-worker.js', import.meta.url));
      w.on('message', (msg: { id: number; error?: string }) => {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (this.pending.size === 0) this.retire();
        if (msg.error) p.reject(new Error(msg.error));
        else p.resolve();
      });
      w.on('error', (err) => {
        for (const [, p] of this.pending) p.reject(err);
        this.pending.clear();
        this.workers = this.workers.filter((x) => x !== w);
      });
      this.workers.push(w);
      return w;
    }
    const w = this.workers[this.next % this.workers.length]!;
    this.next++;
    return w;
  }

  /** Stop idle workers: big sorts are rare, a worker starts in tens of milliseconds, and a live
   * but idle worker would keep its last request's shared arrays reachable until its own GC. */
  private retire(): void {
    const workers = this.workers;
    this.workers = [];
    for (const w of workers) void w.terminate();
  }

  sort(cols: ColumnSet, keys: readonly Position[], perm: Uint32Array): Promise<void> {
    const id = ++this.seq;
    // Scratch memory is allocated here, on the main thread, so it is freed by the main thread's
    // GC: an idle worker would otherwise keep its last sort's arrays alive indefinitely.
    const n = perm.length;
    const dst = new Uint32Array(new SharedArrayBuffer(n * 4));
    const digits = new Uint32Array(new SharedArrayBuffer(n * 4));
    const req: SortRequest = { id, g: cols.g, s: cols.s, p: cols.p, o: cols.o, perm, dst, digits, keys: [...keys] };
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const w = this.worker();
      w.postMessage(req);
    });
  }
}

const pool = new SortPool(2);

function shared(a: Uint32Array): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

/** A copy of `rows` sorted by `keys`, sorted on a worker thread when the columns are shared. */
export async function sortCopy(cols: ColumnSet, keys: readonly Position[], rows: Uint32Array): Promise<Uint32Array> {
  if (!(shared(cols.g) && shared(cols.s) && shared(cols.p) && shared(cols.o))) {
    return sortRows(cols, keys, new Uint32Array(rows));
  }
  const perm = new Uint32Array(new SharedArrayBuffer(rows.byteLength));
  perm.set(rows);
  try {
    await pool.sort(cols, keys, perm);
    return perm;
  } catch {
    perm.set(rows);
    return sortRows(cols, keys, perm);
  }
}
