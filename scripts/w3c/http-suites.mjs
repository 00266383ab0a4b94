/**
 * The W3C SPARQL 1.1 suites that are HTTP exchanges, run against the graph server
 * (packages/graph-server/dist, built by `tsc -b`):
 *
 *   sparql11/protocol              mf:ProtocolTest: ut:graphData preloaded (rdfs:label = graph name),
 *                                  then the ht:Requests of the mf:action's ht:Connection in order;
 *                                  `/sparql/` becomes `/ds` (the endpoint that takes queries and
 *                                  updates).
 *   sparql11/graph-store-protocol  mf:GraphStoreProtocolTest (manifest-direct.ttl, manifest-indirect.ttl);
 *                                  `/gsp` becomes `/ds/data`; mf:expectedLocation values are
 *                                  substituted into later requests (path and body).
 *   sparql11/service-description   mf:ServiceDescriptionTest: GET on `/ds`, `/ds/query` and
 *                                  `/ds/update` without parameters (see SERVICE_DESCRIPTION_TESTS).
 *
 * Each test gets its own server, in open mode, on 127.0.0.1 port 0, over an empty memory store,
 * closed when the test ends; the requests of one test share it. Requests go out with node:http
 * (so the Host header is ht:connectionAuthority, as the graph IRIs of direct identification and
 * POST creation are built from it), bodies encoded as their cnt:characterEncoding says (UTF-16:
 * big-endian with a byte order mark). A response passes when its status is one of
 * mf:expectedStatus, a Location is there when mf:expectedLocation asks, each expected header
 * matches (Content-Type: same media type and parameters, case-insensitively), an expected RDF body
 * is isomorphic to the one received (sparql-results.mjs compareWithExpected), mf:expectedFormat
 * names the kind of the Content-Type and the body parses as it, and mf:expectedBoolean is the
 * ASK answer.
 *
 * Skips: sparql-skip.json (a test id, or a manifest's published IRI for all its tests), as for the
 * other SPARQL suites. $IANODE_W3C_GRAPH_SERVER names another module exporting createGraphServer
 * to run the suites against.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatFromContentType } from '@ianode/rdf';
import { fileOf, HTS, objectOf, objectsOf, PUBLISHED_ROOT, SUITES_ROOT, moduleUnderTest, TEST_TIMEOUT_MS, RDF, RDFS, readConnection, UT } from './manifest.mjs';
import { compareWithExpected, parseRdfText, readRdfKeys, resultsModule } from './sparql-results.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// The same folder scripts/w3c.mjs reads.
const suitesRoot = SUITES_ROOT;
/** A module exporting createGraphServer (as packages/graph-server does): $IANODE_W3C_GRAPH_SERVER or ours. */
const SERVER_MODULE = moduleUnderTest('IANODE_W3C_GRAPH_SERVER', 'packages/graph-server/dist/index.js');
const REQUEST_TIMEOUT_MS = TEST_TIMEOUT_MS;

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const RDF_TYPE = RDF + 'type';

/** The suites' manifests (relative to the suites folder): sparql-suites.mjs leaves these to us. */
export const HTTP_MANIFESTS = {
  'sparql11/protocol': 'sparql/sparql11/protocol/manifest.ttl',
  'sparql11/graph-store-protocol': 'sparql/sparql11/graph-store-protocol/manifest.ttl',
  'sparql11/service-description': 'sparql/sparql11/service-description/manifest.ttl',
};

/** Where the manifests' paths go on our server. */
const ENDPOINTS = { sparql: '/ds', gsp: '/ds/data', query: '/ds/query', update: '/ds/update' };

/** mf:requires features the graph server has (SPARQL 1.1 Graph Store HTTP Protocol). */
const SUPPORTED_FEATURES = new Set(['DirectGraphIdentification', 'IndirectGraphIdentification', 'POSTGraphCreation']);

// ---- skips ----

