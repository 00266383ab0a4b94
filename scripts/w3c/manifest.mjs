/**
 * Generic reading of W3C test manifests (https://www.w3.org/TR/rdf11-testcases/ and the SPARQL
 * test manifests): any suite can use it, RDF syntax or SPARQL.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DataFactory, Parser, Store } from 'n3';

export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
export const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';
export const QT = 'http://www.w3.org/2001/sw/DataAccess/tests/test-query#';
export const UT = 'http://www.w3.org/2009/sparql/tests/test-update#';
export const RDFT = 'http://www.w3.org/ns/rdftest#';
/** HTTP in RDF (https://www.w3.org/TR/HTTP-in-RDF10/): the protocol and graph store manifests. */
export const HT = 'http://www.w3.org/2011/http#';
export const HTS = 'http://www.w3.org/2011/http-statusCodes#';
export const CNT = 'http://www.w3.org/2011/content#';

/** Where the published copies of the suites live; test ids use it so they do not depend on
 * where the suites were checked out. */
export const PUBLISHED_ROOT = 'https://w3c.github.io/rdf-tests/';

/** The folder holding the suites' rdf/ and sparql/ (a checkout of the W3C rdf-tests repository):
 * $IANODE_W3C_DIR, else shared/w3c beside the repository's folder, where the CI machine keeps it. */
export const SUITES_ROOT = process.env.IANODE_W3C_DIR
  ? path.resolve(process.env.IANODE_W3C_DIR)
  : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/w3c');

/** The module under test: the file $`envName` names, else `relative` in this repository. */
export function moduleUnderTest(envName, relative) {
  const given = process.env[envName];
  return given ? path.resolve(given) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..', relative);
}

/** Per-test time limit (ms): $IANODE_W3C_TIMEOUT_MS, else 10 s. */
export const TEST_TIMEOUT_MS = Number(process.env.IANODE_W3C_TIMEOUT_MS ?? 10_000);

const { namedNode } = DataFactory;

/** The single object of (subject, predicate), or undefined. */
export function objectOf(store, subject, predicate) {
  return store.getObjects(subject, namedNode(predicate), null)[0];
}

/** Every object of (subject, predicate). */
export function objectsOf(store, subject, predicate) {
  return store.getObjects(subject, namedNode(predicate), null);
}

/** The members of the RDF collection starting at `head`. */
export function listItems(store, head) {
  const items = [];
  for (let node = head; node && node.value !== RDF + 'nil'; node = objectOf(store, node, RDF + 'rest')) {
    const first = objectOf(store, node, RDF + 'first');
    if (first) items.push(first);
  }
  return items;
}

/** The local path of a `file:` IRI term (an mf:action, mf:result, qt:data ...). */
export function fileOf(term) {
  return fileURLToPath(term.value);
}

/**
 * Reads the manifest at `file`. `suitesRoot` is the folder holding `rdf/` and `sparql/`; it turns
 * test IRIs into stable ids under PUBLISHED_ROOT (e.g. `.../rdf/rdf11/rdf-turtle/manifest#IRI_subject`).
 *
 * Returns { file, dir, label, assumedTestBase, includes: [absolute manifest paths], store,
 * entries: [{ id, name, comment, type (local name under rdft:/mf:/ut:), types, action, result,
 * approval, requires (local names of mf:requires), node }] }; action and result are RDF/JS terms
 * (IRIs of local files or blank nodes to read further with objectOf/objectsOf, or readConnection
 * for an ht:Connection).
 */
