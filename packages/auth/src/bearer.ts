import { AuthError, invalidToken } from './errors.js';

/** Longest token accepted; longer ones are refused before any parsing or key lookup. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** Where a token may come from: a header and the scheme word before the token (`prefix`,
 * case-insensitive; empty or absent = the header value is the token as it is). */
export interface TokenSource {
  header: string;
  prefix?: string | undefined;
}

/** Request headers as Node gives them (names in lower case). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined | null>>;

const BEARER: readonly TokenSource[] = [{ header: 'Authorization', prefix: 'Bearer' }];
const SCHEME_AND_TOKEN = /^(\S+)(?:\s+(.*))?$/s;

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
 * case-insensitive, so `bearer` works). A missing header, or one with another scheme, is
 * `MISSING_TOKEN`; a bearer header without a usable token is `INVALID_TOKEN`.
 */
export function bearerToken(authorization: string | readonly string[] | undefined | null): string {
  return tokenFromHeaders({ authorization }, BEARER);
}

/**
 * The token of a request: the first source whose header is present and carries its prefix (the
 * graph server's `security.tokenHeaders`, as the reference's configurable header names and
 * prefixes; `bearerToken` is the `Authorization: Bearer` case). None present, or only with another
 * scheme: `MISSING_TOKEN`; a matching header without one usable token: `INVALID_TOKEN`
 * (malformed). The token never appears in a message.
 */
export function tokenFromHeaders(headers: RequestHeaders, sources: readonly TokenSource[]): string {
  for (const { header, prefix } of sources) {
    const raw = headers[header.toLowerCase()];
    if (raw === undefined || raw === null) continue;
    if (typeof raw !== 'string' && raw.length !== 1) {
      if (raw.length === 0) continue;
      throw invalidToken('malformed');
    }
    const text = (typeof raw === 'string' ? raw : raw[0]!).trim();
    if (text === '') continue;
    let token: string;
    if (prefix === undefined || prefix === '') {
      token = text;
    } else {
      const match = SCHEME_AND_TOKEN.exec(text);
      if (!match || match[1]!.toLowerCase() !== prefix.toLowerCase()) continue;
      token = (match[2] ?? '').trim();
    }
    if (token === '' || /\s/.test(token) || token.length > MAX_TOKEN_LENGTH) throw invalidToken('malformed');
    return token;
  }
  const wanted = sources.map(({ header, prefix }) => (prefix ? `${header}: ${prefix} <ID token>` : `${header}: <ID token>`)).join(' or ');
  const bearerOnly = sources.length === 1 && sources[0]!.header.toLowerCase() === 'authorization';
  throw new AuthError('MISSING_TOKEN', `${bearerOnly ? 'a bearer token' : 'a token'} is required (${wanted})`);
}
