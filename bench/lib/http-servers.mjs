/**
 * The servers of bench/http.mjs, each started as its users run it, on free ports, with its data in
 * a temporary folder: the whole ianode node (`node scripts/start.mjs`: IdP, access service, graph
 * server in secure mode), Virtuoso 7 (`virtuoso-t`, bulk loader), Apache Jena Fuseki (jar from
 * Maven Central, in-memory dataset from `--file`) and the native Oxigraph server.
 *
 * Every server: `available()` → undefined or why not; `start()` → { endpoint, loadSeconds,
 * version }; `stop()`. Nothing is left running: `stop()` kills the process group.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, openSync, closeSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, httpCall, httpOk, sparql, waitFor } from './http-client.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** @param {string} cmd */
function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * A detached child (own process group) writing to a log file; `stop()` sends SIGTERM to the group,
 * then SIGKILL after `graceMs`.
 * @param {string} command @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, log: string }} options
 */
function startProcess(command, args, { cwd, env, log }) {
  const fd = openSync(log, 'a');
  const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  /** @type {string | undefined} */
  let exited;
  child.on('exit', (code, signal) => { exited = `exited (${signal ?? code}); see ${log}`; });
  child.on('error', (error) => { exited = `could not start: ${error.message}`; });
  return {
    child,
    failed: () => exited,
    /** @param {number} [graceMs] */
    async stop(graceMs = 20_000) {
      if (exited !== undefined || child.pid === undefined) return;
      const pid = child.pid;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      try { process.kill(-pid, 'SIGTERM'); } catch { return; }
      const timer = setTimeout(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } }, graceMs);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** @param {string} file */
async function tail(file, lines = 20) {
  try {
    return (await readFile(file, 'utf8')).split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// ianode

export const IANODE_POOL = 'local_ianode01';
export const IANODE_CLIENT = 'ianodedemoclient0000000001';
export const IANODE_ADMIN = 'admin@ianode.local';
const DEMO_PASSWORD = 'Ianode-demo-1';

/**
 * Sign-in through the IdP's Cognito JSON API (InitiateAuth, USER_PASSWORD_AUTH), as
 * packages/access-service/idp-local/fetch_id_token.sh does. Resolves with the ID token.
 * @param {string} idpUrl @param {string} user
 */
export async function signIn(idpUrl, user) {
  const password = process.env.IDP_ADMIN_PASSWORD || DEMO_PASSWORD;
  const r = await httpCall(`${idpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: IANODE_CLIENT, AuthParameters: { USERNAME: user, PASSWORD: password } }),
    timeoutMs: 30_000,
  });
  const answer = JSON.parse(r.body.toString('utf8'));
  const token = answer?.AuthenticationResult?.IdToken;
  if (r.status !== 200 || typeof token !== 'string') throw new Error(`sign-in of ${user} failed: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
  return token;
}

/**
 * The whole node: `node scripts/start.mjs` (no build: the npm script builds first) with a temporary
 * data folder, free ports, no demo data. `uploads`: N-Triples files, each with its Security-Label.
 * `ports`: those of an earlier start on the same data: the token issuer names the IdP's port, and
 * the access service links an e-mail address to the first issuer's identity only.
 * `heapMiB`: `--max-old-space-size` of the node's processes (NODE_OPTIONS), as Fuseki gets `-Xmx`.
 * @param {{ dataDir: string, logDir: string, queryTimeoutMs?: number, heapMiB?: number, ports?: { idp: number, access: number, graph: number } }} options
 */
export function ianodeServer({ dataDir, logDir, queryTimeoutMs, heapMiB, ports: fixedPorts }) {
  /** @type {ReturnType<typeof startProcess> | undefined} */
  let proc;
  let token = '';
  let tokenAt = 0;
  const state = { idp: '', graph: '', access: '' };
  const ports = { idp: 0, access: 0, graph: 0 };
  const refresh = async () => {
    token = await signIn(state.idp, IANODE_ADMIN);
    tokenAt = Date.now();
  };
  return {
    name: 'ianode',
    state,
    ports,
    async available() {
      if (!existsSync(path.join(ROOT, 'packages/cli/dist/main.js'))) return 'not built (npx tsc -b)';
      return undefined;
    },
    /** @param {{ uploads?: { file: string, label: string }[], log?: (msg: string) => void }} [options] */
    async start({ uploads = [], log = () => {} } = {}) {
      const [idpPort, accessPort, graphPort] = fixedPorts ? [fixedPorts.idp, fixedPorts.access, fixedPorts.graph] : [await freePort(), await freePort(), await freePort()];
      Object.assign(ports, { idp: idpPort, access: accessPort, graph: graphPort });
      state.idp = `http://127.0.0.1:${idpPort}`;
      state.access = `http://127.0.0.1:${accessPort}`;
      state.graph = `http://127.0.0.1:${graphPort}`;
      await mkdir(dataDir, { recursive: true });
      const started = Date.now();
      proc = startProcess(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
        cwd: ROOT,
        log: path.join(logDir, 'ianode.log'),
        env: {
          ...process.env,
          IANODE_SKIP_BUILD: '1',
          IANODE_DATA_DIR: dataDir,
          IANODE_DEMO_DATA: 'none',
          IDP_PORT: String(idpPort),
          ACCESS_PORT: String(accessPort),
          GRAPH_PORT: String(graphPort),
          LOG_LEVEL: 'warn',
          ...(queryTimeoutMs === undefined ? {} : { QUERY_TIMEOUT_MS: String(queryTimeoutMs) }),
          ...(heapMiB === undefined ? {} : { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${heapMiB}`.trim() }),
        },
      });
      const p = proc;
      await waitFor(async () => (await httpOk(`${state.idp}/health`)) && (await httpOk(`${state.access}/health`)) && (await httpOk(`${state.graph}/$/ping`)),
        { timeoutMs: 600_000, what: 'ianode', failed: p.failed });
      const startSeconds = (Date.now() - started) / 1000;
      await refresh();
      const loadStarted = Date.now();
      let quads = 0;
      for (const { file, label } of uploads) {
        const r = await httpCall(`${state.graph}/ds/upload`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/n-triples', 'security-label': label, 'content-length': String(statSync(file).size) },
          body: createReadStream(file, { highWaterMark: 1 << 20 }),
          timeoutMs: 3_600_000,
        });
        if (r.status !== 200) throw new Error(`ianode upload of ${file}: HTTP ${r.status} ${r.body.toString('utf8', 0, 300)}`);
        quads += JSON.parse(r.body.toString('utf8')).quads;
        log(`  ianode: uploaded ${path.basename(file)} (Security-Label: ${label})`);
      }
      const loadSeconds = uploads.length ? (Date.now() - loadStarted) / 1000 : 0;
      return { endpoint: this.endpoint(), startSeconds, loadSeconds, quads };
    },
    /** @returns {import('./http-client.mjs').Endpoint} */
    endpoint() {
      return {
        url: `${state.graph}/ds`,
        // ID tokens last an hour: keepToken() fetches a new one between cells after 30 minutes.
        headers: () => ({ authorization: `Bearer ${token}` }),
      };
    },
    /** A new ID token when the one held is older than 30 minutes (call between cells). */
    async keepToken() {
      if (Date.now() - tokenAt > 30 * 60_000) await refresh();
    },
    token: () => token,
    version() {
      const commit = spawnSync('git', ['-C', ROOT, 'log', '-1', '--format=%h (%cs)'], { encoding: 'utf8' }).stdout.trim();
      const dirty = spawnSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim() !== '';
      return `commit ${commit}${dirty ? ' + local changes' : ''}, node ${process.version}`;
    },
    async stop() {
      await proc?.stop(60_000);
      proc = undefined;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Virtuoso 7 (Debian's virtuoso-opensource)

/** Whether a dpkg/apt lock is held (another apt-get is running). */
function aptBusy() {
  const r = spawnSync('sh', ['-c', 'pgrep -x apt-get || pgrep -x dpkg || pgrep -x apt'], { encoding: 'utf8' });
  return r.status === 0;
}

/**
 * `virtuoso-t` and `isql-vt`, installed with apt-get when absent (as root only; waits for an
 * apt-get already running). Resolves with undefined or why not.
 * @param {(msg: string) => void} log
 */
async function ensureVirtuoso(log) {
  if (which('virtuoso-t') && which('isql-vt')) return undefined;
  if (process.env.BENCH_NO_INSTALL === '1') return 'virtuoso-t not installed (BENCH_NO_INSTALL=1)';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'virtuoso-t not installed (apt-get install virtuoso-opensource needs root)';
  for (let i = 0; i < 120 && aptBusy(); i++) {
    if (i === 0) log('  virtuoso: another apt-get/dpkg is running; waiting for it (up to 10 minutes)');
    await sleep(5_000);
    if (which('virtuoso-t') && which('isql-vt')) return undefined;
  }
  log('  virtuoso: apt-get install virtuoso-opensource');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'virtuoso-opensource'], { stdio: 'inherit', env });
  if (r.status !== 0 || !which('virtuoso-t')) return `apt-get install virtuoso-opensource failed (exit ${r.status})`;
  return undefined;
}

/**
 * @param {{ dir: string, logDir: string, triples: number, log: (msg: string) => void }} options
 */
export function virtuosoServer({ dir, logDir, triples, log }) {
  /** @type {ReturnType<typeof startProcess> | undefined} */
  let proc;
  let httpPort = 0;
  let isqlPort = 0;
  const graph = 'http://bench.ianode.local/graph';
  /** @param {string} sql */
  const isql = (sql) => spawnSync('isql-vt', [String(isqlPort), 'dba', 'dba', `exec=${sql}`], { encoding: 'utf8', timeout: 7_200_000 });
  return {
    name: 'virtuoso',
    available: () => ensureVirtuoso(log),
    version() {
      const r = spawnSync('virtuoso-t', ['-?'], { encoding: 'utf8' });
      const text = `${r.stdout}\n${r.stderr}`;
      const m = /Version ([^\s]+)/.exec(text);
      const dpkg = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'virtuoso-opensource-7-bin'], { encoding: 'utf8' }).stdout.trim();
      return `Virtuoso Open Source ${m?.[1] ?? '?'}${dpkg ? ` (Debian ${dpkg})` : ''}`;
    },
    /** @param {{ file: string }} options */
    async start({ file }) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      httpPort = await freePort();
      isqlPort = await freePort();
      // 8 KiB pages: about 2.5 GiB of buffers for 1M triples' ~100 MB database, 10M's ~1 GB
      // (Virtuoso's guide: ~2/3 of the memory it may use).
      const buffers = triples > 3_000_000 ? 680_000 : 340_000;
      const dataDir = path.dirname(path.resolve(file));
      const ini = `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:${isqlPort}
LiteMode = 0
DisableUnixSocket = 1
DisableTcpSocket = 0
ServerThreads = 20
CheckpointInterval = 0
O_DIRECT = 0
CaseMode = 2
MaxStaticCursorRows = 5000
CheckpointAuditTrail = 0
AllowOSCalls = 0
SchedulerInterval = 10
DirsAllowed = ., ${dataDir}, ${dir}
ThreadCleanupInterval = 0
ThreadThreshold = 10
ResourcesCleanupInterval = 0
FreeTextBatchSize = 100000
SingleCPU = 0
PrefixResultNames = 0
RdfFreeTextRulesSize = 100
IndexTreeMaps = 256
MaxMemPoolSize = 200000000
MaxQueryMem = 2G
VectorSize = 1000
MaxVectorSize = 1000000
AdjustVectorSize = 0
ThreadsPerQuery = 2
AsyncQueueMaxThreads = 10
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${Math.round(buffers * 0.75)}

[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
MaxClientConnections = 16
DavRoot = DAV
EnabledDavVSP = 0
HTTPProxyEnabled = 0
TempASPXDir = 0
MaxKeepAlives = 16
KeepAliveTimeout = 10
MaxCachedProxyConnections = 10
ProxyConnectionCacheTimeout = 15
HTTPThreadSize = 280000
HttpPrintWarningsInOutput = 0
Charset = UTF-8
EnabledGzipContent = 0

[AutoRepair]
BadParentLinks = 0

[Client]
SQL_PREFETCH_ROWS = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT = 0
SQL_TXN_TIMEOUT = 0

[SPARQL]
ResultSetMaxRows = 100000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 0
DeferInferenceRulesInit = 0
MaxSortedTopRows = 100000000
`;
      await writeFile(path.join(dir, 'virtuoso.ini'), ini);
      const started = Date.now();
      proc = startProcess('virtuoso-t', ['+foreground', '+configfile', path.join(dir, 'virtuoso.ini')], { cwd: dir, log: path.join(logDir, 'virtuoso.out') });
      const p = proc;
      await waitFor(async () => httpOk(`http://127.0.0.1:${httpPort}/sparql?query=${encodeURIComponent('ASK {}')}`),
        { timeoutMs: 300_000, what: 'virtuoso', failed: p.failed });
      const startSeconds = (Date.now() - started) / 1000;
      const loadStarted = Date.now();
      const sql = `ld_dir('${dataDir}', '${path.basename(file)}', '${graph}'); rdf_loader_run(); checkpoint;`;
      const r = isql(sql);
      if (r.status !== 0) throw new Error(`virtuoso bulk load failed (isql exit ${r.status}): ${r.stdout}${r.stderr}\n${await tail(path.join(dir, 'virtuoso.log'))}`);
      const errors = isql(`SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;`);
      if (/\b\d+ Rows\./.test(errors.stdout) && !/\b0 Rows\./.test(errors.stdout)) throw new Error(`virtuoso bulk load reported errors: ${errors.stdout}`);
      const loadSeconds = (Date.now() - loadStarted) / 1000;
      return { endpoint: this.endpoint(), startSeconds, loadSeconds };
    },
    /** @returns {import('./http-client.mjs').Endpoint} */
    endpoint() {
      return { url: `http://127.0.0.1:${httpPort}/sparql`, params: { 'default-graph-uri': graph } };
    },
    async stop() {
      if (proc && !proc.failed()) isql('shutdown;');
      await proc?.stop(30_000);
      proc = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Apache Jena Fuseki (jena-fuseki-main from Maven Central, classpath of its dependencies)

export const FUSEKI_VERSION = '5.6.0';
const LOG4J_VERSION = '2.26.1';

/**
 * The jars of jena-fuseki-main under `cacheDir/fuseki-<version>/lib`, fetched with Maven once.
 * @param {string} cacheDir @param {(msg: string) => void} log
 * @returns {Promise<{ lib: string } | { unavailable: string }>}
 */
async function ensureFuseki(cacheDir, log) {
  const home = path.join(cacheDir, `fuseki-${FUSEKI_VERSION}`);
  const lib = path.join(home, 'lib');
  const marker = path.join(home, 'complete');
  if (existsSync(marker) && readdirSync(lib).some((f) => f.startsWith('log4j-core-'))) return { lib };
  if (!which('java')) return { unavailable: 'java not found' };
  if (!which('mvn')) return { unavailable: 'mvn not found (needed once to fetch the Fuseki jars)' };
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, 'pom.xml'), `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.ianode.bench</groupId><artifactId>fuseki-classpath</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.jena</groupId><artifactId>jena-fuseki-main</artifactId><version>${FUSEKI_VERSION}</version></dependency>
    <!-- Fuseki logs through Log4j 2, which jena-fuseki-main leaves to the application -->
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>${LOG4J_VERSION}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId><version>${LOG4J_VERSION}</version></dependency>
  </dependencies>
</project>
`);
  log(`  fuseki: fetching jena-fuseki-main ${FUSEKI_VERSION} and its dependencies with Maven into ${path.relative(process.cwd(), lib)}`);
  const r = spawnSync('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`, '-DincludeScope=runtime'], { cwd: home, encoding: 'utf8', timeout: 900_000 });
  if (r.status !== 0) return { unavailable: `mvn dependency:copy-dependencies failed: ${(r.stdout + r.stderr).slice(-500)}` };
  await writeFile(marker, new Date().toISOString() + '\n');
  return { lib };
}

/**
 * @param {{ cacheDir: string, logDir: string, triples: number, log: (msg: string) => void }} options
 */
export function fusekiServer({ cacheDir, logDir, triples, log }) {
  /** @type {ReturnType<typeof startProcess> | undefined} */
  let proc;
  let port = 0;
  let lib = '';
  return {
    name: 'fuseki',
    async available() {
      const r = await ensureFuseki(cacheDir, log);
      if ('unavailable' in r) return r.unavailable;
      lib = r.lib;
      return undefined;
    },
    version() {
      const java = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0]?.trim();
      const jar = existsSync(lib) ? readdirSync(lib).find((f) => f.startsWith('jena-fuseki-main-')) : undefined;
      return `Apache Jena Fuseki ${jar?.replace(/^jena-fuseki-main-|\.jar$/g, '') ?? FUSEKI_VERSION} (FusekiMainCmd, in-memory dataset loaded with --file), ${java}`;
    },
    /** @param {{ file: string }} options */
    async start({ file }) {
      port = await freePort();
      const heap = triples > 3_000_000 ? '14g' : '4g';
      const started = Date.now();
      proc = startProcess('java', [`-Xmx${heap}`, '-cp', `${lib}/*`, 'org.apache.jena.fuseki.main.cmds.FusekiMainCmd',
        '--localhost', `--port=${port}`, `--file=${path.resolve(file)}`, '/ds'], { log: path.join(logDir, 'fuseki.log') });
      const p = proc;
      await waitFor(async () => (await sparql(this.endpoint(), 'ASK {}', 10_000)).status === 200, { timeoutMs: 3_600_000, what: 'fuseki', failed: p.failed });
      // The dataset is read from --file before the server listens: the start is the load.
      return { endpoint: this.endpoint(), startSeconds: 0, loadSeconds: (Date.now() - started) / 1000 };
    },
    /** @returns {import('./http-client.mjs').Endpoint} */
    endpoint() {
      return { url: `http://127.0.0.1:${port}/ds/query` };
    },
    async stop() {
      await proc?.stop(20_000);
      proc = undefined;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Oxigraph (the native server of the Rust crate oxigraph-cli)

function oxigraphBin() {
  const candidates = [process.env.OXIGRAPH_BIN, which('oxigraph'), '/tmp/oxigraph-cli/bin/oxigraph', path.join(homedir(), '.cargo/bin/oxigraph')];
  return candidates.find((c) => c !== undefined && c !== '' && existsSync(c));
}

/**
 * @param {{ dir: string, logDir: string }} options
 */
export function oxigraphServer({ dir, logDir }) {
  /** @type {ReturnType<typeof startProcess> | undefined} */
  let proc;
  let port = 0;
  const bin = oxigraphBin();
  return {
    name: 'oxigraph',
    async available() {
      return bin ? undefined : 'no binary (no OXIGRAPH_BIN, no oxigraph on PATH; `cargo install oxigraph-cli` provides it)';
    },
    version() {
      return bin ? `${spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()} (native server, RocksDB)` : 'not available';
    },
    /** @param {{ file: string }} options */
    async start({ file }) {
      const binary = /** @type {string} */ (bin);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const loadStarted = Date.now();
      const load = spawnSync(binary, ['load', '--location', dir, '--file', path.resolve(file)], { encoding: 'utf8', timeout: 7_200_000 });
      if (load.status !== 0) throw new Error(`oxigraph load failed: ${load.stderr.slice(-500)}`);
      const loadSeconds = (Date.now() - loadStarted) / 1000;
      port = await freePort();
      const started = Date.now();
      proc = startProcess(binary, ['serve-read-only', '--location', dir, '--bind', `127.0.0.1:${port}`], { log: path.join(logDir, 'oxigraph.log') });
      const p = proc;
      await waitFor(async () => (await sparql(this.endpoint(), 'ASK {}', 10_000)).status === 200, { timeoutMs: 300_000, what: 'oxigraph', failed: p.failed });
      return { endpoint: this.endpoint(), startSeconds: (Date.now() - started) / 1000, loadSeconds };
    },
    /** @returns {import('./http-client.mjs').Endpoint} */
    endpoint() {
      return { url: `http://127.0.0.1:${port}/query` };
    },
    async stop() {
      await proc?.stop(20_000);
      proc = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
