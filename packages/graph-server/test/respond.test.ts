/** sendChunks: a client that stops reading holds back the producer (backpressure). */
import { request } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendChunks } from '../src/routes/respond.js';

const CHUNK = 'x'.repeat(64 * 1024);
const CHUNKS = 1_000; // 64 MiB, far more than the socket buffers of a loopback connection
let pulled = 0;
const app = Fastify();
app.get('/', async (_request, reply) => {
  pulled = 0;
  return sendChunks(reply, 'text/plain', (async function* () {
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

it('pulls chunks only as fast as the client reads', async () => {
  const body = await new Promise<{ pulledWhilePaused: number; bytes: number }>((resolve, reject) => {
    const req = request(`${base}/`, (res) => {
      res.pause();
      setTimeout(() => {
        const pulledWhilePaused = pulled;
        let bytes = 0;
        res.on('data', (d: Buffer) => {
          bytes += d.length;
        });
        res.on('end', () => resolve({ pulledWhilePaused, bytes }));
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
