/**
 * The W3C SPARQL 1.0 and 1.1 suites for scripts/w3c.mjs, one group per test folder
 * (`sparql10/basic`, `sparql11/aggregates` ...), found by following the mf:include lists of
 * sparql10/manifest.ttl, sparql10/extended-manifest-evaluation.ttl and sparql11/manifest-all.ttl.
 *
 *   mf:PositiveSyntaxTest(11) / mf:NegativeSyntaxTest(11): the query must parse / must be
 *     rejected by @ianode/sparql's parseQuery (sparqljs plus the static checks it adds, such as
 *     blank-node labels shared across basic graph patterns), with the query file as base IRI.
 *   mf:QueryEvaluationTest, mf:CSVResultFormatTest: sparql-evaluate.mjs in a worker thread, one
 *     test at a time, each with a time limit ($IANODE_W3C_TIMEOUT_MS, default 10 s: the engine gets
 *     it as its deadline, and the worker is stopped if it runs on).
 *   SPARQL Update (every folder of sparql11/manifest-sparql11-update.ttl, reached from manifest-all.ttl):
 *     mf:PositiveUpdateSyntaxTest11 / mf:NegativeUpdateSyntaxTest11 through parseUpdate;
 *     mf:UpdateEvaluationTest in the worker (sparql-evaluate.mjs evaluateUpdateTest): ut:data /
 *     ut:graphData loaded, ut:request run by executeUpdate in one store transaction, the store
 *     compared with the mf:result's ut:data / ut:graphData up to blank node isomorphism.
 *   Whole manifests or single tests we do not run (entailment, SERVICE) are listed with a reason in
 *     sparql-skip.json. The SPARQL Protocol, Graph Store Protocol and Service Description folders
 *     are HTTP exchanges: http-suites.mjs runs them against the graph server.
 *
 * The engine is executeQuery from packages/sparql/dist/index.js, or from the module named by
 * $IANODE_W3C_SPARQL_ENGINE (to run the suites against another implementation of ExecuteQuery).
 * When there is none, every evaluation test fails with "evaluator not available".
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HTTP_MANIFESTS } from './http-suites.mjs';
import { fileOf, MF, objectOf, objectsOf, PUBLISHED_ROOT, SUITES_ROOT, moduleUnderTest, TEST_TIMEOUT_MS, QT, readManifest, RDFS, UT } from './manifest.mjs';
import { loadEngine } from './sparql-evaluate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
// The same folder scripts/w3c.mjs reads.
const suitesRoot = SUITES_ROOT;
const engineModule = moduleUnderTest('IANODE_W3C_SPARQL_ENGINE', 'packages/sparql/dist/index.js');
const timeoutMs = TEST_TIMEOUT_MS;

const TOP_MANIFESTS = ['sparql/sparql10/manifest.ttl', 'sparql/sparql10/extended-manifest-evaluation.ttl', 'sparql/sparql11/manifest-all.ttl'];

const relative = (file) => path.relative(suitesRoot, file).split(path.sep).join('/');
const httpManifests = new Set(Object.values(HTTP_MANIFESTS));

/** Skips: a test id, or a manifest's published IRI (without `.ttl`) for all of its tests. */
function loadSkips() {
  const file = path.join(here, 'sparql-skip.json');
  const skips = JSON.parse(readFileSync(file, 'utf8'));
  delete skips.$comment;
  for (const [id, reason] of Object.entries(skips)) {
    if (typeof reason !== 'string' || reason.trim() === '') throw new Error(`${file}: the skip of ${id} has no reason`);
  }
  return skips;
}
const skips = loadSkips();
/** The published IRI of a manifest file, without `.ttl` (the key of a whole-manifest skip). */
const manifestKey = (file) => PUBLISHED_ROOT + relative(file).replace(/\.ttl$/, '');

// ---- syntax tests ----

