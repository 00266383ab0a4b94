#!/usr/bin/env node
// `npm run bench:http`: authenticated SPARQL query throughput and latency percentiles over loopback
// at several concurrency levels, against a bare Fastify hello route in the same run. In-process
// stub JWKS + access service (the attribute cache is warm after the first request, as in production).
// Each level runs for BENCH_SECONDS (default 3). Answers are checked (row count) on every request.
/* global fetch, performance */
import { createServer } from 'node:http';
import os from 'node:os';
import Fastify from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createGraphServer } from '@ianode/graph-server';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const levels = (process.env.BENCH_CONCURRENCY ?? '1,8,32').split(',').map(Number);
const ISS = 'http://bench/pool';

const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'b1', alg: 'RS256' };
const stub = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/jwks.json') return res.end(JSON.stringify({ keys: [jwk] }));
  if (req.url.startsWith('/users/lookup/')) return res.end(JSON.stringify({ id: 'u', attributes: ['ianode_read', 'employee'] }));
  res.statusCode = 404;
  res.end('{}');
});
await new Promise((r) => stub.listen(0, '127.0.0.1', r));
const stubUrl = `http://127.0.0.1:${stub.address().port}`;

const graph = await createGraphServer({ security: { jwksUrl: `${stubUrl}/jwks.json`, openIdProviderUrl: ISS, userAttributesUrl: stubUrl, clientIds: ['bench-client'] } }, { logger: false });
let data = '';
for (let i = 0; i < 1000; i++) data += `<http://ex/s${i}> <http://ex/p> ${i} .\n`;
await graph.store.load(data, { format: 'text/turtle', label: 'employee' });
const graphUrl = await graph.listen({ port: 0 });
const token = await new SignJWT({ email: 'u', sub: 'u', token_use: 'id', aud: 'bench-client' }).setProtectedHeader({ alg: 'RS256', kid: 'b1' }).setIssuer(ISS).setIssuedAt().setExpirationTime('1h').sign(privateKey);

const hello = Fastify();
hello.get('/', async () => ({ hello: 'world' }));
const helloUrl = await hello.listen({ port: 0, host: '127.0.0.1' });

const QUERY = encodeURIComponent('SELECT ?s WHERE { ?s <http://ex/p> ?o FILTER(?o < 10) }');
const targets = {
  'fastify hello': { url: `${helloUrl}/`, headers: {}, check: (t) => t.includes('world') },
  'authenticated SPARQL (10 rows of 1000)': {
    url: `${graphUrl}/ds?query=${QUERY}`,
    headers: { authorization: `Bearer ${token}` },
    check: (t) => JSON.parse(t).results.bindings.length === 10,
  },
};

async function run(target, concurrency) {
  const latencies = [];
  const end = Date.now() + seconds * 1000;
  let errors = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const response = await fetch(target.url, { headers: target.headers });
      const text = await response.text();
      if (response.status !== 200 || !target.check(text)) errors++;
      latencies.push(performance.now() - t0);
    }
  }));
  latencies.sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
  return { rps: Math.round(latencies.length / seconds), p50: p(0.5), p95: p(0.95), p99: p(0.99), errors };
}

console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${seconds} s per level (client and servers in one process)`);
console.log('target'.padEnd(42), 'conc', 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'p99 ms'.padStart(8), 'errors');
for (const concurrency of levels) {
  for (const [name, target] of Object.entries(targets)) {
    const r = await run(target, concurrency);
    console.log(name.padEnd(42), String(concurrency).padStart(4), String(r.rps).padStart(8), r.p50.padStart(8), r.p95.padStart(8), r.p99.padStart(8), r.errors);
  }
}
await graph.close();
await hello.close();
stub.close();
