/** The main.ts pattern: port parsing, exit codes, graceful stop on a signal. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hostUrl, parseOptions, parsePort, UsageError } from '../src/index.js';

describe('parsePort and hostUrl', () => {
  it('accepts 0 to 65535 and names the setting otherwise', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('8091')).toBe(8091);
    for (const bad of [undefined, '', ' ', '-1', '65536', '80.5', 'http']) expect(() => parsePort(bad, 'PORT')).toThrow(UsageError);
    expect(() => parsePort('x', 'IDP_PORT')).toThrow(/^IDP_PORT must be a port number, got x$/);
  });

  it('parseOptions: strict options, with an unknown option or a missing value as a UsageError', () => {
    const options = { port: { type: 'string', default: '80' }, help: { type: 'boolean', short: 'h' } } as const;
    expect(parseOptions(options, ['--port', '81', '-h'])).toEqual({ port: '81', help: true });
    expect(parseOptions(options, [])).toEqual({ port: '80' });
    expect(() => parseOptions(options, ['--nope'])).toThrow(UsageError);
    expect(() => parseOptions(options, ['--port'])).toThrow(UsageError);
    expect(() => parseOptions(options, ['stray'])).toThrow(UsageError);
  });

  it('brackets an IPv6 host', () => {
    expect(hostUrl('127.0.0.1', 80)).toBe('http://127.0.0.1:80');
    expect(hostUrl('::1', 3030)).toBe('http://[::1]:3030');
  });
});

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Runs a tiny service through `runService` in a child process, from the built dist (`npx tsc -b`); SIGTERM once it prints READY. */
function run(script: string): Promise<{ code: number | null; stdout: string; stderr: string; child: ReturnType<typeof spawn> }> {
  const dist = new URL('../dist/index.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `const s = await import(${JSON.stringify(dist)});\n${script}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('READY')) child.kill('SIGTERM');
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr, child })));
}

describe.skipIf(!existsSync(DIST))('runService (child process, built dist)', () => {
  it('stops on SIGTERM: close() runs once, exit 0', async () => {
    const result = await run(`await s.runService({ name: 'svc', usage: 'usage: svc', start: async () => { setInterval(() => {}, 1000); return { close: async () => process.stdout.write('closed\\n') }; } }); process.stdout.write('READY\\n');`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('READY\nclosed\n');
  });

  it('exit 1 when closing fails', async () => {
    const result = await run(`await s.runService({ name: 'svc', usage: 'u', start: async () => { setInterval(() => {}, 1000); return { close: async () => { throw new Error('stuck'); } }; } }); process.stdout.write('READY\\n');`);
    expect(result.code).toBe(1);
  });

  it('a usage error exits 2 with the usage text; another failure exits 2 without it, credentials redacted', async () => {
    const usage = await run(`await s.runService({ name: 'svc', usage: 'usage: svc [--port N]', start: async () => { s.parsePort('nope'); } });`);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('svc: --port must be a port number, got nope\nusage: svc [--port N]\n');
    const failed = await run(`await s.runService({ name: 'svc', usage: 'usage: svc', start: async () => { throw new Error('upstream said: Bearer abc.def.ghi'); } });`);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^svc: upstream said: Bearer <token sha256:[0-9a-f]{12} len=11>\n$/);
    const kept = await run(`await s.runService({ name: 'idp', usage: 'u', exitCodes: { usage: 1, start: 1 }, start: async () => { throw new Error('no'); } });`);
    expect(kept.code).toBe(1);
  });

  it('nothing to run (--help): returns, exit 0', async () => {
    const result = await run(`const r = await s.runService({ name: 'svc', usage: 'u', start: async () => undefined }); process.stdout.write(String(r));`);
    expect(result).toMatchObject({ code: 0, stdout: 'undefined' });
  });
});
