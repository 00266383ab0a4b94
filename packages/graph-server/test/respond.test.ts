/** sendChunks: a client that stops reading holds back the producer (backpressure), compressed or not. */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { createGunzip } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendChunks } from '../src/routes/respond.js';

// Base64 of random bytes: gzip cannot shrink it much, so the socket buffers fill as with plain text.
const CHUNK = randomBytes(48 * 1024).toString('base64');
const CHUNKS = 1_000; // 64 MiB, far more than the socket buffers of a loopback connection
let pulled = 0;
const app = Fastify();
app.get('/', async (request, reply) => {
  pulled = 0;
  return sendChunks(request, reply, 'text/plain', (async function* () {
    for (let i = 0; i < CHUNKS; i++) {
      pulled++;
      yield CHUNK;
    }
  })());
});
let base: string;

beforeAll(async () => {
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
});

it.each([['identity'], ['gzip']])('pulls chunks only as fast as the client reads (%s)', async (coding) => {
  const body = await new Promise<{ pulledWhilePaused: number; bytes: number }>((resolve, reject) => {
    const req = request(`${base}/`, { headers: { 'accept-encoding': coding } }, (res) => {
      expect(res.headers['content-encoding']).toBe(coding === 'identity' ? undefined : coding);
      res.pause();
      setTimeout(() => {
        const pulledWhilePaused = pulled;
        let bytes = 0;
        const out = coding === 'gzip' ? res.pipe(createGunzip()) : res;
        out.on('data', (d: Buffer) => {
          bytes += d.length;
        });
        out.on('end', () => resolve({ pulledWhilePaused, bytes }));
        res.resume();
      }, 300);
    });
    req.on('error', reject);
    req.end();
  });
  // Kernel socket buffers hold a few MiB; the rest waits for the client.
  expect(body.pulledWhilePaused).toBeLessThan(CHUNKS / 4);
  expect(body.bytes).toBe(CHUNKS * CHUNK.length);
  expect(pulled).toBe(CHUNKS);
});
