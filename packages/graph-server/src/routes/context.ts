/** What every route module gets from the server factory. */
import type { QuadStore } from '@ianode/store';
import type { Dataset } from '@ianode/rdf';
import type { GraphServerConfig } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { Caller, Security } from '../security.js';

export interface RouteContext {
  config: GraphServerConfig;
  store: QuadStore;
  security: Security;
  metrics: Metrics;
  baseIRI: string | undefined;
  /** The caller's view of the data: the only read path routes use (SPEC §3 one enforcement point). */
  viewFor(caller: Caller): Dataset;
}
