/** Request-body helpers: byte limits on streamed bodies and whole-text reads. */
import { GraphServerError } from './errors.js';

/** Passes `source` through, failing with 413 once more than `limit` bytes went by. */
export async function* limitBytes(source: AsyncIterable<Uint8Array | string>, limit: number): AsyncGenerator<Uint8Array | string> {
  let seen = 0;
  for await (const chunk of source) {
    seen += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (seen > limit) throw tooLarge(limit);
    yield chunk;
  }
}

export function tooLarge(limit: number): GraphServerError {
  return new GraphServerError('PAYLOAD_TOO_LARGE', `request body over the limit of ${limit} bytes; nothing was stored`);
}

/** The whole body as UTF-8 text. */
export async function readText(source: AsyncIterable<Uint8Array | string>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}