let parseQuery;
let parseUpdate;
async function runSyntaxTest(entry, positive, update = false) {
  const file = fileOf(entry.action);
  const text = readFileSync(file, 'utf8');
  if (parseQuery === undefined) {
    ({ parseQuery, parseUpdate } = await import(pathToFileURL(path.join(repoRoot, 'packages/sparql/dist/index.js')).href));
  }
  try {
    (update ? parseUpdate : parseQuery)(text, { baseIRI: pathToFileURL(file).href });
  } catch (error) {
    return positive ? `parseQuery rejects it: ${String(error.message).split('\n')[0]}` : undefined;
  }
  return positive ? undefined : 'parseQuery accepts it, but it must be rejected';
}

// ---- evaluation tests, in a worker ----

let engineStatus; // undefined = not checked; true = available; an Error = not available

async function engineAvailable() {
  if (engineStatus === undefined) {
    const engine = await loadEngine(engineModule);
    engineStatus = engine instanceof Error ? engine : true;
    if (engine instanceof Error) console.log(`sparql: ${engine.message}; every evaluation test fails until it is`);
  }
  return engineStatus === true ? undefined : engineStatus.message;
}

/** One worker, reused until a test overruns its time (then it is stopped and a new one started). */
class EvaluationWorker {
  worker = undefined;
  pending = undefined;
  nextId = 0;

  start() {
    const worker = new Worker(new URL('./sparql-evaluate.mjs', import.meta.url), {
      workerData: { role: 'sparql-evaluator', engineModule },
      resourceLimits: { maxOldGenerationSizeMb: 4096 },
    });
    worker.on('message', ({ id, reason }) => {
      if (this.pending?.id === id) this.pending.resolve(reason);
    });
    const died = (why) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.pending?.resolve(why);
    };
    worker.on('error', (error) => died(`the evaluation worker died: ${error?.code ?? ''} ${String(error?.message ?? error).split('\n')[0]}`));
    worker.on('exit', (code) => died(`the evaluation worker exited (${code})`));
    // The runner exits when its tests are done, worker or not (after the listeners, which ref).
    worker.unref();
    this.worker = worker;
  }

  run(test) {
    if (!this.worker) this.start();
    return new Promise((resolve) => {
      const id = ++this.nextId;
      // A little grace past the engine's deadline, for loading and comparing.
      const timer = setTimeout(() => {
        const worker = this.worker;
        this.worker = undefined;
        worker?.terminate();
        finish(`timed out after ${timeoutMs / 1000} s`);
      }, timeoutMs + 2_000);
      const finish = (reason) => {
        clearTimeout(timer);
        if (this.pending?.id === id) this.pending = undefined;
        resolve(reason);
      };
      this.pending = { id, resolve: finish };
      this.worker.postMessage({ id, test: { ...test, deadline: Date.now() + timeoutMs } });
    });
  }
}

const evaluator = new EvaluationWorker();

/** The plain description of an evaluation test for the worker (see sparql-evaluate.mjs). */
function describeEvaluation(entry, manifest) {
  const { store } = manifest;
  const action = entry.action;
  const query = objectOf(store, action, QT + 'query');
  if (!query) return 'the test has no qt:query';
  const graphData = objectsOf(store, action, QT + 'graphData').map((g) => {
    if (g.termType === 'NamedNode') return { file: fileOf(g), name: g.value };
    // [ qt:graph <file> ; rdfs:label "name" ] names the graph by its label.
    const file = objectOf(store, g, QT + 'graph');
    if (!file) return { file: undefined, name: undefined };
    return { file: fileOf(file), name: objectOf(store, g, RDFS + 'label')?.value ?? file.value };
  });
  if (graphData.some((g) => g.file === undefined)) return 'a qt:graphData names no file';
  return {
    name: entry.name,
    query: fileOf(query),
    data: objectsOf(store, action, QT + 'data').map(fileOf),
    graphData,
    result: entry.result ? fileOf(entry.result) : undefined,
    lax: objectOf(store, entry.node, MF + 'resultCardinality')?.value === MF + 'LaxCardinality',
    csv: entry.types.includes(MF + 'CSVResultFormatTest'),
  };
}

