/**
 * Query history per user, in the browser's localStorage under a key of the user's subject: the
 * last `MAX` distinct queries, newest first. Nothing leaves the browser.
 */
export const MAX_HISTORY = 50;

export interface HistoryEntry {
  query: string;
  /** Milliseconds since the epoch. */
  at: number;
}

export class QueryHistory {
  constructor(
    private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>,
    private readonly user: string,
    private readonly kind: 'sparql' | 'graphql' = 'sparql',
  ) {}

  private get key(): string {
    return `ianode.console.history.${this.kind}.${this.user}`;
  }

  list(): HistoryEntry[] {
    const raw = this.storage.getItem(this.key);
    if (raw === null) return [];
    try {
      const value = JSON.parse(raw) as unknown;
      if (!Array.isArray(value)) return [];
      return value.filter((e): e is HistoryEntry => e !== null && typeof e === 'object' && typeof e.query === 'string' && typeof e.at === 'number');
    } catch {
      return [];
    }
  }

  /** Records `query` as the newest (an earlier copy moves up); keeps at most MAX_HISTORY. */
  add(query: string, at: number): HistoryEntry[] {
    const text = query.trim();
    if (text === '') return this.list();
    const entries = [{ query: text, at }, ...this.list().filter((e) => e.query !== text)].slice(0, MAX_HISTORY);
    this.storage.setItem(this.key, JSON.stringify(entries));
    return entries;
  }

  clear(): void {
    this.storage.removeItem(this.key);
  }
}