function loadSkips() {
  const skips = JSON.parse(readFileSync(path.join(here, 'sparql-skip.json'), 'utf8'));
  delete skips.$comment;
  return skips;
}
const skips = loadSkips();
const manifestKey = (file) => PUBLISHED_ROOT + path.relative(suitesRoot, file).split(path.sep).join('/').replace(/\.ttl$/, '');

// ---- the server ----

let serverModule;
async function graphServer() {
  if (serverModule) return serverModule;
  try {
    serverModule = await import(pathToFileURL(SERVER_MODULE).href);
  } catch (error) {
    throw new Error(`packages/graph-server is not built (${SERVER_MODULE}: ${error.code ?? error.message}); run npx tsc -b`);
  }
  return serverModule;
}

/** Runs `body(server, port)` against a fresh open-mode server over an empty memory store. */
async function withServer(body) {
  const { createGraphServer } = await graphServer();
  const server = await createGraphServer({}, { logger: false });
  try {
    const url = new URL(await server.listen({ port: 0, host: '127.0.0.1' }));
    return await body(server, Number(url.port));
  } finally {
    await server.close();
  }
}

/** ut:graphData [ ut:graph <file> ; rdfs:label "graph IRI" ] of a test, into the server's store. */
async function preload(server, store, node) {
  const graphs = objectsOf(store, node, UT + 'graphData').map((g) => {
    const file = g.termType === 'NamedNode' ? g : objectOf(store, g, UT + 'graph');
    return { file: file && fileOf(file), name: (g.termType === 'NamedNode' ? undefined : objectOf(store, g, RDFS + 'label')?.value) ?? file?.value };
  });
  if (graphs.length === 0) return;
  if (graphs.some((g) => !g.file)) throw new Error('a ut:graphData names no file');
  await server.store.transaction(async (tx) => {
    for (const { file, name } of graphs) await readRdfKeys(file, (s, p, o, g) => tx.add({ s, p, o, g }), '<' + name);
  });
}

// ---- HTTP ----

/** The bytes of a cnt:ContentAsText body in its declared encoding. */
function encode({ chars, encoding }) {
  if (/^utf-?16$/i.test(encoding)) {
    const le = Buffer.from('\ufeff' + chars, 'utf16le');
    return le.swap16(); // big-endian, with a byte order mark
  }
  if (/^utf-?16le$/i.test(encoding)) return Buffer.from(chars, 'utf16le');
  if (/^utf-?8$/i.test(encoding)) return Buffer.from(chars, 'utf8');
  throw new Error(`cannot encode a body in ${encoding}`);
}

