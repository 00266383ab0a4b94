/**
 * A client that closes its connection in the middle of a write body is the client's doing, not a
 * server fault: the log line says so at info level (no error-level "request failed" with a stack,
 * which an operator would page on), and nothing is stored.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '@ianode/store';
import { createGraphServer, type GraphServer } from '../src/index.js';

const servers: GraphServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('a client that goes away mid-body', () => {
  it.each([
    ['POST', '/ds/upload'],
    ['PUT', '/ds/data?graph=http://example/g'],
    ['POST', '/ds/data?default'],
  ])('%s %s: logged as the client closing, not as a server error; nothing stored', async (method, path) => {
    const lines: Array<{ level: number; code?: string; status?: number; msg?: string }> = [];
    let failed: () => void = () => undefined;
    const seenFailure = new Promise<void>((resolve) => (failed = resolve));
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) {
          if (!line.trim()) continue;
          const entry = JSON.parse(line) as { level: number; code?: string; status?: number; msg?: string };
          lines.push(entry);
          if (entry.status !== undefined) failed(); // the error handler's line
        }
        done();
      },
    });
    const store = await openStore({ defaultLabel: '*' });
    const server = await createGraphServer({}, { logger: { level: 'info', stream } as never, store });
    servers.push(server);
    const url = new URL(await server.listen({ port: 0 }));
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/turtle\r\nContent-Length: 1000\r\n\r\n<http://example/s> <http://example/p> `);
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await seenFailure;
    const failure = lines.find((l) => l.status !== undefined)!;
    expect(failure.level).toBeLessThan(50);
    expect(failure.code).toBe('CLIENT_CLOSED');
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(store.snapshot().count({})).toBe(0);
  });
});