export function readManifest(file, suitesRoot) {
  const baseIRI = pathToFileURL(file).href;
  const store = new Store(new Parser({ baseIRI }).parse(readFileSync(file, 'utf8')));
  // Usually `<>`; a few SPARQL 1.0 manifests (bnode-coreference, construct) say `[] a mf:Manifest`.
  const self = namedNode(baseIRI);
  const manifest = store.countQuads(self, null, null, null) > 0 ? self : (store.getSubjects(namedNode(RDF + 'type'), namedNode(MF + 'Manifest'), null)[0] ?? self);
  const relative = path.relative(suitesRoot, file).split(path.sep).join('/').replace(/\.ttl$/, '');
  const publishedManifest = PUBLISHED_ROOT + relative;
  const idOf = (node) => {
    const hash = node.value.indexOf('#');
    if (node.termType === 'NamedNode' && node.value.startsWith(baseIRI) && hash >= 0) return publishedManifest + node.value.slice(hash);
    return node.value;
  };
  const localName = (iri) => iri.replace(/^.*[#/]/, '');
  const entries = [];
  for (const list of objectsOf(store, manifest, MF + 'entries')) {
    for (const node of listItems(store, list)) {
      const types = objectsOf(store, node, RDF + 'type').map((t) => t.value);
      entries.push({
        id: idOf(node),
        node,
        name: objectOf(store, node, MF + 'name')?.value ?? localName(node.value),
        comment: objectOf(store, node, RDFS + 'comment')?.value,
        types,
        type: types.length > 0 ? localName(types[0]) : undefined,
        action: objectOf(store, node, MF + 'action'),
        result: objectOf(store, node, MF + 'result'),
        approval: objectOf(store, node, RDFT + 'approval')?.value ?? objectOf(store, node, 'http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#approval')?.value,
        // mf:requires: the features a test needs (local names, e.g. DirectGraphIdentification).
        requires: objectsOf(store, node, MF + 'requires').map((t) => localName(t.value)),
      });
    }
  }
  const includes = objectsOf(store, manifest, MF + 'include').flatMap((list) => listItems(store, list)).map(fileOf);
  return {
    file,
    dir: path.dirname(file),
    label: objectOf(store, manifest, RDFS + 'label')?.value,
    assumedTestBase: objectOf(store, manifest, MF + 'assumedTestBase')?.value,
    includes,
    entries,
    store,
  };
}

/** The text of a cnt:ContentAsText node: { chars, encoding } (encoding as written, default UTF-8). */
function contentOf(store, node) {
  if (!node) return undefined;
  const chars = objectOf(store, node, CNT + 'chars')?.value;
  if (chars === undefined) return undefined;
  return { chars, encoding: objectOf(store, node, CNT + 'characterEncoding')?.value ?? 'UTF-8' };
}

/** The ht:headers list of a request or response as [lower-case name, value] pairs. */
function headersOf(store, node) {
  return objectsOf(store, node, HT + 'headers')
    .flatMap((list) => listItems(store, list))
    .map((h) => [objectOf(store, h, HT + 'fieldName')?.value.toLowerCase(), objectOf(store, h, HT + 'fieldValue')?.value])
    .filter(([name, value]) => name !== undefined && value !== undefined);
}

/**
 * An ht:Connection (the mf:action of mf:ProtocolTest and mf:GraphStoreProtocolTest) as plain data:
 * { authority (ht:connectionAuthority), requests: [{ method, path (ht:absolutePath), headers,
 * body: { chars, encoding } | undefined, response: { statuses: [hts: IRIs] (mf:expectedStatus),
 * boolean (mf:expectedBoolean), format (mf:expectedFormat), location (mf:expectedLocation: the
 * template variable), headers, body } }] } in request order.
 */
export function readConnection(store, connection) {
  const requests = objectsOf(store, connection, HT + 'requests').flatMap((list) => listItems(store, list));
  return {
    authority: objectOf(store, connection, HT + 'connectionAuthority')?.value,
    requests: requests.map((request) => {
      const resp = objectOf(store, request, HT + 'resp');
      const boolean = resp && objectOf(store, resp, MF + 'expectedBoolean');
      return {
        method: objectOf(store, request, HT + 'methodName')?.value ?? 'GET',
        path: objectOf(store, request, HT + 'absolutePath')?.value ?? '/',
        headers: headersOf(store, request),
        body: contentOf(store, objectOf(store, request, HT + 'body')),
        response: resp && {
          statuses: objectsOf(store, resp, MF + 'expectedStatus').map((t) => t.value),
          boolean: boolean === undefined ? undefined : boolean.value === 'true' || boolean.value === '1',
          format: objectOf(store, resp, MF + 'expectedFormat')?.value,
          location: objectOf(store, resp, MF + 'expectedLocation')?.value,
          headers: headersOf(store, resp),
          body: contentOf(store, objectOf(store, resp, HT + 'body')),
        },
      };
    }),
  };
}
