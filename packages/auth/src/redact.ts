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
