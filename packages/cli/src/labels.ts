/**
 * `ianode labels stats|quads|relabel --server URL`: label administration over the graph server's
 * API (docs/graph-server.md "Label administration"; docs/operations.md "Label administration from
 * the command line"). The server does every check (the `admin` permission, the caller's view, the
 * write boundary) and the audit record; this is only its client. `$IDP_ID_TOKEN` is sent as the
 * bearer token when set, as `ianode load`, `query` and `kafka status` do; the token is never printed.
 */
import type { Output } from './kafka.js';

export interface LabelsTarget {
  /** The graph server's root, e.g. http://localhost:3030 (a dataset URL's path is ignored). */
  server: string;
  /** The dataset's name (default `ds`). */
  dataset: string;
  token: string | undefined;
}

export interface LabelsQuadsOptions extends LabelsTarget {
  label: string;
  limit: number | undefined;
  json: boolean;
}

export interface LabelsRelabelOptions extends LabelsTarget {
  pattern: { s?: string; p?: string; o?: string; g?: string };
  from: string | undefined;
  to: string;
}

const processOutput: Output = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

function endpoint(target: LabelsTarget, path: string): string {
  return `${new URL(target.server).origin}/${encodeURIComponent(target.dataset)}/labels/${path}`;
}

/** One request; a failure to connect or a non-2xx answer is reported on stderr (the server's own
 * message, which names what was wrong) and gives undefined (exit 1). */
async function call(what: string, url: string, target: LabelsTarget, init: RequestInit, out: Output): Promise<Response | undefined> {
  const headers = new Headers(init.headers);
  if (target.token !== undefined && target.token !== '') headers.set('authorization', `Bearer ${target.token}`);
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    out.stderr(`ianode labels ${what}: the graph server at ${url} did not answer: ${cause ?? (error as Error).message}\n`);
    return undefined;
  }
  if (!response.ok) {
    const text = (await response.text()).trim();
    let message = text;
    try {
      const body = JSON.parse(text) as { message?: unknown; error?: unknown };
      if (typeof body.message === 'string') message = body.message;
    } catch {
      // not JSON: the text as it is
    }
    const hint = response.status === 401 ? ' (no or invalid token: set $IDP_ID_TOKEN, e.g. eval "$(ianode token admin@ianode.local)")'
      : response.status === 403 ? ' (the token\'s user does not have the dataset\'s admin permission)' : '';
    out.stderr(`ianode labels ${what}: ${url}: ${response.status} ${response.statusText}${hint}${message === '' ? '' : `: ${message.slice(0, 2000)}`}\n`);
    return undefined;
  }
  return response;
}

/** `ianode labels stats`: the labels in use in the caller's view with their quad counts. */
export async function labelsStats(target: LabelsTarget & { json: boolean }, out: Output = processOutput): Promise<number> {
  const response = await call('stats', endpoint(target, 'stats'), target, { headers: { accept: 'application/json' } }, out);
  if (response === undefined) return 1;
  const text = await response.text();
  if (target.json) {
    out.stdout(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  }
  const body = JSON.parse(text) as { defaultLabel: string; quads: number; labels: { label: string; quads: number; default?: boolean }[] };
  const rows = body.labels.map((l) => [l.label + (l.default === true ? ' (the default label)' : ''), String(l.quads)] as const);
  const width = Math.max(5, ...rows.map(([l]) => l.length));
  const count = Math.max(5, ...rows.map(([, q]) => q.length), String(body.quads).length);
  const line = (a: string, b: string) => `${a.padEnd(width)}  ${b.padStart(count)}\n`;
  out.stdout(line('label', 'quads') + rows.map(([l, q]) => line(l, q)).join('') + line('(all)', String(body.quads)));
  return 0;
}

/** `ianode labels quads --label L`: the quads carrying L (N-Quads, or the server's JSON with --json). */
export async function labelsQuads(opts: LabelsQuadsOptions, out: Output = processOutput): Promise<number> {
  const params = new URLSearchParams({ label: opts.label });
  if (opts.limit !== undefined) params.set('limit', String(opts.limit));
  const url = `${endpoint(opts, 'quads')}?${params.toString()}`;
  const response = await call('quads', url, opts, { headers: { accept: opts.json ? 'application/json' : 'application/n-quads' } }, out);
  if (response === undefined) return 1;
  const text = await response.text();
  out.stdout(text === '' || text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

/** `ianode labels relabel --to L [--from L] [--s T] [--p T] [--o T] [--g T]`: one transaction on the server. */
export async function labelsRelabel(opts: LabelsRelabelOptions, out: Output = processOutput): Promise<number> {
  const body = JSON.stringify({ pattern: opts.pattern, ...(opts.from === undefined ? {} : { from: opts.from }), to: opts.to });
  const response = await call('relabel', endpoint(opts, 'relabel'), opts, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body }, out);
  if (response === undefined) return 1;
  const text = (await response.text()).trim();
  out.stdout(`${text}\n`);
  return 0;
}
