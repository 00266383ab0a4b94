/**
 * The datasets added over the admin API (`POST /$/datasets`), remembered in
 * `<server.dataDir>/datasets.json` and reopened at start (docs/operations.md "Admin API"). Each
 * persistent one stores in `<server.dataDir>/<name>`. The file is rewritten whole, atomically
 * (@ianode/store writeFileAtomic: temporary file, fsync, rename, fsync of the folder); a file that does not read as this format
 * stops the start, naming it (never guessed around).
 */
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ATOMIC_TEMP_FILE, writeFileAtomic } from '@ianode/store';
import { resolveDatasetConfig, type DatasetConfig, type DatasetConfigInput } from './config.js';

export interface RegistryEntry {
  name: string;
  /** Stored in `<dataDir>/<name>` (else in memory: it comes back empty after a restart). */
  persistent: boolean;
  /** The dataset's settings as they were given (without name and storage). */
  config: DatasetConfigInput;
  /** When it was added (ISO time). */
  added: string;
}

const FORMAT = 'ianode datasets 1';

export class DatasetRegistry {
  readonly dataDir: string | undefined;
  readonly file: string | undefined;
  #entries: RegistryEntry[] = [];
  #writing: Promise<void> = Promise.resolve();

  constructor(dataDir: string | undefined) {
    this.dataDir = dataDir === undefined ? undefined : path.resolve(dataDir);
    this.file = this.dataDir === undefined ? undefined : path.join(this.dataDir, 'datasets.json');
  }

  /** The entries of the file (none without `server.dataDir` or before the first add). */
  async read(): Promise<RegistryEntry[]> {
    if (this.file === undefined || this.dataDir === undefined) return [];
    // A temporary file of a write a stop interrupted (the file itself is whole: old or new).
    const names = await readdir(this.dataDir).catch(() => [] as string[]);
    for (const name of names) if (ATOMIC_TEMP_FILE.exec(name)?.[1] === 'datasets.json') await unlink(path.join(this.dataDir, name)).catch(() => undefined);
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`${this.file} is damaged (not JSON: ${(error as Error).message}); restore it from a backup or remove the broken entry by hand`);
    }
    const body = parsed as { format?: unknown; datasets?: unknown };
    if (body === null || typeof body !== 'object' || body.format !== FORMAT || !Array.isArray(body.datasets)) {
      throw new Error(`${this.file} is not an ianode datasets file (expected {"format": "${FORMAT}", "datasets": [...]})`);
    }
    this.#entries = body.datasets.map((entry: unknown, i: number) => {
      const e = entry as Partial<RegistryEntry>;
      if (e === null || typeof e !== 'object' || typeof e.name !== 'string' || typeof e.persistent !== 'boolean' || e.config === null || typeof e.config !== 'object') {
        throw new Error(`${this.file}: datasets[${i}] is not an entry {name, persistent, config, added}`);
      }
      return { name: e.name, persistent: e.persistent, config: e.config, added: typeof e.added === 'string' ? e.added : '' };
    });
    return [...this.#entries];
  }

  /** Whether `name` was added over the API (and may be removed over it). */
  has(name: string): boolean {
    return this.#entries.some((entry) => entry.name === name);
  }

  /** The folder of a persistent dataset added over the API. */
  folderOf(name: string): string {
    if (this.dataDir === undefined) throw new Error('no server.dataDir');
    return path.join(this.dataDir, name);
  }

  /** An entry as a dataset configuration (validated as the configuration file's datasets are). */
  resolve(entry: RegistryEntry): DatasetConfig {
    return resolveDatasetConfig({ ...entry.config, name: entry.name, storage: entry.persistent ? this.folderOf(entry.name) : undefined }, `${this.file ?? 'datasets'}: ${entry.name}`);
  }

  async add(entry: RegistryEntry): Promise<void> {
    this.#entries = [...this.#entries.filter((e) => e.name !== entry.name), entry];
    await this.#write();
  }

  async remove(name: string): Promise<void> {
    this.#entries = this.#entries.filter((e) => e.name !== name);
    await this.#write();
  }

  /** Writes run one after another, each with the entries as they are when it starts, so the last
   * one to finish holds the newest list. */
  #write(): Promise<void> {
    const next = this.#writing.then(() => this.#writeNow());
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async #writeNow(): Promise<void> {
    if (this.file === undefined || this.dataDir === undefined) return;
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const text = JSON.stringify({ format: FORMAT, datasets: this.#entries }, null, 2) + '\n';
    await writeFileAtomic(this.file, (handle) => handle.writeFile(text));
  }
}