/** The plain description of an update evaluation test (ut:request, ut:data, ut:graphData). */
function describeUpdate(entry, manifest) {
  const { store } = manifest;
  const part = (node) => {
    if (!node) return { data: [], graphData: [] };
    const graphData = objectsOf(store, node, UT + 'graphData').map((g) => {
      const file = objectOf(store, g, UT + 'graph');
      return { file: file && fileOf(file), name: objectOf(store, g, RDFS + 'label')?.value ?? file?.value };
    });
    return { data: objectsOf(store, node, UT + 'data').map(fileOf), graphData };
  };
  const request = objectOf(store, entry.action, UT + 'request');
  if (!request) return 'the test has no ut:request';
  const action = part(entry.action);
  const result = part(entry.result);
  if ([...action.graphData, ...result.graphData].some((g) => !g.file)) return 'a ut:graphData names no file';
  const outcome = entry.result ? objectOf(store, entry.result, UT + 'result') : undefined;
  return { update: true, name: entry.name, request: fileOf(request), ...action, result: { ...result, failure: outcome?.value === UT + 'failure' } };
}

async function runUpdateTest(entry, manifest) {
  const unavailable = await engineAvailable();
  if (unavailable) return unavailable;
  const test = describeUpdate(entry, manifest);
  if (typeof test === 'string') return test;
  return evaluator.run(test);
}

async function runEvaluationTest(entry, manifest) {
  const unavailable = await engineAvailable();
  if (unavailable) return unavailable;
  const test = describeEvaluation(entry, manifest);
  if (typeof test === 'string') return test;
  return evaluator.run(test);
}

// ---- the suites ----

/** Runs one entry of the group whose top manifest is `groupFile`; undefined = passed, a string =
 * why it failed, { skip } = skipped. `manifest` is the entry's own (the runner follows mf:include). */
async function runSparqlTest(entry, manifest, groupFile) {
  const skip = skips[entry.id] ?? skips[manifestKey(manifest.file)] ?? skips[manifestKey(groupFile)];
  if (skip !== undefined) return { skip };
  switch (entry.type) {
    case 'PositiveSyntaxTest':
    case 'PositiveSyntaxTest11':
      return runSyntaxTest(entry, true);
    case 'NegativeSyntaxTest':
    case 'NegativeSyntaxTest11':
      return runSyntaxTest(entry, false);
    case 'PositiveUpdateSyntaxTest11':
      return runSyntaxTest(entry, true, true);
    case 'NegativeUpdateSyntaxTest11':
      return runSyntaxTest(entry, false, true);
    case 'UpdateEvaluationTest':
      return runUpdateTest(entry, manifest);
    case 'QueryEvaluationTest':
    case 'CSVResultFormatTest':
      return runEvaluationTest(entry, manifest);
    default:
      return `unsupported test type ${entry.types.join(', ')}`;
  }
}

function groupName(file) {
  const rel = relative(file); // sparql/sparql11/aggregates/manifest.ttl
  const parts = rel.replace(/^sparql\//, '').replace(/\.ttl$/, '').split('/');
  if (parts[parts.length - 1] === 'manifest') parts.pop();
  return parts.join('/');
}

function buildSuites() {
  const present = TOP_MANIFESTS.filter((m) => existsSync(path.join(suitesRoot, m)));
  if (present.length === 0) {
    // Let w3c.mjs report the suites as missing.
    return [{ name: 'sparql', manifest: TOP_MANIFESTS[2], run: () => 'unreachable: the suites are missing' }];
  }
  const suites = [];
  for (const top of present) {
    // An include that is not there (sparql11/manifest-all.ttl names entailment/, which the
    // suite no longer ships) is left out.
    for (const include of readManifest(path.join(suitesRoot, top), suitesRoot).includes) {
      if (!existsSync(include)) continue;
      // The protocol, graph store and service description folders are HTTP exchanges: http-suites.mjs.
      if (httpManifests.has(relative(include))) continue;
      suites.push({ name: groupName(include), manifest: relative(include), run: (entry, manifest) => runSparqlTest(entry, manifest, include) });
    }
  }
  return suites;
}

/** Suites for scripts/w3c.mjs: { name, manifest, run }. */
export const sparqlSuites = buildSuites();
