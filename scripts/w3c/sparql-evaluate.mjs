/**
 * Runs one W3C SPARQL evaluation test (mf:QueryEvaluationTest, mf:CSVResultFormatTest): loads
 * qt:data into the default graph and each qt:graphData into a named graph (named by the file's IRI)
 * of an in-memory store, plus the local files a FROM / FROM NAMED clause names (the sparql10
 * dataset tests rely on those), runs the engine's executeQuery and compares with mf:result.
 *
 * Loaded as a worker thread by sparql-suites.mjs (so a test that hangs can be stopped); the test
 * description it receives is plain data: { name, query, data: [file], graphData: [{ file, name }],
 * result, lax, csv, deadline } with absolute file paths.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import sparqljs from 'sparqljs';
import { isomorphic } from 'rdf-isomorphic';
import { compareWithExpected, readExpected, readRdfKeys } from './sparql-results.mjs';

const storeModule = new URL('../../packages/store/dist/index.js', import.meta.url);

/** The engine's executeQuery from `moduleFile`, or an Error saying why there is none. */
export async function loadEngine(moduleFile) {
  let engine;
  try {
    engine = await import(pathToFileURL(moduleFile).href);
  } catch (error) {
    return new Error(`evaluator not available: cannot import ${moduleFile} (${error.code ?? error.message})`);
  }
  if (typeof engine.executeQuery !== 'function') return new Error(`evaluator not available: ${moduleFile} exports no executeQuery`);
  return engine.executeQuery;
}

/** Variables named by the top-level ORDER BY: a plain key is its variable; an expression key
 * stands for the variables it mentions (rows equal on those sort equally). */
function orderKeys(parsed) {
  const keys = [];
  const visit = (x) => {
    if (!x || typeof x !== 'object') return;
    if (x.termType === 'Variable') {
      if (!keys.includes(x.value)) keys.push(x.value);
      return;
    }
    for (const v of Array.isArray(x) ? x : Object.values(x)) visit(v);
  };
  for (const condition of parsed?.order ?? []) visit(condition.expression);
  return keys;
}

function materialise(result) {
  switch (result?.type) {
    case 'bindings':
      return { type: 'bindings', variables: [...result.variables], solutions: [...result.solutions] };
    case 'boolean':
      return { type: 'boolean', value: result.value };
    case 'quads':
      return { type: 'quads', quads: [...result.quads] };
    default:
      throw new Error(`executeQuery returned ${JSON.stringify(result?.type)}, not a QueryResult`);
  }
}

const firstLine = (error) => `${error?.name ?? 'Error'}${error?.code ? ` ${error.code}` : ''}: ${String(error?.message ?? error).split('\n')[0]}`;

/** Runs one test; resolves to undefined when it passes, else the reason in a line. */
export async function evaluateTest(test, executeQuery) {
  const { openStore } = await import(storeModule.href);
  const queryIRI = pathToFileURL(test.query).href;
  const text = readFileSync(test.query, 'utf8');
  let parsed;
  try {
    parsed = new sparqljs.Parser({ baseIRI: queryIRI, sparqlStar: false }).parse(text);
  } catch {
    parsed = undefined; // the engine reports its own syntax error below
  }
  const store = await openStore({ defaultLabel: '*' });
  try {
    try {
      await store.transaction(async (tx) => {
        const sink = (s, p, o, g) => tx.add({ s, p, o, g });
        const named = new Set();
        for (const file of test.data) await readRdfKeys(file, sink);
        for (const { file, name } of test.graphData) {
          await readRdfKeys(file, sink, '<' + name);
          named.add(name);
        }
        for (const iri of [...(parsed?.from?.default ?? []), ...(parsed?.from?.named ?? [])].map((t) => t.value)) {
          if (named.has(iri) || !iri.startsWith('file:') || !existsSync(fileURLToPath(iri))) continue;
          await readRdfKeys(fileURLToPath(iri), sink, '<' + iri);
          named.add(iri);
        }
      });
    } catch (error) {
      return `cannot load the test data: ${firstLine(error)}`;
    }
    let actual;
    try {
      actual = materialise(executeQuery(store, text, { baseIRI: queryIRI, deadline: test.deadline }));
    } catch (error) {
      return firstLine(error);
    }
    if (!test.result) return 'the test has no mf:result';
    const graphResult = parsed ? parsed.queryType === 'CONSTRUCT' || parsed.queryType === 'DESCRIBE' : actual.type === 'quads';
    let expected;
    try {
      expected = await readExpected(test.result, graphResult);
    } catch (error) {
      return `cannot read the expected result ${test.result}: ${firstLine(error)}`;
    }
    return await compareWithExpected(actual, expected, { orderBy: orderKeys(parsed), lax: test.lax, csv: test.csv });
  } finally {
    await store.close();
  }
}

