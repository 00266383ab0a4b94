import { AuthError, invalidToken } from './errors.js';

/** Longest token accepted; longer ones are refused before any parsing or key lookup. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
 * case-insensitive, so `bearer` works). A missing header, or one with another scheme, is
 * `MISSING_TOKEN`; a bearer header without a usable token is `INVALID_TOKEN`.
 */
export function bearerToken(authorization: string | readonly string[] | undefined | null): string {
  if (authorization === undefined || authorization === null) throw missing();
  if (typeof authorization !== 'string') {
    if (authorization.length === 0) throw missing();
    if (authorization.length !== 1) throw invalidToken('malformed');
    return bearerToken(authorization[0]);
  }
  const text = authorization.trim();
  if (text === '') throw missing();
  const match = /^(\S+)(?:\s+(.*))?$/s.exec(text);
  if (!match || match[1]!.toLowerCase() !== 'bearer') {
    throw new AuthError('MISSING_TOKEN', 'a bearer token is required (Authorization: Bearer <ID token>)');
  }
  const token = (match[2] ?? '').trim();
  if (token === '' || /\s/.test(token) || token.length > MAX_TOKEN_LENGTH) throw invalidToken('malformed');
  return token;
}

function missing(): AuthError {
  return new AuthError('MISSING_TOKEN', 'a bearer token is required (Authorization: Bearer <ID token>)');
}
