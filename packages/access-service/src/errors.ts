/**
 * Errors of the access service. One class with a closed set of codes; `errorStatus` is the one table
 * that maps every code the service answers with (its own and `@ianode/auth`'s) to an HTTP status.
 * The message goes to the client as `{ code, message }`, so it says what the client can act on.
 */
import { authErrorStatus, type AuthErrorCode } from '@ianode/auth';
import { errorTable, ServiceError } from '@ianode/service';

export type AccessErrorCode =
  /** A request that does not follow the schema, or a value that its definition does not allow (400). */
  | 'VALIDATION'
  /** A request body that is not JSON, or another malformed request (400). */
  | 'BAD_REQUEST'
  /** No such user, group, hierarchy, attribute or route (404). */
  | 'NOT_FOUND'
  /** The thing exists already, or a change would strand values in use (409). */
  | 'CONFLICT'
  /** Body over the limit (413). */
  | 'BODY_TOO_LARGE'
  /** Body not `application/json` (415). */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** The directory database failed (503). */
  | 'STORAGE_UNAVAILABLE'
  /** Anything unexpected (500); details only in the log. */
  | 'INTERNAL';

export class AccessError extends ServiceError<AccessErrorCode> {}

const STATUS = errorTable<AccessErrorCode>({
  VALIDATION: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  STORAGE_UNAVAILABLE: 503,
  INTERNAL: 500,
});

/** The HTTP status of every error code the service answers with. */
export function errorStatus(code: AccessErrorCode | AuthErrorCode): number {
  return STATUS.has(code) ? STATUS.status(code) : authErrorStatus(code);
}

export const notFound = (what: string) => new AccessError('NOT_FOUND', `${what} not found`);
export const invalid = (message: string) => new AccessError('VALIDATION', message);
export const conflict = (message: string) => new AccessError('CONFLICT', message);
