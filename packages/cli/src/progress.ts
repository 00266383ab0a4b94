/**
 * Progress of a long offline command on stderr (docs/operations.md "Offline tools"): on a terminal
 * one line redrawn in place (bar, percent, rate, ETA); otherwise (a log, a pipe) a plain line
 * every `plainEveryMs`; nothing with --quiet. Written by hand: a dozen lines, and the progress-bar
 * packages draw on stdout or assume a terminal.
 */

export interface ProgressIo {
  /** Where progress goes (stderr). */
  write(text: string): void;
  /** Whether that is a terminal (redraw in place). */
  isTTY: boolean;
  /** Milliseconds (injectable for tests). */
  now(): number;
}

export const processProgressIo = (): ProgressIo => ({
  write: (t) => void process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
  now: () => Date.now(),
});

const seconds = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)}s` : `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`);

/** `1.2M`, `34.5k`, `999`. */
export function short(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

export class Progress {
  private readonly started: number;
  private last = 0;
  private drawn = false;

  constructor(
    private readonly what: string,
    /** Total units, when known (percent and ETA need it). */
    private total: number | undefined,
    private readonly unit: string,
    private readonly io: ProgressIo | undefined,
    private readonly plainEveryMs = 5000,
  ) {
    this.started = io?.now() ?? 0;
    this.last = this.started; // the first line after 100 ms (terminal) or plainEveryMs
  }

  /** `done` units so far (redraws at most every 100 ms on a terminal; `force`: now). */
  update(done: number, detail = '', force = false): void {
    const io = this.io;
    if (io === undefined) return;
    const now = io.now();
    if (!force && now - this.last < (io.isTTY ? 100 : this.plainEveryMs)) return;
    this.last = now;
    const elapsed = now - this.started;
    const rate = elapsed > 0 ? (done * 1000) / elapsed : 0;
    const total = this.total;
    let line = `${this.what}: ${short(done)}${total === undefined ? '' : `/${short(total)}`} ${this.unit}`;
    if (total !== undefined && total > 0) {
      const fraction = Math.min(1, done / total);
      const eta = rate > 0 ? ((total - done) / rate) * 1000 : undefined;
      const bar = io.isTTY ? ` [${'#'.repeat(Math.round(fraction * 20)).padEnd(20, '.')}]` : '';
      line += `${bar} ${(fraction * 100).toFixed(1)}%, ${short(rate)} ${this.unit}/s, ETA ${eta === undefined ? '?' : seconds(eta)}`;
    } else {
      line += `, ${short(rate)} ${this.unit}/s, ${seconds(elapsed)}`;
    }
    if (detail) line += ` ${detail}`;
    if (io.isTTY) {
      io.write(`\r\x1b[K${line}`);
      this.drawn = true;
    } else io.write(`${line}\n`);
  }

  /** Clear the redrawn line (a terminal) before the final figures are printed. */
  done(): number {
    if (this.io?.isTTY && this.drawn) this.io.write('\r\x1b[K');
    return (this.io?.now() ?? 0) - this.started;
  }
}
