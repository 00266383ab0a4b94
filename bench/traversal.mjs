#!/usr/bin/env node
// GraphQL 3-level traversal over BSBM-like data (100k triples by default, fixed seed), through an
// ABAC view as the graph server uses it. For each of N products: product -> outRels -> range ->
// outRels -> range -> properties (and the product's offers/reviews via inRels), reporting latency
// percentiles and dataset scans per request. The same traversal as one SPARQL query on the same
// view is timed in the same run as a peer, and every GraphQL answer is checked against it (the
// number of level-3 literal values must equal the SPARQL row count).
//
//   npm run bench:traversal   (or: npm run build && node bench/traversal.mjs)   [BENCH_TRIPLES=100000 BENCH_PRODUCTS=200]
/* global performance */
import os from 'node:os';
import { openStore } from '@ianode/store';
import { executeQuery } from '@ianode/sparql';
import { executeGraphql } from '@ianode/graphql';
import { bsbmChunks } from './lib/bsbm.mjs';

const triples = Number(process.env.BENCH_TRIPLES ?? 100_000);
const productCount = Number(process.env.BENCH_PRODUCTS ?? 200);
const VOCAB = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/';

console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`);
const store = await openStore({});
let t = performance.now();
const loaded = await store.load(bsbmChunks({ triples, seed: 42 }), { format: 'application/n-triples', label: 'public' });
console.log(`loaded ${loaded.quads} triples (labelled "public") in ${((performance.now() - t) / 1000).toFixed(2)} s`);
if (loaded.quads !== triples) throw new Error(`expected ${triples} triples, loaded ${loaded.quads}`);
const view = store.view((label) => label === 'public');

const select = (query) => {
  const result = executeQuery(view, query);
  if (result.type !== 'bindings') throw new Error('not a SELECT');
  return [...result.solutions];
};
const products = select(`SELECT ?p WHERE { ?p a <${VOCAB}Product> } ORDER BY ?p LIMIT ${productCount}`).map((row) => row.get('p').value);
if (products.length !== productCount) throw new Error(`expected ${productCount} products, found ${products.length}`);

const QUERY = `query Traverse($uri: String!) {
  node(uri: $uri) {
    id properties(limit: 250) { predicate value }
    inRels(limit: 250) { domain { id properties(limit: 5) { value } } }
    outRels(limit: 250) { predicate range {
      id properties(limit: 250) { value }
      outRels(limit: 250) { predicate range { id properties(limit: 250) { predicate value } } }
    } }
  }
}`;
const SPARQL = (uri) => `SELECT ?o1 ?o2 ?v WHERE {
  <${uri}> ?p1 ?o1 FILTER(!isLiteral(?o1))
  ?o1 ?p2 ?o2 FILTER(!isLiteral(?o2))
  ?o2 ?p3 ?v FILTER(isLiteral(?v))
}`;
const options = { limits: { maxComplexity: 1e12 } };

function level3Values(data) {
  let n = 0;
  for (const rel of data.node.outRels) for (const rel2 of rel.range.outRels) n += rel2.range.properties.length;
  return n;
}

function percentiles(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `p50 ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, max ${s[s.length - 1].toFixed(2)} ms`;
}

// Warm up (JIT, dictionary caches), then measure.
for (const uri of products.slice(0, 20)) executeGraphql(view, { query: QUERY, variables: { uri } }, options);

const gqlTimes = [];
const sparqlTimes = [];
const scans = [];
let fields = 0;
for (const uri of products) {
  t = performance.now();
  const outcome = executeGraphql(view, { query: QUERY, variables: { uri } }, options);
  const json = JSON.stringify(outcome.body);
  gqlTimes.push(performance.now() - t);
  if (outcome.body.errors) throw new Error(JSON.stringify(outcome.body.errors));
  scans.push(outcome.scans);
  fields += (json.match(/":/g) ?? []).length;

  t = performance.now();
  const rows = select(SPARQL(uri)).length;
  sparqlTimes.push(performance.now() - t);
  const got = level3Values(outcome.body.data);
  if (got !== rows) throw new Error(`${uri}: GraphQL has ${got} level-3 values, SPARQL ${rows} rows`);
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`\n3-level traversal, ${products.length} products (answers checked against SPARQL: level-3 values = rows)`);
console.log(`  GraphQL  ${percentiles(gqlTimes)}; scans/request mean ${mean(scans).toFixed(1)}, max ${Math.max(...scans)}; ${(fields / products.length).toFixed(0)} fields/answer`);
console.log(`  SPARQL   ${percentiles(sparqlTimes)} (same traversal as one SELECT, level-3 rows only)`);
await store.close();
