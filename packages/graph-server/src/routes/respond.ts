/**
 * Sending answers: a query worker's stream (or the service description's chunks), negotiated
 * compression (gzip, deflate, br by `Accept-Encoding`), `Vary`, and what a client sees when an
 * answer fails after its first byte (docs/graph-server.md "Answers that fail mid-stream").
 *
 * Compression is node:zlib by hand rather than @fastify/compress: each worker chunk (about
 * 64 KiB) is compressed and flushed on its own (Z_SYNC_FLUSH / BROTLI_OPERATION_FLUSH), so a slow
 * answer reaches the client progressively instead of sitting in the compressor's window, and the
 * stream stays one pipeline with the query worker's: the back-pressure credits flow through it and
 * a client that leaves destroys it, which cancels the job.
 */
import { Transform, pipeline, Readable, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import {
  brotliCompress, constants as zlib, createBrotliCompress, createDeflate, createGzip, deflate, gzip, type BrotliCompress, type Deflate, type Gzip,
} from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addVary } from '@ianode/service';
import { N_QUADS, N_TRIPLES, RDF_XML, SPARQL_RESULTS_XML, TRIG, TURTLE } from '../sparql-results.js';

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

export type ContentCoding = 'br' | 'gzip' | 'deflate' | 'identity';

/** Our codings, the preferred first on equal quality. */
const CODINGS: readonly ContentCoding[] = ['br', 'gzip', 'deflate'];

/**
 * The content coding for an `Accept-Encoding` header (RFC 9110 §12.5.3): the acceptable coding of
 * highest quality (q-values honoured, `*` for codings not named, `q=0` refuses), ties going to br,
 * then gzip, then deflate; identity when the header is absent or names none of ours.
 */
export function negotiateEncoding(header: string | undefined): ContentCoding {
  if (header === undefined || header.trim() === '') return 'identity';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    let quality = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq >= 0 && param.slice(0, eq).trim().toLowerCase() === 'q') {
        const value = Number(param.slice(eq + 1).trim());
        quality = Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0;
      }
    }
    q.set(coding === 'x-gzip' ? 'gzip' : coding, quality);
  }
  let best: ContentCoding = 'identity';
  let bestQ = 0;
  for (const coding of CODINGS) {
    const quality = q.get(coding) ?? q.get('*') ?? 0;
    if (quality > bestQ) {
      best = coding;
      bestQ = quality;
    }
  }
  return best;
}

/** The comment a format can carry to say, before the cut, why an answer stops short; undefined
 * for formats without comments (JSON, JSON-LD, CSV, TSV: any text there would read as data). */
export function failureMarker(mediaType: string, message: string): string | undefined {
  const line = message.replace(/[\r\n]+/g, ' ');
  switch (mediaType) {
    case TURTLE:
    case TRIG:
    case N_TRIPLES:
    case N_QUADS:
      return `\n# ERROR: the answer is incomplete: ${line}\n`;
    case SPARQL_RESULTS_XML:
    case RDF_XML:
      return `\n<!-- ERROR: the answer is incomplete: ${line.replace(/-(?=-)/g, '- ')} -->\n`;
    default:
      return undefined;
  }
}

/** What the pool tells about an answer that stopped after it started (pool/pool.ts). */
export interface AnswerBody {
  body: Readable;
  /** Set when the answer failed after its first byte: the body then ends early. */
  failure(): Error | undefined;
}

type Compressor = Gzip | Deflate | BrotliCompress;

function compressor(coding: Exclude<ContentCoding, 'identity'>): Compressor {
  if (coding === 'gzip') return createGzip();
  if (coding === 'deflate') return createDeflate();
  // Quality 5: most of br's gain at a fraction of the CPU of its default 11 (a streamed answer).
  return createBrotliCompress({ params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } });
}

/**
 * The last stage of an answer: compresses (or not) and flushes chunk by chunk; at the end of a
 * failed answer writes the format's marker (see failureMarker), waits until the bytes so far have
 * left for the socket, then errors, so the response is cut without its terminating chunk (a
 * client sees a broken transfer, never a complete-looking partial answer).
 */
class AnswerTail extends Transform {
  private readonly zip: Compressor | undefined;
  private readonly flushKind: number;