/** One request to 127.0.0.1:port; resolves to { status, headers, body: Buffer }. */
function send(port, { method, path: target, host, headers, body }) {
  return new Promise((resolve, reject) => {
    const outgoing = { host, ...Object.fromEntries(headers) };
    if (body !== undefined || method === 'POST' || method === 'PUT') outgoing['content-length'] = String(body?.length ?? 0);
    const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers: outgoing, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${target} within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

// ---- checking a response ----

/** hts: names -> the status codes they stand for (StatusCodeNxx: a class). */
const STATUS_NAMES = {
  OK: 200, Created: 201, Accepted: 202, NoContent: 204, MovedPermanently: 301, Found: 302, SeeOther: 303, NotModified: 304,
  BadRequest: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, MethodNotAllowed: 405, NotAcceptable: 406, Conflict: 409,
  UnsupportedMediaType: 415, InternalServerError: 500, NotImplemented: 501, ServiceUnavailable: 503,
};

function statusMatches(statusIri, status) {
  const name = statusIri.startsWith(HTS) ? statusIri.slice(HTS.length) : statusIri;
  const range = /^StatusCode(\d)xx$/.exec(name);
  if (range) return Math.floor(status / 100) === Number(range[1]);
  if (STATUS_NAMES[name] === undefined) throw new Error(`unknown expected status ${statusIri}`);
  return STATUS_NAMES[name] === status;
}

/** A media type as { essence, params } with lower-case names (and charset value). */
function mediaTypeOf(value) {
  const [essence, ...rest] = String(value ?? '').split(';');
  const params = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const name = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'charset') v = v.toLowerCase();
    params[name] = v;
  }
  return { essence: essence.trim().toLowerCase(), params };
}

function headerMatches(name, expected, actual) {
  if (actual === undefined) return false;
  if (name !== 'content-type') return String(actual) === expected;
  const e = mediaTypeOf(expected);
  const a = mediaTypeOf(actual);
  return e.essence === a.essence && Object.keys(e.params).length === Object.keys(a.params).length && Object.entries(e.params).every(([k, v]) => a.params[k] === v);
}

const RESULTS_TYPES = {
  'application/sparql-results+json': 'json',
  'application/sparql-results+xml': 'xml',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
};
/** mf:expectedFormat -> the media types it allows (the protocol test names list them). */
const EXPECTED_FORMATS = {
  boolean: ['application/sparql-results+json', 'application/sparql-results+xml'],
  tabular: ['application/sparql-results+json', 'application/sparql-results+xml', 'text/csv', 'text/tab-separated-values'],
  RDF: ['application/rdf+xml', 'text/turtle', 'application/n-triples', 'text/html', 'application/xhtml+xml'],
};

/** The RDF format (media type) of a Content-Type, RDF/XML included; undefined when it is none. */
function rdfFormat(contentType) {
  const { essence } = mediaTypeOf(contentType);
  if (essence === 'application/rdf+xml') return essence;
  return formatFromContentType(essence);
}

/** Why a response is not the expected one, or undefined. `requestUrl` is the base IRI of bodies. */
async function checkResponse(expected, response, requestUrl) {
  const { status, headers } = response;
  const text = response.body.toString('utf8');
  const detail = () => (text.length > 0 ? `: ${text.slice(0, 200).replace(/\s+/g, ' ')}` : '');
  if (expected.statuses.length > 0 && !expected.statuses.some((s) => statusMatches(s, status))) {
    return `status ${status}, expected ${expected.statuses.map((s) => s.replace(HTS, 'hts:')).join(' or ')}${detail()}`;
  }
  if (expected.location !== undefined && !headers.location) return 'no Location header';
  for (const [name, value] of expected.headers) {
    if (!headerMatches(name, value, headers[name])) return `${name} ${JSON.stringify(headers[name] ?? null)}, expected ${JSON.stringify(value)}`;
  }
  const contentType = headers['content-type'];
  if (expected.format !== undefined) {
    const allowed = EXPECTED_FORMATS[expected.format];
    if (!allowed) return `unknown mf:expectedFormat ${expected.format}`;
    const { essence } = mediaTypeOf(contentType);
    if (!allowed.includes(essence)) return `Content-Type ${contentType}, expected ${expected.format} (${allowed.join(', ')})`;
  }
  const results = RESULTS_TYPES[mediaTypeOf(contentType).essence];
  if (expected.boolean !== undefined || (expected.format !== undefined && expected.format !== 'RDF')) {
    if (!results) return `Content-Type ${contentType} is no SPARQL results format`;
    const { parseResults } = await resultsModule();
    let parsed;
    try {
      parsed = parseResults(text, mediaTypeOf(contentType).essence);
    } catch (error) {
      return `the ${contentType} body does not parse: ${error.message}`;
    }
    if (expected.format === 'boolean' && parsed.type !== 'boolean') return `a ${parsed.type} result, expected a boolean`;
    if (expected.boolean !== undefined && (parsed.type !== 'boolean' || parsed.value !== expected.boolean)) {
      return `ASK answered ${parsed.type === 'boolean' ? parsed.value : `a ${parsed.type} result`}, expected ${expected.boolean}`;
    }
  }
  if (expected.format === 'RDF' || expected.body !== undefined) {
    const format = rdfFormat(contentType);
    if (!format) return `Content-Type ${contentType} is no RDF format`;
    let actual;
    try {
      actual = await parseRdfText(text, format, requestUrl);
    } catch (error) {
      return `the ${contentType} body does not parse: ${error.message}`;
    }
    if (expected.body !== undefined) {
      const expectedType = expected.headers.find(([name]) => name === 'content-type')?.[1] ?? contentType;
      const quads = await parseRdfText(expected.body.chars, rdfFormat(expectedType), requestUrl);
      const why = await compareWithExpected({ type: 'quads', quads: actual }, { kind: 'graph', quads });
      if (why !== undefined) return why;
    }
  }
  return undefined;
}

// ---- the test kinds ----

/** Replays the ht:Connection of `entry`; `rewrite(path)` maps a manifest path to ours. */
async function runExchange(entry, manifest, rewrite) {
  const missing = entry.requires.filter((f) => !SUPPORTED_FEATURES.has(f));
  if (missing.length > 0) return { skip: `needs ${missing.join(', ')}` };
  if (!entry.action) return 'the test has no mf:action';
  const connection = readConnection(manifest.store, entry.action);
  if (connection.requests.length === 0) return 'the ht:Connection has no ht:requests';
  return withServer(async (server, port) => {
    await preload(server, manifest.store, entry.node);
    const host = connection.authority ?? `127.0.0.1:${port}`;
    const variables = new Map(); // mf:expectedLocation template -> the Location received
    const fill = (text) => [...variables].reduce((t, [name, value]) => t.split(name).join(value), text);
    for (const [i, req] of connection.requests.entries()) {
      const target = rewrite(fill(req.path));
      const body = req.body === undefined ? undefined : encode({ ...req.body, chars: fill(req.body.chars) });
      const label = `request ${i + 1} (${req.method} ${target})`;
      let response;
      try {
        response = await send(port, { method: req.method, path: target, host, headers: req.headers, body });
      } catch (error) {
        return `${label}: ${error.message}`;
      }
      if (!req.response) continue;
      const why = await checkResponse(req.response, response, `http://${host}${target.split('?')[0]}`);
      if (why !== undefined) return `${label}: ${why}`;
      if (req.response.location !== undefined) variables.set(req.response.location, response.headers.location);
    }
    return undefined;
  });
}

const protocolPath = (p) => p.replace(/^\/sparql\/?/, ENDPOINTS.sparql);
const gspPath = (p) => p.replace(/^\/gsp/, ENDPOINTS.gsp);

// ---- service description ----

/**
 * The sd vocabulary (https://www.w3.org/TR/sparql11-service-description/#vocab): classes (with
 * their superclasses), properties (domain; range class, or 'iri' for an IRI value; 'resource'
 * for any IRI or blank node), and the instances it defines.
 */
const SD_CLASSES = {
  Service: [], Language: ['Feature'], Function: ['Feature'], Aggregate: ['Feature'], EntailmentRegime: ['Feature'], EntailmentProfile: ['Feature'],
  GraphCollection: [], Dataset: ['GraphCollection'], Graph: [], NamedGraph: [], Feature: [],
};
const SD_PROPERTIES = {
  endpoint: ['Service', 'iri'],
  feature: ['Service', 'Feature'],
  defaultEntailmentRegime: ['Service', 'EntailmentRegime'],
  supportedEntailmentProfile: ['Service', 'EntailmentProfile'],
  defaultSupportedEntailmentProfile: ['Service', 'EntailmentProfile'],
  extensionFunction: ['Service', 'Function'],
  extensionAggregate: ['Service', 'Aggregate'],
  languageExtension: ['Service', 'Language'],
  supportedLanguage: ['Service', 'Language'],
  propertyFeature: ['Service', 'resource'],
  defaultDataset: ['Service', 'Dataset'],
  availableGraphs: ['Service', 'GraphCollection'],
  resultFormat: ['Service', 'iri'],
  inputFormat: ['Service', 'iri'],
  defaultGraph: ['Dataset', 'Graph'],
  namedGraph: ['GraphCollection', 'NamedGraph'],
  name: ['NamedGraph', 'iri'],
  graph: ['NamedGraph', 'Graph'],
  entailmentRegime: ['NamedGraph', 'EntailmentRegime'],
};
const SD_INSTANCES = {
  SPARQL10Query: 'Language', SPARQL11Query: 'Language', SPARQL11Update: 'Language',
  DereferencesURIs: 'Feature', UnionDefaultGraph: 'Feature', RequiresDataset: 'Feature', EmptyGraphs: 'Feature', BasicFederatedQuery: 'Feature',
};

const superclasses = (c) => [c, ...(SD_CLASSES[c] ?? []).flatMap(superclasses)];
const compatible = (a, b) => superclasses(a).includes(b) || superclasses(b).includes(a);
const showTerm = (t) => (t.termType === 'NamedNode' ? `<${t.value}>` : t.termType === 'BlankNode' ? `_:${t.value}` : JSON.stringify(t.value));

/**
 * Why a service description does not conform to the sd vocabulary, or undefined: every sd: term
 * is defined; each sd: property has a value of its range's kind (an IRI where the value is an
 * IRI, no literal where it is a class); the sd: classes a node has (rdf:type, domains of its
 * properties, ranges of the properties pointing at it, the class of a defined instance) agree
 * (each pair the same class or one a superclass of the other); there is an sd:Service with an
 * sd:endpoint and an sd:supportedLanguage.
 */
export function serviceDescriptionSchemaErrors(quads) {
  const types = new Map(); // node key -> Map(class -> why)
  const key = (t) => `${t.termType}:${t.value}`;
  const addType = (node, cls, why) => {
    if (node.termType === 'Literal') return;
    if (!types.has(key(node))) types.set(key(node), { node, classes: new Map() });
    types.get(key(node)).classes.set(cls, why);
  };
  const sdName = (t) => (t.termType === 'NamedNode' && t.value.startsWith(SD) ? t.value.slice(SD.length) : undefined);
  for (const q of quads) {
    for (const t of [q.subject, q.predicate, q.object]) {
      const name = sdName(t);
      if (name !== undefined && SD_CLASSES[name] === undefined && SD_PROPERTIES[name] === undefined && SD_INSTANCES[name] === undefined) {
        return `sd:${name} is not a term of the sd vocabulary`;
      }
      if (name !== undefined && SD_INSTANCES[name] !== undefined) addType(t, SD_INSTANCES[name], `sd:${name} is an sd:${SD_INSTANCES[name]}`);
    }
    const property = sdName(q.predicate);
    if (q.predicate.value === RDF_TYPE) {
      const cls = sdName(q.object);
      if (cls !== undefined) {
        if (SD_CLASSES[cls] === undefined) return `${showTerm(q.subject)} rdf:type sd:${cls}, which is no class`;
        addType(q.subject, cls, `rdf:type sd:${cls}`);
      }
      continue;
    }
    if (property === undefined) continue;
    const spec = SD_PROPERTIES[property];
    if (spec === undefined) return `sd:${property} is used as a property but is none`;
    const [domain, range] = spec;
    addType(q.subject, domain, `subject of sd:${property}`);
    if (range === 'iri') {
      if (q.object.termType !== 'NamedNode') return `sd:${property} of ${showTerm(q.subject)} is ${showTerm(q.object)}, expected an IRI`;
    } else if (q.object.termType === 'Literal') {
      return `sd:${property} of ${showTerm(q.subject)} is the literal ${showTerm(q.object)}, expected ${range === 'resource' ? 'a resource' : `an sd:${range}`}`;
    } else if (range !== 'resource') addType(q.object, range, `object of sd:${property}`);
  }
  for (const { node, classes } of types.values()) {
    const list = [...classes];
    for (const [a, whyA] of list) {
      for (const [b, whyB] of list) {
        if (!compatible(a, b)) return `${showTerm(node)} is an sd:${a} (${whyA}) and an sd:${b} (${whyB})`;
      }
    }
  }
  const services = [...types.values()].filter(({ classes }) => classes.has('Service')).map(({ node }) => node);
  if (services.length === 0) return 'no sd:Service';
  const has = (s, p) => quads.some((q) => q.subject.equals(s) && q.predicate.value === SD + p);
  const incomplete = services.find((s) => !has(s, 'endpoint') || !has(s, 'supportedLanguage'));
  if (incomplete) return `the sd:Service ${showTerm(incomplete)} has no ${has(incomplete, 'endpoint') ? 'sd:supportedLanguage' : 'sd:endpoint'}`;
  return undefined;
}

/** What we ask for: any RDF format we can read (a server without Turtle may answer RDF/XML). */
const SD_ACCEPT = 'text/turtle, application/n-triples;q=0.9, application/rdf+xml;q=0.8, application/trig;q=0.5, application/n-quads;q=0.5';

/** The service description of the endpoint at `endpoint`: { url, quads } or the reason there is none. */
async function fetchDescription(port, endpoint) {
  const host = `127.0.0.1:${port}`;
  const url = `http://${host}${endpoint}`;
  const response = await send(port, { method: 'GET', path: endpoint, host, headers: [['accept', SD_ACCEPT]] });
  if (response.status !== 200) return `GET ${endpoint}: status ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`;
  const format = rdfFormat(response.headers['content-type']);
  if (!format) return `GET ${endpoint}: Content-Type ${response.headers['content-type']} is no RDF format`;
  try {
    return { url, quads: await parseRdfText(response.body.toString('utf8'), format, url) };
  } catch (error) {
    return `GET ${endpoint}: the ${format} body does not parse: ${error.message}`;
  }
}

/** mf:ServiceDescriptionTest by name: each checks every SPARQL endpoint of the dataset. */
const SERVICE_DESCRIPTION_TESTS = {
  'returns-rdf': (described) => (described.quads.length > 0 ? undefined : `GET ${described.url}: an empty graph`),
  'has-endpoint-triple': (described) =>
    described.quads.some((q) => q.predicate.value === SD + 'endpoint' && q.object.termType === 'NamedNode' && q.object.value === described.url)
      ? undefined
      : `GET ${described.url}: no triple ?service sd:endpoint <${described.url}>`,
  'conforms-to-schema': (described) => {
    const why = serviceDescriptionSchemaErrors(described.quads);
    return why === undefined ? undefined : `GET ${described.url}: ${why}`;
  },
};

async function runServiceDescriptionTest(entry) {
  const localName = entry.id.replace(/^.*#/, '');
  const check = SERVICE_DESCRIPTION_TESTS[localName];
  if (!check) return `no check for service description test ${localName}`;
  return withServer(async (_server, port) => {
    for (const endpoint of [ENDPOINTS.sparql, ENDPOINTS.query, ENDPOINTS.update]) {
      const described = await fetchDescription(port, endpoint);
      if (typeof described === 'string') return described;
      const why = check(described);
      if (why !== undefined) return why;
    }
    return undefined;
  });
}

// ---- the suites ----

async function runHttpTest(entry, manifest, suiteFile) {
  const skip = skips[entry.id] ?? skips[manifestKey(manifest.file)] ?? skips[manifestKey(suiteFile)];
  if (skip !== undefined) return { skip };
  switch (entry.type) {
    case 'ProtocolTest':
      return runExchange(entry, manifest, protocolPath);
    case 'GraphStoreProtocolTest':
      return runExchange(entry, manifest, gspPath);
    case 'ServiceDescriptionTest':
      return runServiceDescriptionTest(entry);
    default:
      return `unsupported test type ${entry.types.join(', ')}`;
  }
}

/** Suites for scripts/w3c.mjs: { name, manifest, run }. */
export const httpSuites = Object.entries(HTTP_MANIFESTS).map(([name, manifest]) => ({
  name,
  manifest,
  run: (entry, m) => runHttpTest(entry, m, path.join(suitesRoot, manifest)),
}));
