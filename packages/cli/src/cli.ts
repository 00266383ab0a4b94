/**
 * The command line of `ianode`: which command, its options, its usage. Every command answers
 * `--help` / `-h` with its usage on stdout and exit 0, before it does anything else (no start, no
 * sign-in, no folder made); an unknown option, a missing or extra argument is a usage error: the
 * message and the usage on stderr, exit 2. A command that ran and failed exits 1.
 *
 * Options are read with node:util's parseArgs (strict: unknown options are errors). `graph`,
 * `access` and `idp` hand every argument to the service's own entry point, which has its own
 * `--help` and options.
 */
import { createRequire } from 'node:module';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { BackupOnlineOptions } from './backup.js';
import { contentTypeFor, KAFKA_EXTENSION_TYPES, parseBrokers, type KafkaSendOptions, type KafkaStatusOptions } from './kafka.js';
import type { LabelsQuadsOptions, LabelsRelabelOptions, LabelsTarget } from './labels.js';
import { actorOf, UsageError as OfflineUsageError, type Actor } from './offline.js';

export interface Io {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** What each command does once its arguments are read; main.ts gives the real ones, tests their own. */
export interface Actions {
  up(): Promise<number>;
  service(pkg: '@ianode/graph-server' | '@ianode/access-service' | '@ianode/idp', args: string[]): Promise<number>;
  load(file: string, opts: { url: string; token: string | undefined; label: string | undefined }): Promise<number>;
  query(text: string, opts: { url: string; token: string | undefined; accept: string | undefined }): Promise<number>;
  token(user: string, env: NodeJS.ProcessEnv): Promise<number>;
  storeVerify(dir: string): Promise<number>;
  storeRecover(dir: string, to: string): Promise<number>;
  kafkaSend(file: string, opts: KafkaSendOptions): Promise<number>;
  kafkaStatus(opts: KafkaStatusOptions): Promise<number>;
  /** `ianode backup --server URL --dataset NAME [--wait]` (backup.ts). */
  backup(opts: BackupOnlineOptions & { quiet: boolean }): Promise<number>;
  /** Label administration over the server API (labels.ts). */
  labelsStats(opts: LabelsTarget & { json: boolean }): Promise<number>;
  labelsQuads(opts: LabelsQuadsOptions): Promise<number>;
  labelsRelabel(opts: LabelsRelabelOptions): Promise<number>;
  /** The offline tools on a store folder (offline.ts); `quiet`: no progress on stderr. */
  dump(dir: string, opts: { out: string | undefined; gzip: boolean; quiet: boolean }): Promise<number>;
  loadOffline(dir: string, files: string[], opts: { label: string | undefined; format: string | undefined; quiet: boolean }): Promise<number>;
  restore(file: string, to: string, opts: { quiet: boolean }): Promise<number>;
  compact(dir: string, opts: { quiet: boolean }): Promise<number>;
  queryOffline(dir: string, text: string, actor: Actor, opts: { format: string; defaultLabel: string; quiet: boolean }): Promise<number>;
  updateOffline(dir: string, text: string, actor: Actor, opts: { label: string | undefined; defaultLabel: string; quiet: boolean }): Promise<number>;
}

const ENVIRONMENT = `environment:
  IANODE_URL      the dataset's URL for load and query (default http://localhost:$GRAPH_PORT/ds)
  IDP_ID_TOKEN    the ID token load and query send (\`eval "$(ianode token)"\` sets it)
  IDP_URL, CLIENT_ID, IDP_ADMIN_PASSWORD   what token signs in with (the demo's by default)
  IANODE_DATA_DIR (./data), IDP_PORT (9229), ACCESS_PORT (8091), GRAPH_PORT (3030), LOG_LEVEL (warn)   for up`;

export const USAGE = `usage: ianode <command> [options]     (ianode <command> --help for one command)
commands:
  up                          the identity provider (9229), access service (8091) and graph server (3030, secure
                              mode) as three supervised processes, data in ./data, the demo seeded (= npm start)
  graph [options]             the graph server alone (open mode unless JWKS_URL is set); ianode graph --help
  access [options]            the access service alone; ianode access --help
  idp serve [options]         the identity provider alone; ianode idp --help
  load FILE [--label L]       upload RDF (.ttl .trig .nt .nq .jsonld) with $IDP_ID_TOKEN
  query 'SELECT …' [--accept TYPE]   run a SPARQL query with $IDP_ID_TOKEN, print the answer
offline tools on a store folder (refused, exit 3, while a server holds it; docs/operations.md):
  load DIR FILE… [--label L]  bulk load into the folder (created when absent), with progress
  dump DIR [--out F] [--gzip] every quad with its label, as TriG plus the labels graph
  backup --server URL --dataset NAME [--wait]   an online backup by the graph server (same format)
  restore FILE --to DIR       a dump into a new or empty folder
  compact DIR                 drop deleted rows, write a checkpoint
  query DIR 'SPARQL' --as ATTRS|--all    a query as a set of attributes (or as all)
  update DIR 'UPDATE' --as ATTRS|--all [--label L]   an update, as a set of attributes
  token [EMAIL]               sign a demo user in; prints export IDP_ID_TOKEN=…
  kafka send FILE [--label L] put FILE on the Kafka topic the graph server ingests ($KAFKA_BOOTSTRAP_SERVERS,
                              $IANODE_KAFKA_TOPIC)
  kafka status [--server URL] the topic's end offsets; with --server the graph server's connectors
  labels stats|quads|relabel --server URL   label administration over the graph server's API ($IDP_ID_TOKEN)
  store verify DIR            check every file of a store folder (exit 0 healthy, 1 damaged)
  store recover DIR --to NEW  write every commit before the first damage to a new store folder
  help [COMMAND]              this text, or one command's
options: -h, --help   usage;  -v, --version   the version
exit codes: 0 done, 1 failed, 2 usage error, 3 the store folder is held by another process
${ENVIRONMENT}`;

const STORE_USAGE = `usage: ianode store verify DIR             check every file of a store folder (exit 0 healthy, 1 damaged)
       ianode store recover DIR --to NEW_DIR  write every commit before the first damage to a new store folder
Both only read DIR; run them while the graph server is stopped (docs/operations.md).`;

interface Command {
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Positional arguments allowed: [min, max]. */
  positionals: [number, number];
  run(values: Record<string, string | boolean | string[] | undefined>, positionals: string[], io: Io, actions: Actions): Promise<number>;
}

const KAFKA_USAGE = `usage: ianode kafka send FILE [--label L] [--content-type T] [--topic T] [--brokers B]
       ianode kafka status [--topic T] [--brokers B] [--server URL]
environment: KAFKA_BOOTSTRAP_SERVERS (host:port,…), IANODE_KAFKA_TOPIC`;

const KAFKA_ENVIRONMENT = `  --topic T       the topic (default $IANODE_KAFKA_TOPIC)
  --brokers B     bootstrap brokers host:port,… (default $KAFKA_BOOTSTRAP_SERVERS)`;

/** --brokers, else $KAFKA_BOOTSTRAP_SERVERS; a malformed list is a usage error. */
function kafkaBrokers(value: string | boolean | string[] | undefined, env: NodeJS.ProcessEnv): string[] | undefined {
  const text = str(value) ?? env.KAFKA_BOOTSTRAP_SERVERS;
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseBrokers(text);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (--brokers or $KAFKA_BOOTSTRAP_SERVERS)`);
  }
}

const kafkaTopic = (value: string | boolean | string[] | undefined, env: NodeJS.ProcessEnv) => {
  const topic = str(value) ?? env.IANODE_KAFKA_TOPIC;
  return topic === undefined || topic === '' ? undefined : topic;
};

const LABELS_USAGE = `usage: ianode labels stats [--json]
       ianode labels quads --label L [--limit N] [--json]
       ianode labels relabel --to L [--from L] [--s T] [--p T] [--o T] [--g T]
each with [--server URL] [--dataset NAME]; $IDP_ID_TOKEN is sent (an administrator's)`;

const LABELS_TARGET = `  --server URL    the graph server (default: the origin of $IANODE_URL, else http://localhost:3030)
  --dataset NAME  the dataset (default: the path of $IANODE_URL, else ds)
$IDP_ID_TOKEN is sent as the bearer token: the user needs the dataset's admin permission, and sees
(and relabels) only what their attributes let them read (docs/graph-server.md "Label administration").`;

/** --server/--dataset, else $IANODE_URL's origin and path, else http://localhost:$GRAPH_PORT and ds. */
function labelsTarget(v: Record<string, string | boolean | string[] | undefined>, env: NodeJS.ProcessEnv): LabelsTarget {
  const server = str(v.server);
  if (server !== undefined && !/^https?:\/\/[^/]/.test(server)) throw new UsageError(`--server ${JSON.stringify(server)} is not an http(s) URL`);
  let fallback: URL;
  try {
    fallback = new URL(datasetUrl(env));
  } catch {
    throw new UsageError(`$IANODE_URL ${JSON.stringify(env.IANODE_URL)} is not a URL`);
  }
  const dataset = str(v.dataset) ?? (fallback.pathname.replace(/^\/+|\/+$/g, '') || 'ds');
  if (!/^[A-Za-z0-9_.-]+$/.test(dataset)) throw new UsageError(`--dataset ${JSON.stringify(dataset)}: a dataset name (letters, digits, _ . -)`);
  return { server: server ?? fallback.origin, dataset, token: env.IDP_ID_TOKEN };
}

const datasetUrl = (env: NodeJS.ProcessEnv) => env.IANODE_URL ?? `http://localhost:${env.GRAPH_PORT ?? 3030}/ds`;
const str = (value: string | boolean | string[] | undefined) => (typeof value === 'string' ? value : undefined);

const COMMANDS: Record<string, Command> = {
  up: {
    usage: `usage: ianode up     (npm start runs it after the build)
Starts the identity provider, then the access service, then the graph server (secure mode), each once
the one before answers its health check, and restarts one that crashes. The first start seeds the demo
pool, directory and labelled data, and every start prints the export lines for a second shell.
Ctrl-C stops all three.
environment: IANODE_DATA_DIR (./data), IDP_PORT (9229), ACCESS_PORT (8091), GRAPH_PORT (3030),
  IANODE_HOST (127.0.0.1), LOG_LEVEL (warn), IANODE_CONFIG (config/graph-secure.yaml),
  IANODE_DEMO_DATA (config/demo-data.trig; none: no demo data), IDP_REGION (us-east-1)`,
    options: {},
    positionals: [0, 0],
    run: (_v, _p, _io, actions) => actions.up(),
  },
  load: {
    usage: `usage: ianode load FILE [--label LABEL] [--url URL]          upload to a running graph server
       ianode load DIR FILE… [--label LABEL] [--format F] [--quiet]   bulk load into a store folder (offline)
Uploads FILE to URL/upload with $IDP_ID_TOKEN; the format comes from the extension: .ttl .trig .nt .nq .jsonld.
  --label LABEL   the Security-Label of every quad without one in the file (labels-graph entries win)
  --url URL       the dataset (default $IANODE_URL, else http://localhost:3030/ds)
With a folder and files: loads each file as one transaction into the store folder DIR (created when
absent) at full speed, with its labels graph (<http://ndtp.co.uk/security#labels>) and --label, then
writes a checkpoint; progress and ETA on stderr, the figures (triples/s) on stdout. Refused (exit 3)
while a graph server or another tool holds DIR.
  --format F      ttl, trig, nt, nq or a media type (default: from the extension; .gz files are unzipped)
  --quiet         no progress`,
    options: { label: { type: 'string' }, url: { type: 'string' }, format: { type: 'string' }, quiet: { type: 'boolean', short: 'q' } },
    positionals: [1, Infinity],
    run: (v, [first, ...files], io, actions) => {
      if (files.length > 0) {
        if (v.url !== undefined) throw new UsageError('--url is for an upload to a server (ianode load FILE); ianode load DIR FILE… loads a folder');
        return actions.loadOffline(first!, files, { label: str(v.label), format: str(v.format), quiet: v.quiet === true });
      }
      if (isFolder(first!)) throw new UsageError(`${first} is a folder: ianode load DIR FILE… loads files into a store folder`);
      if (v.format !== undefined || v.quiet !== undefined) throw new UsageError('--format and --quiet are for ianode load DIR FILE… (offline)');
      return actions.load(first!, { url: str(v.url) ?? datasetUrl(io.env), token: io.env.IDP_ID_TOKEN, label: str(v.label) });
    },
  },
  dump: {
    usage: `usage: ianode dump DIR [--out FILE] [--gzip] [--quiet]
Writes every quad of the store folder DIR with its label as TriG: the data, then the labels graph
<http://ndtp.co.uk/security#labels> with one entry per quad that has a label of its own and per
pending label (docs/operations.md "Dump format"). Quads stored without a label stay without one.
It re-loads with ianode restore, ianode load or POST /ds/upload (application/trig).
Refused (exit 3) while a graph server or another tool holds DIR.
  --out FILE   write to FILE (default stdout)
  --gzip       gzip the output (name it .trig.gz)
  --quiet      no progress on stderr`,
    options: { out: { type: 'string', short: 'o' }, gzip: { type: 'boolean', short: 'z' }, quiet: { type: 'boolean', short: 'q' } },
    positionals: [1, 1],
    run: (v, [dir], _io, actions) => actions.dump(dir!, { out: str(v.out), gzip: v.gzip === true, quiet: v.quiet === true }),
  },
  backup: {
    usage: `usage: ianode backup --server URL --dataset NAME [--wait] [--quiet]
Asks the graph server at URL for an online backup of dataset NAME (POST URL/$/backup/NAME, with
$IDP_ID_TOKEN: administrators only): a consistent snapshot, taken while reads and writes go on, written
by the server into its backup.dir as NAME_<UTC time>Z.trig.gz (TriG plus the labels graph, as ianode
dump writes; docs/operations.md "Backups"). Prints the task; restore a file with ianode restore FILE --to DIR.
  --server URL    the graph server (default: the origin of $IANODE_URL, else http://localhost:3030)
  --dataset NAME  the dataset to back up
  --wait          follow the task until it ends, with progress on stderr; exit 1 if it failed
  --quiet         no progress
Offline, on a stopped server's folder: ianode dump DIR --out FILE.trig.gz --gzip.`,
    options: { server: { type: 'string' }, dataset: { type: 'string' }, wait: { type: 'boolean', short: 'w' }, quiet: { type: 'boolean', short: 'q' } },
    positionals: [0, 0],
    run: (v, _p, io, actions) => {
      const server = str(v.server) ?? new URL(datasetUrl(io.env)).origin;
      if (!/^https?:\/\/[^/]/.test(server)) throw new UsageError(`--server ${JSON.stringify(server)} is not an http(s) URL`);
      const dataset = str(v.dataset);
      if (dataset === undefined || dataset === '') throw new UsageError('needs --dataset NAME (the dataset to back up; GET /$/datasets lists them)');
      return actions.backup({ server, dataset, token: io.env.IDP_ID_TOKEN, wait: v.wait === true, quiet: v.quiet === true });
    },
  },
  restore: {
    usage: `usage: ianode restore FILE --to DIR [--quiet]
Loads a dump (ianode dump; .trig or .trig.gz) into DIR, which must be new or empty, with every
label as it was, then writes a checkpoint. Refused (exit 3) while another process holds DIR.
  --quiet      no progress on stderr`,
    options: { to: { type: 'string' }, quiet: { type: 'boolean', short: 'q' } },
    positionals: [1, 1],
    run: (v, [file], _io, actions) => {
      const to = str(v.to);
      if (to === undefined) throw new UsageError('needs --to DIR (a new or empty folder)');
      return actions.restore(file!, to, { quiet: v.quiet === true });
    },
  },
  compact: {
    usage: `usage: ianode compact DIR [--quiet]
Drops the rows of deleted quads and writes a checkpoint (the log starts empty): a smaller folder and
a faster open. Refused (exit 3) while a graph server or another tool holds DIR.`,
    options: { quiet: { type: 'boolean', short: 'q' } },
    positionals: [1, 1],
    run: (v, [dir], _io, actions) => actions.compact(dir!, { quiet: v.quiet === true }),
  },
  update: {
    usage: `usage: ianode update DIR 'UPDATE'|--file F (--as ATTRS|--all) [--hierarchy NAME=T1,T2,…] [--label L]
Runs a SPARQL Update on the store folder DIR as one transaction, as a caller with the attributes ATTRS
(comma-separated, e.g. --as clearance=S,employee) would over HTTP: quads whose label ATTRS do not
satisfy are neither seen nor changed, and a write labelling data ATTRS could not read is refused.
--all: no ABAC (every quad). One of --as and --all is required. Refused (exit 3) while another
process holds DIR.
  --label L            the label of the quads the update inserts (default: none, the dataset default)
  --hierarchy H        an attribute hierarchy, lowest first, e.g. clearance=O,OS,S,TS (repeatable)
  --default-label L    the dataset's default label (default !, as the graph server's)
  --file F             read the update from F`,
    options: {
      as: { type: 'string' }, all: { type: 'boolean' }, hierarchy: { type: 'string', multiple: true }, label: { type: 'string' },
      file: { type: 'string', short: 'f' }, 'default-label': { type: 'string' }, quiet: { type: 'boolean', short: 'q' },
    },
    positionals: [1, 2],
    run: (v, [dir, text], _io, actions) => {
      const update = textOf(text, v.file, 'UPDATE');
      const actor = offlineActor(v);
      return actions.updateOffline(dir!, update, actor, { label: str(v.label), defaultLabel: str(v['default-label']) ?? '!', quiet: v.quiet === true });
    },
  },
  query: {
    usage: `usage: ianode query 'SPARQL' [--accept TYPE] [--url URL]          ask a running graph server
       ianode query DIR 'SPARQL'|--file F (--as ATTRS|--all) [--hierarchy NAME=T1,T2,…] [--format json|csv|tsv|table]
Runs the query against URL/query with $IDP_ID_TOKEN and prints the answer.
  --accept TYPE   the answer's media type, e.g. text/csv, application/sparql-results+json, text/turtle
  --url URL       the dataset (default $IANODE_URL, else http://localhost:3030/ds)
With a store folder DIR (offline, no server): the query runs over DIR as a caller with the attributes
ATTRS (comma-separated, e.g. --as clearance=S,employee) would see it, or over every quad with --all
(no ABAC). One of --as and --all is required. Refused (exit 3) while another process holds DIR.
  --hierarchy H        an attribute hierarchy, lowest first, e.g. clearance=O,OS,S,TS (repeatable)
  --default-label L    the dataset's default label, for quads stored without one (default !)
  --format F           json (default), csv, tsv or table; CONSTRUCT/DESCRIBE answer TriG
  --file F             read the query from F`,
    options: {
      accept: { type: 'string' }, url: { type: 'string' }, as: { type: 'string' }, all: { type: 'boolean' }, hierarchy: { type: 'string', multiple: true },
      format: { type: 'string' }, file: { type: 'string', short: 'f' }, 'default-label': { type: 'string' }, quiet: { type: 'boolean', short: 'q' },
    },
    positionals: [1, 2],
    run: (v, positionals, io, actions) => {
      const offline = v.as !== undefined || v.all !== undefined || v.file !== undefined || v.hierarchy !== undefined || v.format !== undefined || v['default-label'] !== undefined;
      if (!offline && positionals.length === 2 && isFolder(positionals[0]!)) throw new UsageError(`a query over the store folder ${positionals[0]} needs --as ATTRS or --all`);
      if (!offline) {
        if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
        return actions.query(positionals[0]!, { url: str(v.url) ?? datasetUrl(io.env), token: io.env.IDP_ID_TOKEN, accept: str(v.accept) });
      }
      if (v.url !== undefined || v.accept !== undefined) throw new UsageError('--url and --accept are for a query to a server; over a folder use --format');
      const [dir, text] = positionals;
      const query = textOf(text, v.file, 'SPARQL');
      return actions.queryOffline(dir!, query, offlineActor(v), { format: str(v.format) ?? 'json', defaultLabel: str(v['default-label']) ?? '!', quiet: v.quiet === true });
    },
  },
  token: {
    usage: `usage: ianode token [EMAIL]
Signs EMAIL in at the identity provider (USER_PASSWORD_AUTH) and prints export IDP_ID_TOKEN=…;
eval "$(ianode token admin@ianode.local)" sets it in your shell. EMAIL defaults to $USER_EMAIL,
else user@ianode.local. Reads IDP_URL (http://localhost:9229), CLIENT_ID and IDP_ADMIN_PASSWORD
(the demo's by default).`,
    options: {},
    positionals: [0, 1],
    run: (_v, [user], io, actions) => actions.token(user ?? io.env.USER_EMAIL ?? 'user@ianode.local', io.env),
  },
  kafka: {
    usage: KAFKA_USAGE,
    options: {},
    positionals: [0, Infinity],
    run: async (_v, [action]) => {
      throw new UsageError(action === undefined ? 'needs send or status' : `no kafka action ${JSON.stringify(action)}: send or status`);
    },
  },
  'kafka send': {
    usage: `usage: ianode kafka send FILE [--label L] [--content-type T] [--topic T] [--brokers B]
Produces one message with FILE's bytes (- reads stdin) to the topic, acknowledged by every in-sync
replica, and prints where it went: sent to TOPIC partition P offset O. Headers: Content-Type always,
Security-Label with --label.
  --content-type T   default from the extension: .ttl .nt .nq .trig .jsonld .rdf .owl (RDF),
                     .rp .rdfp (application/rdf-patch), .ru .rq (application/sparql-update)
  --label L          the Security-Label header: the label of every quad without one
${KAFKA_ENVIRONMENT}`,
    options: { label: { type: 'string' }, 'content-type': { type: 'string' }, topic: { type: 'string' }, brokers: { type: 'string' } },
    positionals: [1, 1],
    run: (v, [file], io, actions) => {
      const contentType = str(v['content-type']) ?? contentTypeFor(file!);
      if (contentType === undefined) {
        throw new UsageError(file === '-' ? 'stdin needs --content-type' : `cannot tell the content type of ${file}: give --content-type or use ${EXTENSIONS}`);
      }
      const brokers = kafkaBrokers(v.brokers, io.env);
      if (brokers === undefined) throw new UsageError('needs --brokers or $KAFKA_BOOTSTRAP_SERVERS');
      const topic = kafkaTopic(v.topic, io.env);
      if (topic === undefined) throw new UsageError('needs --topic or $IANODE_KAFKA_TOPIC');
      return actions.kafkaSend(file!, { brokers, topic, contentType, label: str(v.label) });
    },
  },
  'kafka status': {
    usage: `usage: ianode kafka status [--topic T] [--brokers B] [--server URL]
Prints the topic's partitions with their first and end offsets (end: the offset of the next message),
and with --server the graph server's GET /$/kafka: each connector's dataset, topic, state and per
partition the offset applied, the end and the lag ($IDP_ID_TOKEN is sent when set).
  --server URL    the graph server (e.g. http://localhost:3030)
${KAFKA_ENVIRONMENT}`,
    options: { topic: { type: 'string' }, brokers: { type: 'string' }, server: { type: 'string' } },
    positionals: [0, 0],
    run: (v, _p, io, actions) => {
      const brokers = kafkaBrokers(v.brokers, io.env);
      const topic = kafkaTopic(v.topic, io.env);
      const server = str(v.server);
      if (server !== undefined && !/^https?:\/\/[^/]/.test(server)) throw new UsageError(`--server ${JSON.stringify(server)} is not an http(s) URL`);
      if (server === undefined && (brokers === undefined || topic === undefined)) {
        throw new UsageError(`needs ${brokers === undefined ? '--brokers or $KAFKA_BOOTSTRAP_SERVERS' : '--topic or $IANODE_KAFKA_TOPIC'} (or --server URL)`);
      }
      return actions.kafkaStatus({ brokers: topic === undefined ? undefined : brokers, topic: brokers === undefined ? undefined : topic, server, token: io.env.IDP_ID_TOKEN });
    },
  },
  labels: {
    usage: LABELS_USAGE,
    options: {},
    positionals: [0, Infinity],
    run: async (_v, [action]) => {
      throw new UsageError(action === undefined ? 'needs stats, quads or relabel' : `no labels action ${JSON.stringify(action)}: stats, quads or relabel`);
    },
  },
  'labels stats': {
    usage: `usage: ianode labels stats [--json] [--server URL] [--dataset NAME]
Prints the labels in use in the dataset with their quad counts (GET /DATASET/labels/stats): quads
without a label of their own count under the default label. --json prints the server's JSON.
${LABELS_TARGET}`,
    options: { server: { type: 'string' }, dataset: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [0, 0],
    run: (v, _p, io, actions) => actions.labelsStats({ ...labelsTarget(v, io.env), json: v.json === true }),
  },
  'labels quads': {
    usage: `usage: ianode labels quads --label L [--limit N] [--json] [--server URL] [--dataset NAME]
Prints the quads carrying label L (GET /DATASET/labels/quads), as N-Quads, or the server's JSON
({ label, quads, truncated }) with --json; at most N (1 to 1000000, the server's default 1000).
${LABELS_TARGET}`,
    options: { server: { type: 'string' }, dataset: { type: 'string' }, label: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [0, 0],
    run: (v, _p, io, actions) => {
      const label = str(v.label);
      if (label === undefined || label.trim() === '') throw new UsageError('needs --label L');
      const limitText = str(v.limit);
      if (limitText !== undefined && (!/^\d{1,7}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 1_000_000)) {
        throw new UsageError(`--limit ${JSON.stringify(limitText)}: a whole number from 1 to 1000000`);
      }
      return actions.labelsQuads({ ...labelsTarget(v, io.env), label, limit: limitText === undefined ? undefined : Number(limitText), json: v.json === true });
    },
  },
  'labels relabel': {
    usage: `usage: ianode labels relabel --to L [--from L] [--s T] [--p T] [--o T] [--g T] [--server URL] [--dataset NAME]
Gives label L to every quad matching the pattern (POST /DATASET/labels/relabel), in one transaction
on the server, and prints its answer ({ matched, relabelled, unchanged, labels, txId }).
  --s/--p/--o/--g T   a term of the pattern in N-Triples form, e.g. --p '<http://ex/phone>'; absent: any
  --from L            only quads now carrying label L
  --to L              the new label
${LABELS_TARGET}`,
    options: {
      server: { type: 'string' }, dataset: { type: 'string' }, to: { type: 'string' }, from: { type: 'string' },
      s: { type: 'string' }, p: { type: 'string' }, o: { type: 'string' }, g: { type: 'string' },
    },
    positionals: [0, 0],
    run: (v, _p, io, actions) => {
      const to = str(v.to);
      if (to === undefined || to.trim() === '') throw new UsageError('needs --to L (the new label)');
      const pattern: LabelsRelabelOptions['pattern'] = {};
      for (const position of ['s', 'p', 'o', 'g'] as const) {
        const term = str(v[position]);
        if (term !== undefined) pattern[position] = term;
      }
      return actions.labelsRelabel({ ...labelsTarget(v, io.env), pattern, from: str(v.from), to });
    },
  },
  store: {
    usage: STORE_USAGE,
    options: {},
    positionals: [0, Infinity],
    run: async (_v, [action]) => {
      throw new UsageError(action === undefined ? 'needs verify or recover' : `no store action ${JSON.stringify(action)}: verify or recover`);
    },
  },
  'store verify': {
    usage: `usage: ianode store verify DIR
Checks every file of the store folder DIR (checksums, commit chain); exit 0 healthy, 1 damaged.
Only reads DIR; run it while the graph server is stopped (docs/operations.md).`,
    options: {},
    positionals: [1, 1],
    run: (_v, [dir], _io, actions) => actions.storeVerify(dir!),
  },
  'store recover': {
    usage: `usage: ianode store recover DIR --to NEW_DIR
Writes every commit of DIR before its first damage to the new store folder NEW_DIR (with a
RECOVERY.txt report). Only reads DIR; run it while the graph server is stopped (docs/operations.md).`,
    options: { to: { type: 'string' } },
    positionals: [1, 1],
    run: (v, [dir], _io, actions) => {
      const to = str(v.to);
      if (to === undefined) throw new UsageError('needs --to NEW_DIR');
      return actions.storeRecover(dir!, to);
    },
  },
};

function isFolder(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

/** The query or update: the positional text or --file, exactly one. */
function textOf(text: string | undefined, file: string | boolean | string[] | undefined, what: string): string {
  if (typeof file === 'string') {
    if (text !== undefined) throw new UsageError(`give the ${what} text or --file, not both`);
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`--file ${file}: ${(error as Error).message}`);
    }
  }
  if (text === undefined) throw new UsageError(`needs the ${what} text or --file F`);
  return text;
}

function offlineActor(v: Record<string, string | boolean | string[] | undefined>): Actor {
  try {
    return actorOf(str(v.as as string | undefined), v.all === true, (v.hierarchy as string[] | undefined) ?? []);
  } catch (error) {
    if (error instanceof OfflineUsageError) throw new UsageError(error.message);
    throw error;
  }
}

const EXTENSIONS = Object.keys(KAFKA_EXTENSION_TYPES).map((e) => `.${e}`).join(' ');

const SERVICES = { graph: '@ianode/graph-server', access: '@ianode/access-service', idp: '@ianode/idp' } as const;

/** A mistake in the command line: exit 2 with the usage of the command it concerns. */
export class UsageError extends Error {}

function version(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}

/** Reads the arguments of one command; `help` true when -h/--help is among them (nothing else is checked then). */
function readArgs(command: Command, args: string[]): { help: boolean; values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    // A help request wins over any mistake beside it (`ianode load --bogus --help`).
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      if (args.some((a) => a === '--help' || a === '-h')) return { help: true, values: {}, positionals: [] };
      throw new UsageError((error as Error).message.split('. ')[0]!.replace(/\.$/, ''));
    }
    throw error;
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, values, positionals };
  const [min, max] = command.positionals;
  if (positionals.length < min) throw new UsageError(`missing argument${min - positionals.length > 1 ? 's' : ''}`);
  if (positionals.length > max) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[max])}`);
  return { help: false, values, positionals };
}

/** Runs `ianode ARGV…`; returns the exit code. Errors of a command that ran are the caller's (exit 1). */
export async function runCli(argv: string[], io: Io, actions: Actions): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`ianode ${version()}\n`);
    return 0;
  }
  if (name === 'help') {
    const topic = rest.join(' ');
    const command = COMMANDS[topic];
    if (topic !== '' && command === undefined && !(topic in SERVICES)) {
      io.stderr(`ianode: no command ${topic}\n${USAGE}\n`);
      return 2;
    }
    if (topic in SERVICES) return actions.service(SERVICES[topic as keyof typeof SERVICES], ['--help']);
    io.stdout(`${command?.usage ?? USAGE}\n`);
    return 0;
  }
  if (name in SERVICES) return actions.service(SERVICES[name as keyof typeof SERVICES], rest);

  let key = name;
  let args = rest;
  if ((name === 'store' && (rest[0] === 'verify' || rest[0] === 'recover')) || (name === 'kafka' && (rest[0] === 'send' || rest[0] === 'status')) ||
    (name === 'labels' && (rest[0] === 'stats' || rest[0] === 'quads' || rest[0] === 'relabel'))) {
    key = `${name} ${rest[0]}`;
    args = rest.slice(1);
  }
  const command = COMMANDS[key];
  if (command === undefined) {
    io.stderr(`ianode: ${name.startsWith('-') ? 'unknown option' : 'unknown command'} ${name}\n${USAGE}\n`);
    return 2;
  }
  try {
    const { help, values, positionals } = readArgs(command, args);
    if (help) {
      io.stdout(`${command.usage}\n`);
      return 0;
    }
    return await command.run(values, positionals, io, actions);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`ianode ${key}: ${error.message}\n${command.usage}\n`);
    return 2;
  }
}