/**
 * Runs one ut:UpdateEvaluationTest: ut:data / ut:graphData into a memory store, the request through
 * executeUpdate inside one store transaction (the wiring the graph server uses), then the whole
 * store against the expected ut:data / ut:graphData, graph by graph, up to blank node isomorphism.
 * `test`: { name, request, data: [file], graphData: [{ file, name }], result: { data, graphData },
 * deadline, engineModule }.
 */
export async function evaluateUpdateTest(test, engine) {
  const { openStore } = await import(storeModule.href);
  const { factory } = await import(new URL('../../packages/rdf/dist/index.js', import.meta.url).href);
  const requestIRI = pathToFileURL(test.request).href;
  const text = readFileSync(test.request, 'utf8');
  const load = (target, spec) =>
    target.transaction(async (tx) => {
      const sink = (s, p, o, g) => tx.add({ s, p, o, g });
      for (const file of spec.data) await readRdfKeys(file, sink);
      for (const { file, name } of spec.graphData) await readRdfKeys(file, sink, '<' + name);
    });
  const quadsOf = (ds) => [...ds.match({})].map((q) => factory.quad(ds.term(q.s), ds.term(q.p), ds.term(q.o), q.g === 0 ? factory.defaultGraph() : ds.term(q.g)));
  const store = await openStore({ defaultLabel: '*' });
  const expected = await openStore({ defaultLabel: '*' });
  try {
    try {
      await load(store, test);
      await load(expected, test.result);
    } catch (error) {
      return `cannot load the test data: ${firstLine(error)}`;
    }
    try {
      await store.transaction(async (tx) => {
        const apply = (ops) => {
          for (const op of ops) {
            if (op.type === 'add') tx.add(op.quad);
            else tx.delete(op.quad);
          }
        };
        const options = { baseIRI: requestIRI, deadline: test.deadline, load: engine.createFileLoader('/') };
        await engine.executeUpdate(store.snapshot(), text, { applyOps: apply }, options);
      });
    } catch (error) {
      return test.result.failure ? undefined : firstLine(error);
    }
    if (test.result.failure) return 'the update succeeded, but the test expects it to fail';
    // The whole dataset at once: a blank node may be shared by several graphs.
    const actual = quadsOf(store);
    const wanted = quadsOf(expected);
    if (actual.length !== wanted.length || !isomorphic(actual, wanted)) {
      const graphs = (qs) => [...new Set(qs.map((q) => q.graph.value || 'DEFAULT'))].sort().join(' ');
      return `the store after the update is not the expected one: ${actual.length} quads in ${graphs(actual) || 'no graph'}, expected ${wanted.length} in ${graphs(wanted) || 'no graph'}`;
    }
    return undefined;
  } finally {
    await store.close();
    await expected.close();
  }
}

// As a worker: load the engine once, then answer { id, test } with { id, reason }.
if (!isMainThread && workerData?.role === 'sparql-evaluator') {
  const executeQuery = await loadEngine(workerData.engineModule);
  const engineModule = executeQuery instanceof Error ? undefined : await import(pathToFileURL(workerData.engineModule).href);
  parentPort.on('message', async ({ id, test }) => {
    let reason;
    try {
      if (executeQuery instanceof Error) reason = executeQuery.message;
      else if (test.update) {
        reason = typeof engineModule.executeUpdate === 'function' ? await evaluateUpdateTest(test, engineModule) : 'the engine has no executeUpdate';
      } else reason = await evaluateTest(test, executeQuery);
    } catch (error) {
      reason = `runner error: ${error?.stack ?? error}`;
    }
    parentPort.postMessage({ id, reason });
  });
}
