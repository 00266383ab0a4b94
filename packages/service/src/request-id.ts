/**
 * Request ids: every request gets one, every reply names it in a header, and every log line of
 * the request carries it (`reqId`). A caller's own id is kept when it is safe to log.
 */
import { randomUUID } from 'node:crypto';

/** A caller-given id kept as is: a short word of letters, digits and `. _ : -` (nothing a log line or header could misread). */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The header that carries request ids by default (read from the caller, echoed on every reply). */
export const REQUEST_ID_HEADER = 'x-request-id';

export interface RequestIdOptions {
  /** Header echoed on every reply (and read from the request when `fromClient`); default `x-request-id`. */
  header?: string;
  /** Keep a caller's safe id from `header` (default true); false: always a fresh UUID. */
  fromClient?: boolean;
}

/** The id of a request: the caller's, when allowed and safe, else a random UUID. */
export function requestIdOf(given: string | string[] | undefined, fromClient = true): string {
  return fromClient && typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}
