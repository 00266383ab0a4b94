/**
 * Errors of token verification and attribute resolution. One class with a closed set of codes (the
 * jose pattern); `authErrorStatus` is the one table that maps a code to an HTTP status. The
 * `message` is safe to show a client; the detailed cause (a jose error, a network error) stays in
 * `cause` for logs. No message or cause ever holds the token itself.
 */

/** Every code an `AuthError` may carry. */
export type AuthErrorCode =
  /** No bearer token in the request (401 with `WWW-Authenticate: Bearer realm="…"`). */
  | 'MISSING_TOKEN'
  /** The token is malformed, expired, not yet valid, from another issuer, or its signature fails (401). */
  | 'INVALID_TOKEN'
  /** The token is valid but the caller may not do this (403). */
  | 'FORBIDDEN'
  /** The signing keys could not be fetched or were not a JSON Web Key Set (503; never a pass). */
  | 'JWKS_UNAVAILABLE'
  /** The access service could not be reached or answered nonsense (503; never unfiltered). */
  | 'ATTRIBUTES_UNAVAILABLE'
  /** The IdP's revocation list could not be fetched for too long (503; never unchecked). */
  | 'REVOCATION_UNAVAILABLE';

/** Why a token was refused (`INVALID_TOKEN`); for logs and tests, and a hint for clients. */
export type InvalidTokenReason =
  | 'malformed'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'wrong_token_use'
  | 'wrong_client'
  | 'revoked'
  | 'missing_claim'
  | 'no_user_claim'
  | 'unknown_key'
  | 'bad_signature'
  | 'algorithm_not_allowed'
  | 'rejected';

export interface AuthErrorOptions {
  reason?: InvalidTokenReason;
  cause?: unknown;
}

/** The one error class of the package. */
export class AuthError extends Error {
  readonly code: AuthErrorCode;
  /** For `INVALID_TOKEN`: which check failed. */
  readonly reason: InvalidTokenReason | undefined;

  constructor(code: AuthErrorCode, message: string, options: AuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AuthError';
    this.code = code;
    this.reason = options.reason;
  }
}

const STATUS: Record<AuthErrorCode, number> = {
  MISSING_TOKEN: 401,
  INVALID_TOKEN: 401,
  FORBIDDEN: 403,
  JWKS_UNAVAILABLE: 503,
  ATTRIBUTES_UNAVAILABLE: 503,
  REVOCATION_UNAVAILABLE: 503,
};

/** The HTTP status of an auth error code: the one table every server uses. */
export function authErrorStatus(code: AuthErrorCode): number {
  return STATUS[code];
}

/** The realm every ianode service names in `WWW-Authenticate`. */
export const DEFAULT_REALM = 'ianode';

/**
 * The `WWW-Authenticate` challenge (RFC 6750 §3) for an error, or `undefined` when the status
 * carries none (503).
 */
export function authChallenge(error: AuthError, realm: string = DEFAULT_REALM): string | undefined {
  const base = `Bearer realm="${realm}"`;
  switch (error.code) {
    case 'MISSING_TOKEN':
      return base;
    case 'INVALID_TOKEN':
      return `${base}, error="invalid_token", error_description="${quote(error.message)}"`;
    case 'FORBIDDEN':
      return `${base}, error="insufficient_scope", error_description="${quote(error.message)}"`;
    case 'JWKS_UNAVAILABLE':
    case 'ATTRIBUTES_UNAVAILABLE':
    case 'REVOCATION_UNAVAILABLE':
      return undefined;
  }
}

function quote(text: string): string {
  return text.replace(/[\\"]/g, '').replace(/[^\x20-\x7e]/g, '?');
}

/** The client-facing message of an `INVALID_TOKEN` reason: says what to do, not how we checked. */
export function invalidTokenMessage(reason: InvalidTokenReason): string {
  switch (reason) {
    case 'expired':
      return 'token expired: fetch a new one';
    case 'not_yet_valid':
      return 'token not yet valid: check the clocks';
    case 'wrong_issuer':
      return 'token issuer not accepted here';
    case 'wrong_audience':
      return 'token audience (aud) is not a client accepted here';
    case 'wrong_token_use':
      return 'token_use not accepted here: send an ID token (token_use "id")';
    case 'wrong_client':
      return 'access token client_id is not a client accepted here';
    case 'revoked':
      return 'token revoked or signed out: sign in again';
    case 'missing_claim':
      return 'token lacks a required claim (iss, sub, exp, token_use)';
    case 'no_user_claim':
      return 'token names no user';
    default:
      return 'invalid token';
  }
}

/** Shorthand for an `INVALID_TOKEN` error with the standard message of its reason. */
export function invalidToken(reason: InvalidTokenReason, cause?: unknown): AuthError {
  return new AuthError('INVALID_TOKEN', invalidTokenMessage(reason), { reason, cause });
}