  constructor(
    coding: ContentCoding,
    private readonly mediaType: string,
    private readonly answer: AnswerBody,
    private readonly response: { writableLength: number; destroyed: boolean },
  ) {
    super({ highWaterMark: 64 * 1024 });
    if (coding !== 'identity') {
      this.zip = compressor(coding);
      this.zip.on('data', (data: Buffer) => this.push(data));
    }
    this.flushKind = coding === 'br' ? zlib.BROTLI_OPERATION_FLUSH : zlib.Z_SYNC_FLUSH;
  }

  private write1(chunk: Buffer | string, done: (error?: Error | null) => void): void {
    const zip = this.zip;
    if (zip === undefined) {
      this.push(chunk);
      done();
      return;
    }
    zip.write(chunk);
    zip.flush(this.flushKind, () => done());
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.write1(chunk, callback);
  }

  override _flush(callback: TransformCallback): void {
    const failure = this.answer.failure();
    if (failure === undefined) {
      if (this.zip === undefined) callback();
      else {
        this.zip.once('end', () => callback());
        this.zip.end();
      }
      return;
    }
    const marker = failureMarker(this.mediaType, failure.message);
    const cut = () => {
      // Wait (a little) until what was pushed has been taken by the response and left for the
      // socket, so the marker is not dropped by the cut.
      let waited = 0;
      const check = () => {
        if ((this.readableLength === 0 && this.response.writableLength === 0) || this.response.destroyed || waited >= 2_000) callback(failure);
        else {
          waited += 10;
          setTimeout(check, 10);
        }
      };
      check();
    };
    if (marker === undefined) cut();
    else this.write1(marker, cut);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.zip?.destroy();
    callback(error);
  }
}

/** `Vary` for an answer negotiated on Accept (and compressed by Accept-Encoding). */
export function varyNegotiated(reply: FastifyReply): void {
  addVary(reply, 'Accept');
  addVary(reply, 'Accept-Encoding');
}

/** A query worker's answer (pool/pool.ts): its first chunk was already produced, so the status
 * is known; the stream carries the bytes with back-pressure. */
export function sendStream(request: FastifyRequest, reply: FastifyReply, mediaType: string, answer: AnswerBody): FastifyReply {
  reply.type(contentTypeOf(mediaType));
  varyNegotiated(reply);
  const coding = negotiateEncoding(request.headers['accept-encoding']);
  if (coding !== 'identity') reply.header('content-encoding', coding);
  const tail = new AnswerTail(coding, mediaType, answer, reply.raw);
  // pipeline: a client that leaves destroys the tail, which destroys the worker's stream (the job
  // is cancelled); a worker stream destroyed (worker killed) errors the tail (the response is cut).
  pipeline(answer.body, tail, () => undefined);
  return reply.send(tail);
}

const compressWhole = {
  gzip: promisify(gzip),
  deflate: promisify(deflate),
  br: (data: Buffer) => promisify(brotliCompress)(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }),
};

/** Under this, a whole answer is sent as it is (compression would gain little). */
const COMPRESS_MIN_BYTES = 1024;

/** A whole answer held as text (GraphQL): compressed by Accept-Encoding when it is large enough
 * (zlib's thread pool does the work, not the event loop). The caller sets status and type. */
export async function sendCompressible(request: FastifyRequest, reply: FastifyReply, text: string): Promise<FastifyReply> {
  varyNegotiated(reply);
  const coding = negotiateEncoding(request.headers['accept-encoding']);
  const bytes = Buffer.from(text, 'utf8');
  if (coding === 'identity' || bytes.length < COMPRESS_MIN_BYTES) return reply.send(bytes);
  reply.header('content-encoding', coding);
  return reply.send(await compressWhole[coding](bytes));
}

/** An answer made on the main thread (the service description), as chunks of text. */
export async function sendChunks(request: FastifyRequest, reply: FastifyReply, mediaType: string, chunks: AsyncIterable<string>): Promise<FastifyReply> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  const rest = (async function* () {
    if (first.done) return;
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
  const body = Readable.from(rest, { objectMode: true, highWaterMark: 1 });
  return sendStream(request, reply, mediaType, { body, failure: () => undefined });
}
