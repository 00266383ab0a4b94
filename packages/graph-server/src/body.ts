/** Request-body helpers: the 413 error, UTF-8 bodies and forms (write bodies: ./body-reader.ts). */
import { GraphServerError } from './errors.js';
import { charsetOf, isUtf8Charset } from '@ianode/rdf';

export function tooLarge(limit: number): GraphServerError {
  return new GraphServerError('PAYLOAD_TOO_LARGE', `request body over the limit of ${limit} bytes; nothing was stored`);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as UTF-8 text; bytes that are not UTF-8 are 400 `${what} is not UTF-8` (never decoded with
 * replacement characters into different data). */
export function strictUtf8(bytes: Uint8Array, what: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new GraphServerError('BAD_REQUEST', `${what} is not UTF-8`);
  }
}

/**
 * A SPARQL request body (query, update or form) as text. The protocol's bodies are UTF-8: a
 * `charset` parameter naming anything else is 415, bytes that are not UTF-8 are 400 (never
 * decoded with replacement characters into a different query).
 */
export function decodeUtf8Body(body: Buffer, contentType: string | undefined): string {
  const charset = charsetOf(contentType);
  if (charset !== undefined && !isUtf8Charset(charset)) {
    throw new GraphServerError('UNSUPPORTED_MEDIA_TYPE', `SPARQL requests are UTF-8, not ${charset}`);
  }
  return strictUtf8(body, 'the request body');
}

/**
 * An `application/x-www-form-urlencoded` body: name -> value, or every value of a repeated name
 * (so a handler can refuse two `query=`). Percent-escapes must decode to UTF-8 (400 otherwise).
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
      value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      throw new GraphServerError('BAD_REQUEST', 'the form is not percent-encoded UTF-8');
    }
    const previous = form[name];
    form[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return form;
}
