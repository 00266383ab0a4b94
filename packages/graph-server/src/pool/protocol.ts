/**
 * The messages between the graph server's main thread and its query workers (./pool.ts,
 * ./worker.ts). Everything here is structured-clone data; the store state's arrays are shared
 * memory (@ianode/store shared-state.ts), result chunks are transferred, never copied.
 */
import type { SharedStoreState } from '@ianode/store';
import type { GraphqlRequest, SchemaName } from '@ianode/graphql';
import type { ErrorReply } from '../errors.js';
import type { GraphTarget } from './graph-read.js';
import type { ShaclInput } from './shacl-run.js';

/**
 * What the caller may see, as data: the attribute strings and hierarchies the access service
 * resolved (../security.ts). The worker builds the same LabelEvaluator from it that the main
 * thread would. `undefined` is open mode only (no ABAC): see `grantOf`.
 */
export interface Grant {
  attributes: string[];
  hierarchies: [name: string, tiers: string[]][];
}

export interface SparqlJob {
  type: 'sparql';
  query: string;
  /** The request's Accept header (negotiated on the worker, once the query form is known), or
   * what its `format` / `output` parameter stands for (../format-param.ts). */
  accept: string | undefined;
  /** The `format` / `output` parameter as given, when it replaced the Accept header (messages). */
  format?: string | undefined;
  deadline: number | undefined;
  rowBudget: number | undefined;
  /** The result size limit (SPEC §4): one row more is a 413. 0 = none. */
  resultRows: number;
  baseIRI: string | undefined;
  defaultGraphs: string[] | undefined;
  namedGraphs: string[] | undefined;
}

export interface GraphqlJob {
  type: 'graphql';
  request: GraphqlRequest;
  deadline: number | undefined;
  /** Which of the four graphql-jena schemas answers (absent: the IES schema). */
  schema?: SchemaName | undefined;
}

/** A Graph Store Protocol read (GET/HEAD). */
export interface GraphJob {
  type: 'graph';
  target: GraphTarget;
  accept: string | undefined;
  /** The `format` / `output` parameter as given, when it replaced the Accept header (messages). */
  format?: string | undefined;
  /** For the 404 message. */
  datasetName: string;
}

/** `GET /{ds}/labels`: the labels of the caller's view as RDF (./labels-read.ts). */
export interface LabelsJob {
  type: 'labels';
  accept: string | undefined;
  format?: string | undefined;
  /** `dump` (default): the labels graph; `stats`: labels in use with quad counts; `quads`: the
   * quads carrying `label` (at most `limit`). */
  mode?: 'dump' | 'stats' | 'quads' | undefined;
  /** The dataset's default label (stats and quads). */
  defaultLabel?: string | undefined;
  label?: string | undefined;
  limit?: number | undefined;
}

/** `POST /{ds}/shacl`: SHACL validation over the caller's view (./shacl-run.ts). */
export interface ShaclJob extends ShaclInput {
  type: 'shacl';
  deadline: number | undefined;
}

export type Job = SparqlJob | GraphqlJob | GraphJob | LabelsJob | ShaclJob;

/** Main -> worker. */
export type ToWorker =
  | { type: 'run'; id: number; job: Job; grant: Grant | undefined; open: boolean; state: SharedStoreState | undefined }
  /** A newer store state for an idle worker, so it does not keep an old one's memory alive. */
  | { type: 'state'; state: SharedStoreState }
  /** The main thread has passed on `n` more chunks: the worker may send that many more. */
  | { type: 'credit'; id: number; n: number }
  /** The client went away: stop at the next chance. */
  | { type: 'cancel'; id: number };

/** Worker -> main. */
export type FromWorker =
  | { type: 'ready' }
  /** A streamed answer (SPARQL result, graph) starts: the first chunk was produced without error. */
  | { type: 'head'; id: number; mediaType: string }
  | { type: 'chunk'; id: number; bytes: Uint8Array }
  | { type: 'end'; id: number; rows: number }
  /** A GraphQL answer: status and the JSON text of the body. */
  | { type: 'graphql'; id: number; status: number; body: string; ok: boolean; scans: number }
  /** The job failed: the reply the error table gives (../errors.ts), and for a server fault what
   * to log (never sent to the client). */
  | { type: 'error'; id: number; reply: ErrorReply; fault: { message: string; stack: string | undefined } | undefined };

/** Chunks a worker may have sent that the main thread has not passed on yet. */
export const CHUNK_WINDOW = 4;
