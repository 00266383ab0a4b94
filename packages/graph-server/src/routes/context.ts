/**
 * What every route module gets from the server factory. Routes never hold the store: reads go
 * to the query workers (`queries`, which build the caller's view there), writes through the caller's write scope (`writer`), and
 * write bodies through `bodies` (read whole before the write lock, under the body timeouts).
 */
import type { BodyDeadline, SpooledBody } from '../body-reader.js';
import type { GraphServerConfig } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { Caller, Security } from '../security.js';
import type { WriteContext, Writer } from '../writes.js';
import type { KafkaConnector } from '../kafka/connector.js';
import type { GraphqlAnswer, QueryPool, SparqlAnswer } from '../pool/pool.js';
import type { GraphJob, GraphqlJob, LabelsJob, ShaclJob, SparqlJob } from '../pool/protocol.js';

/** Queries and GraphQL requests, run on the worker pool over the caller's view (../pool/pool.ts). */
export interface QueryRunner {
  sparql(caller: Caller, job: SparqlJob): Promise<SparqlAnswer>;
  graphql(caller: Caller, job: GraphqlJob): Promise<GraphqlAnswer>;
  graph(caller: Caller, job: GraphJob): Promise<SparqlAnswer>;
  /** The labels of the caller's view (`GET /{ds}/labels`). */
  labels(caller: Caller, job: LabelsJob): Promise<SparqlAnswer>;
  /** A SHACL validation over the caller's view (`POST /{ds}/shacl`). */
  shacl(caller: Caller, job: ShaclJob): Promise<SparqlAnswer>;
  readonly pool: QueryPool;
}

/** Reading write bodies (../body-reader.ts). */
export interface BodyReader {
  /** The idle/total deadline of one request's body, ended by a graceful stop too; stop it when
   * the body is read. */
  deadline(what: string): BodyDeadline;
  /** `source` read whole under the deadline and `limit` (413), in memory or a temporary file. */
  spool(source: AsyncIterable<Uint8Array | string>, deadline: BodyDeadline, limit: number): Promise<SpooledBody>;
}

export interface RouteContext extends WriteContext {
  config: GraphServerConfig;
  security: Security;
  metrics: Metrics;
  baseIRI: string | undefined;
  /** The only read path routes use: queries, GraphQL and graph reads run on a worker over the
   * caller's view (SPEC §3 one enforcement point). */
  queries: QueryRunner;
  /** The only write path routes use (../writes.ts): the caller's write scope. */
  writer: Writer;
  bodies: BodyReader;
  /** Readiness: whether the store is open (no figures: they would count quads callers cannot see). */
  storeOpen(): boolean;
  /** Readiness: open, closed, or failed (a commit could not be logged: ../writes.ts WriterStatus);
   * `checkpoint`: why the last automatic checkpoint failed (the store still commits to its log).
   * Reasons are kinds of failure (errno codes), never paths or data. */
  storeStatus(): { state: 'open' | 'closed' | 'failed'; reason?: string | undefined; checkpoint?: string | undefined };
  /** Readiness: why the last audit record could not be written (`audit.file`), if it could not. */
  auditFailure(): string | undefined;
  /** The dataset's Kafka connector (../kafka/connector.ts), if it has one: with `writes: log`
   * every write route submits through it instead of `writer`. */
  kafka: KafkaConnector | undefined;
}
