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

// As a worker: load the engine once, then answer { id, test } with { id, reason }.
if (!isMainThread && workerData?.role === 'sparql-evaluator') {
  const executeQuery = await loadEngine(workerData.engineModule);
  parentPort.on('message', async ({ id, test }) => {
    let reason;
    try {
      reason = executeQuery instanceof Error ? executeQuery.message : await evaluateTest(test, executeQuery);
    } catch (error) {
      reason = `runner error: ${error?.stack ?? error}`;
    }
    parentPort.postMessage({ id, reason });
  });
}
