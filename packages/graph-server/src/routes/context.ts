/**
 * What every route module gets from the server factory. Routes never hold the store: reads go
 * through the caller's view (`viewFor`), writes through the caller's write scope (`writer`), and
 * write bodies through `bodies` (read whole before the write lock, under the body timeouts).
 */
import type { Dataset } from '@ianode/rdf';
import type { BodyDeadline, SpooledBody } from '../body-reader.js';
import type { GraphServerConfig } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { Caller, Security } from '../security.js';
import type { Writer } from '../writes.js';

/** Reading write bodies (../body-reader.ts). */
export interface BodyReader {
  /** The idle/total deadline of one request's body, ended by a graceful stop too; stop it when
   * the body is read. */
  deadline(what: string): BodyDeadline;
  /** `source` read whole under the deadline and `limit` (413), in memory or a temporary file. */
  spool(source: AsyncIterable<Uint8Array | string>, deadline: BodyDeadline, limit: number): Promise<SpooledBody>;
}

export interface RouteContext {
  config: GraphServerConfig;
  security: Security;
  metrics: Metrics;
  baseIRI: string | undefined;
  /** The caller's view of the data: the only read path routes use (SPEC §3 one enforcement point). */
  viewFor(caller: Caller): Dataset;
  /** The only write path routes use (../writes.ts): the caller's write scope. */
  writer: Writer;
  bodies: BodyReader;
  /** Readiness: whether the store is open (no figures: they would count quads callers cannot see). */
  storeOpen(): boolean;
}
