import { createHash } from 'node:crypto';

/**
 * A loggable stand-in for a token: never the token, but a short SHA-256 fingerprint so log lines
 * about the same token can be correlated. `undefined`/empty gives `'<none>'`.
 */
export function redact(token: string | undefined | null): string {
  if (!token) return '<none>';
  const digest = createHash('sha256').update(token).digest('hex').slice(0, 12);
  return `<token sha256:${digest} len=${token.length}>`;
}

/**
 * Replaces every bearer credential in a header value (or any text) by its `redact` form, for logging
 * request headers or error texts that might echo one.
 */
export function redactAuthorization(text: string): string {
  return text.replace(/\b(bearer)\s+([A-Za-z0-9._~+/=-]+)/gi, (_m, scheme: string, token: string) => `${scheme} ${redact(token)}`);
}

/** Query parameters whose values are credentials (compared case-insensitively, `-`/`_` ignored). */
const SECRET_PARAMETERS = new Set([
  'accesstoken',
  'idtoken',
  'token',
  'refreshtoken',
  'code',
  'password',
  'newpassword',
  'clientsecret',
  'secret',
  'jwt',
  'auth',
  'authorization',
  'apikey',
  'key',
  'signature',
  'xamzsignature',
  'xamzcredential',
  'xamzsecuritytoken',
  'sessiontoken',
  'session',
  'state',
  'codeverifier',
  'assertion',
]);

/** Something shaped like a compact JWS/JWE (`eyJ…` base64url segments separated by dots). */
const JWT_LIKE = /eyJ[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]*){1,4}/g;

/**
 * A request URL fit for a log line: the value of every credential-like query parameter
 * (`access_token`, `id_token`, `code`, `refresh_token`, `password`, …) replaced by `[redacted]`, and
 * anything shaped like a JWT, wherever it appears (path or query, any parameter name), replaced by
 * its `redact` fingerprint. The path and harmless parameters stay readable.
 */
export function redactUrl(url: string | undefined | null): string {
  if (!url) return '';
  const at = url.indexOf('?');
  const path = (at < 0 ? url : url.slice(0, at)).replace(JWT_LIKE, (token) => redact(token));
  if (at < 0) return path;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // keep the raw name
      }
      if (eq >= 0 && SECRET_PARAMETERS.has(name.toLowerCase().replace(/[-_\s]/g, ''))) return `${rawName}=[redacted]`;
      return pair.replace(JWT_LIKE, (token) => redact(token));
    })
    .join('&');
  return `${path}?${query}`;
}

/**
 * Free text fit for a log line (an error message or cause that may echo a request's path, query,
 * graph IRI or header): bearer credentials and anything shaped like a JWT replaced by their `redact`
 * fingerprint.
 */
export function redactCredentials(text: string): string {
  return redactAuthorization(text).replace(JWT_LIKE, (token) => redact(token));
}

/** The request fields a log line keeps, with the URL passed through `redactUrl` (pino `req` serializer). */
export function requestLogFields(req: { method?: string; url?: string; hostname?: string; ip?: string; id?: unknown }): Record<string, unknown> {
  return { method: req.method, url: redactUrl(req.url), hostname: req.hostname, remoteAddress: req.ip };
}
