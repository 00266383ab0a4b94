/**
 * Request figures per dataset and endpoint for `GET /$/stats` (docs/operations.md "Admin API"), as
 * Fuseki's `/$/stats` gives them: requests, good and bad ones, and timing. Counts of requests only:
 * nothing in them depends on the data.
 */

export interface EndpointFigures {
  requests: number;
  /** Answered 1xx–3xx. */
  good: number;
  /** Answered 4xx (the caller's mistake or a refusal). */
  bad: number;
  /** Answered 5xx. */
  errors: number;
  /** Mean and largest time to the end of the reply, in milliseconds. */
  meanMs: number;
  maxMs: number;
}

interface Tally {
  requests: number;
  good: number;
  bad: number;
  errors: number;
  totalMs: number;
  maxMs: number;
}

const empty = (): Tally => ({ requests: 0, good: 0, bad: 0, errors: 0, totalMs: 0, maxMs: 0 });

function add(tally: Tally, status: number, ms: number): void {
  tally.requests += 1;
  if (status >= 500) tally.errors += 1;
  else if (status >= 400) tally.bad += 1;
  else tally.good += 1;
  tally.totalMs += ms;
  if (ms > tally.maxMs) tally.maxMs = ms;
}

function figures(tally: Tally): EndpointFigures {
  const { requests, good, bad, errors, maxMs } = tally;
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { requests, good, bad, errors, meanMs: requests === 0 ? 0 : round(tally.totalMs / requests), maxMs: round(maxMs) };
}

export class RequestStats {
  readonly #datasets = new Map<string, { total: Tally; endpoints: Map<string, Tally> }>();

  /** One answered request of `dataset` at `endpoint` (the route without the dataset's prefix). */
  record(dataset: string, endpoint: string, status: number, ms: number): void {
    let entry = this.#datasets.get(dataset);
    if (entry === undefined) {
      entry = { total: empty(), endpoints: new Map() };
      this.#datasets.set(dataset, entry);
    }
    add(entry.total, status, ms);
    let tally = entry.endpoints.get(endpoint);
    if (tally === undefined) {
      tally = empty();
      entry.endpoints.set(endpoint, tally);
    }
    add(tally, status, ms);
  }

  /** A dataset added (zero figures) or removed. */
  add(dataset: string): void {
    if (!this.#datasets.has(dataset)) this.#datasets.set(dataset, { total: empty(), endpoints: new Map() });
  }

  remove(dataset: string): void {
    this.#datasets.delete(dataset);
  }

  snapshot(): Record<string, EndpointFigures & { endpoints: Record<string, EndpointFigures> }> {
    const out: Record<string, EndpointFigures & { endpoints: Record<string, EndpointFigures> }> = {};
    for (const [name, entry] of [...this.#datasets].sort(([a], [b]) => a.localeCompare(b))) {
      out[name] = {
        ...figures(entry.total),
        endpoints: Object.fromEntries([...entry.endpoints].sort(([a], [b]) => a.localeCompare(b)).map(([endpoint, tally]) => [endpoint, figures(tally)])),
      };
    }
    return out;
  }
}

/** `/ds/query` → `query`, `/ds` → `(dataset)`, `/ds/data/*` → `data/*`; unmatched routes → `(no route)`. */
export function endpointOf(route: string | undefined, dataset: string): string {
  if (route === undefined) return '(no route)';
  const prefix = `/${dataset}`;
  if (route === prefix || route === `${prefix}/`) return '(dataset)';
  return route.startsWith(`${prefix}/`) ? route.slice(prefix.length + 1) : route;
}
