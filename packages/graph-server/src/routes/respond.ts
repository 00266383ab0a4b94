/** Streaming a query result: the first chunk is produced before the status is sent, so errors
 * found early (timeouts, row budgets, most evaluation errors) still get a proper error reply. */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** A request whose body was not read to the end (timeout, stop, early refusal): answer, then close
 * the connection instead of waiting for the rest of a body nobody will read. */
export function closeAfterReply(reply: FastifyReply): void {
  reply.raw.shouldKeepAlive = false;
  reply.header('connection', 'close');
}

/** The Content-Type of a result media type (text formats are UTF-8). */
function contentTypeOf(mediaType: string): string {
  return /json|xml|csv|tab-separated|turtle|triples|quads|trig/.test(mediaType) ? `${mediaType}; charset=utf-8` : mediaType;
}

/** A query worker's answer (pool/pool.ts): its first chunk was already produced, so the status
 * is known; the stream carries the bytes with back-pressure. */
export function sendStream(reply: FastifyReply, mediaType: string, body: Readable): FastifyReply {
  reply.type(contentTypeOf(mediaType));
  return reply.send(body);
}

export async function sendChunks(reply: FastifyReply, mediaType: string, chunks: AsyncIterable<string>): Promise<FastifyReply> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  reply.type(contentTypeOf(mediaType));
  if (first.done) return reply.send('');
  const rest = (async function* () {
    yield first.value;
    while (true) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  // One chunk (about 64 KiB, see @ianode/sparql's CHUNK_SIZE) read ahead of the socket, not
  // Readable.from's default of 16: the writers already gather rows, and a slow client should hold
  // back the evaluation, not a megabyte of text.
  return reply.send(Readable.from(rest, { objectMode: true, highWaterMark: 1 }));
}
