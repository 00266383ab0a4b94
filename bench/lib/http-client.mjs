/**
 * The client side of bench/http.mjs: SPARQL requests over HTTP (keep-alive, `text/csv` answers
 * counted by lines), closed-loop clients for a fixed time, percentiles, free ports, waiting for a
 * service, the load average.
 */
import { request as httpRequest, Agent } from 'node:http';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** One keep-alive agent for every request of the bench (connections reused per client). */
export const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * @typedef {object} HttpAnswer
 * @property {number} status
 * @property {Buffer} body
 * @property {Record<string, string | string[] | undefined>} headers
 */

/**
 * One HTTP request; the whole body is read. Rejects on a network error or after `timeoutMs`.
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string | Buffer | import('node:stream').Readable, timeoutMs?: number }} [options]
 * @returns {Promise<HttpAnswer>}
 */
export function httpCall(url, { method = 'GET', headers = {}, body, timeoutMs = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const attempt = (/** @type {boolean} */ retried) => {
      const req = httpRequest(url, { method, headers, agent, timeout: timeoutMs }, (res) => {
        /** @type {Buffer[]} */
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error) => {
        // A kept-alive connection the server closed while it was idle (Virtuoso after its
        // KeepAliveTimeout): sent again once on a new connection, as Node's documentation advises.
        const code = /** @type {NodeJS.ErrnoException} */ (error).code;
        if (!retried && req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE') && (body === undefined || typeof body === 'string' || Buffer.isBuffer(body))) attempt(true);
        else reject(error);
      });
      if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
      else body.pipe(req);
    };
    attempt(false);
  });
}

/**
 * Rows of a `text/csv` SPARQL answer: its lines minus the header. The bench's literals hold no
 * line breaks (lib/bsbm.mjs writes pseudo-words), so every line is one row.
 * @param {Buffer} body
 */
export function csvRows(body) {
  if (body.length === 0) return 0;
  let lines = 0;
  for (let i = body.indexOf(10); i >= 0; i = body.indexOf(10, i + 1)) lines++;
  if (body[body.length - 1] !== 10) lines++;
  return lines - 1;
}

/**
 * @typedef {object} Endpoint how one engine takes a SPARQL query over HTTP
 * @property {string} url the query endpoint (a form POST of `query=` goes there)
 * @property {Record<string, string>} [params] more form fields (Virtuoso's `default-graph-uri`)
 * @property {() => Record<string, string>} [headers] more headers, read per request (ianode's bearer token)
 */

/**
 * A SPARQL query as a form POST, answer in CSV; resolves with its status, rows and milliseconds.
 * @param {Endpoint} endpoint @param {string} text @param {number} [timeoutMs]
 */
export async function sparql(endpoint, text, timeoutMs = 600_000) {
  const form = new URLSearchParams({ query: text, ...(endpoint.params ?? {}) }).toString();
  const started = performance.now();
  const answer = await httpCall(endpoint.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/csv', ...(endpoint.headers?.() ?? {}) },
    body: form,
    timeoutMs,
  });
  const ms = performance.now() - started;
  return { status: answer.status, rows: answer.status === 200 ? csvRows(answer.body) : -1, ms, body: answer.body };
}

/**
 * @typedef {object} CellResult
 * @property {number} clients
 * @property {number} completed answers with status 200 and the expected row count
 * @property {number} errors other answers and failures
 * @property {string} [firstError]
 * @property {number} seconds from the start to the last answer
 * @property {number} qps completed / seconds
 * @property {number} p50 ms
 * @property {number} p99 ms
 */

/**
 * `clients` closed loops of the query for `seconds` (no new request after that; the ones under way
 * finish and count). Every answer's row count must be `expectRows`.
 * @param {Endpoint} endpoint @param {string} text
 * @param {{ clients: number, seconds: number, expectRows: number, timeoutMs?: number }} options
 * @returns {Promise<CellResult>}
 */
export async function runCell(endpoint, text, { clients, seconds, expectRows, timeoutMs = 600_000 }) {
  /** @type {number[]} */
  const latencies = [];
  let errors = 0;
  /** @type {string | undefined} */
  let firstError;
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  let last = started;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < stopAt) {
      try {
        const r = await sparql(endpoint, text, timeoutMs);
        if (r.status === 200 && r.rows === expectRows) latencies.push(r.ms);
        else {
          errors++;
          firstError ??= r.status === 200 ? `${r.rows} rows, expected ${expectRows}` : `HTTP ${r.status}: ${r.body.toString('utf8', 0, 200)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= /** @type {Error} */ (error).message;
        await sleep(100);
      }
      last = performance.now();
    }
  }));
  const elapsed = (last - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    clients,
    completed: latencies.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    seconds: elapsed,
    qps: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

/** Nearest-rank percentile of sorted values (NaN when empty). @param {number[]} sorted @param {number} q */
export function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return /** @type {number} */ (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]);
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `check` until it resolves true; rejects after `timeoutMs` or when `failed()` names a reason
 * (the process exited).
 * @param {() => Promise<boolean>} check @param {{ timeoutMs: number, what: string, failed?: () => string | undefined }} options
 */
export async function waitFor(check, { timeoutMs, what, failed = () => undefined }) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const reason = failed();
    if (reason) throw new Error(`${what}: ${reason}`);
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    await sleep(250);
  }
  throw new Error(`${what}: not ready within ${Math.round(timeoutMs / 1000)} s`);
}

/** GET answers 2xx. @param {string} url */
export async function httpOk(url) {
  const r = await httpCall(url, { timeoutMs: 5_000 });
  return r.status >= 200 && r.status < 300;
}

/** The 1, 5 and 15 minute load averages, two decimals. */
export function loadAverage() {
  return loadavg().map((x) => Number(x.toFixed(2)));
}
