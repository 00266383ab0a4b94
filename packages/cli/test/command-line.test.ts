/**
 * The command line of `ianode` (src/cli.ts) and the command file npm links (bin/ianode.js):
 * every command answers --help and -h with its usage and exit 0 before doing anything; mistakes
 * are exit 2 with the usage on stderr; the command file builds when there is no build.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './support/run-cli.js';

// (Not src/up.ts's REPO_ROOT: that module loads the graph server's library, which no test here needs.)
const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const BIN = path.join(REPO_ROOT, 'packages/cli/bin/ianode.js');

const COMMANDS = [[], ['up'], ['load'], ['query'], ['token'], ['store'], ['store', 'verify'], ['store', 'recover'], ['kafka'], ['kafka', 'send'], ['kafka', 'status'], ['dump'], ['restore'], ['compact'], ['update']];

describe('--help and -h', () => {
  it.each(COMMANDS.flatMap((command) => ['--help', '-h'].map((flag) => ({ argv: [...command, flag] }))))('ianode $argv: usage on stdout, exit 0, nothing run', async ({ argv }) => {
    const { code, stdout, stderr, calls } = await run(argv);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: ianode /);
    expect(stderr).toBe('');
    expect(calls).toEqual([]);
  });

  it('each command has its own usage, also as `ianode help COMMAND`', async () => {
    const texts = new Set<string>();
    for (const command of COMMANDS.slice(1)) {
      const { stdout } = await run([...command, '--help']);
      expect(stdout).toContain(`ianode ${command.join(' ')}`);
      texts.add(stdout);
      expect((await run(['help', ...command])).stdout).toBe(stdout);
    }
    expect(texts.size).toBe(COMMANDS.length - 1);
    const { stdout } = await run(['help']);
    for (const command of ['up', 'graph', 'access', 'idp', 'load', 'query', 'token', 'store verify', 'store recover', 'kafka send', 'kafka status']) expect(stdout).toContain(`  ${command} `);
  });

  it('a help request wins over other arguments and mistakes beside it', async () => {
    for (const argv of [['token', 'someone@example.org', '--help'], ['load', 'file.ttl', '--label', 'x', '-h'], ['up', '--bogus', '--help'], ['query', '--accept', 'text/csv', '--help']]) {
      const { code, calls, stdout } = await run(argv);
      expect([code, calls]).toEqual([0, []]);
      expect(stdout).toMatch(/^usage: ianode /);
    }
  });

  it('the services answer their own --help: the arguments go to them untouched', async () => {
    expect((await run(['graph', '--help'])).calls).toEqual([['service', '@ianode/graph-server', ['--help']]]);
    expect((await run(['idp', 'serve', '-h'])).calls).toEqual([['service', '@ianode/idp', ['serve', '-h']]]);
    expect((await run(['help', 'access'])).calls).toEqual([['service', '@ianode/access-service', ['--help']]]);
  });

  it('--version prints the version of the command', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string };
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `ianode ${version}\n` });
    expect((await run(['-v'])).stdout).toBe(`ianode ${version}\n`);
  });
});

describe('mistakes: exit 2, what is wrong and the usage on stderr, nothing run', () => {
  it.each([
    { argv: [], says: /^usage: ianode / },
    { argv: ['--bogus'], says: /unknown option --bogus/ },
    { argv: ['bogus'], says: /unknown command bogus/ },
    { argv: ['up', '--bogus'], says: /ianode up: Unknown option '--bogus'\nusage: ianode up/ },
    { argv: ['up', 'extra'], says: /ianode up: unexpected argument "extra"/ },
    { argv: ['load'], says: /ianode load: missing argument\nusage: ianode load FILE/ },
    { argv: ['load', 'a.ttl', '--lable', 'x'], says: /Unknown option '--lable'/ },
    { argv: ['query', 'ASK {}', 'more'], says: /unexpected argument "more"/ },
    { argv: ['query', 'ASK {}', '--accept'], says: /--accept <value>' argument missing/ },
    { argv: ['token', '-x'], says: /ianode token: Unknown option '-x'/ },
    { argv: ['token', 'a@x', 'b@x'], says: /unexpected argument "b@x"/ },
    { argv: ['store'], says: /needs verify or recover/ },
    { argv: ['store', 'check', 'dir'], says: /no store action "check"/ },
    { argv: ['store', 'verify'], says: /usage: ianode store verify DIR/ },
    { argv: ['store', 'recover', 'dir'], says: /needs --to NEW_DIR/ },
    { argv: ['help', 'bogus'], says: /no command bogus/ },
    { argv: ['query', 'd', 'ASK {}', '--as', 'x', '--all'], says: /give --as ATTRS or --all, not both/ },
    { argv: ['query', 'd', '--file', 'f.rq', 'ASK {}', '--all'], says: /give the SPARQL text or --file, not both|--file f.rq/ },
    { argv: ['update', 'd', 'INSERT DATA {}'], says: /needs --as ATTRS .* or --all/ },
    { argv: ['query', 'd', 'ASK {}', '--as', 'a', '--hierarchy', 'clearance'], says: /--hierarchy "clearance": write NAME=LOWEST/ },
    { argv: ['restore', 'dump.trig'], says: /needs --to DIR/ },
    { argv: ['dump'], says: /missing argument\nusage: ianode dump DIR/ },
    { argv: ['load', 'd', 'a.ttl', '--url', 'http://h/ds'], says: /--url is for an upload to a server/ },
  ])('ianode $argv', async ({ argv, says }) => {
    const { code, stdout, stderr, calls } = await run(argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(says);
    expect(stderr).toContain('usage: ianode');
    expect(calls).toEqual([]);
  });
});

describe('what the commands are given', () => {
  it('load, query, token, store: arguments, options and the environment', async () => {
    const env = { IDP_ID_TOKEN: 'tok', GRAPH_PORT: '4000', USER_EMAIL: 'me@x' };
    expect((await run(['load', 'a.ttl', '--label', 'employee'], env)).calls).toEqual([['load', 'a.ttl', { url: 'http://localhost:4000/ds', token: 'tok', label: 'employee' }]]);
    expect((await run(['query', 'ASK {}', '--accept', 'text/csv', '--url', 'http://h/ds'], env)).calls).toEqual([['query', 'ASK {}', { url: 'http://h/ds', token: 'tok', accept: 'text/csv' }]]);
    expect((await run(['query', 'ASK {}'], { IANODE_URL: 'http://i/ds' })).calls[0]![2]).toMatchObject({ url: 'http://i/ds', token: undefined });
    expect((await run(['token'], env)).calls).toEqual([['token', 'me@x', env]]);
    expect((await run(['token', 'admin@ianode.local'], env)).calls[0]![1]).toBe('admin@ianode.local');
    expect((await run(['token'])).calls[0]![1]).toBe('user@ianode.local');
    // `--` ends the options: a positional that starts with a dash.
    expect((await run(['token', '--', '--odd@x'])).calls[0]![1]).toBe('--odd@x');
    expect((await run(['store', 'verify', 'd'])).calls).toEqual([['storeVerify', 'd']]);
    expect((await run(['store', 'recover', 'd', '--to', 'n'])).calls).toEqual([['storeRecover', 'd', 'n']]);
    expect((await run(['up'])).calls).toEqual([['up']]);
  });

  it('the offline tools: folder, files, attributes and options', async () => {
    expect((await run(['load', 'd', 'a.nt', 'b.trig.gz', '--label', 'employee', '-q'])).calls).toEqual([['loadOffline', 'd', ['a.nt', 'b.trig.gz'], { label: 'employee', format: undefined, quiet: true }]]);
    expect((await run(['dump', 'd', '--out', 'x.trig.gz', '--gzip'])).calls).toEqual([['dump', 'd', { out: 'x.trig.gz', gzip: true, quiet: false }]]);
    expect((await run(['restore', 'x.trig', '--to', 'n'])).calls).toEqual([['restore', 'x.trig', 'n', { quiet: false }]]);
    expect((await run(['compact', 'd'])).calls).toEqual([['compact', 'd', { quiet: false }]]);
    expect((await run(['query', 'd', 'ASK {}', '--as', 'clearance=S, employee', '--hierarchy', 'clearance=O,S,TS', '--format', 'table'])).calls).toEqual([
      ['queryOffline', 'd', 'ASK {}', { attributes: ['clearance=S', 'employee'], hierarchies: [['clearance', ['O', 'S', 'TS']]] }, { format: 'table', defaultLabel: '!', quiet: false }],
    ]);
    expect((await run(['query', 'd', 'ASK {}', '--all'])).calls[0]![3]).toEqual({ attributes: undefined, hierarchies: [] });
    expect((await run(['update', 'd', 'INSERT DATA {}', '--as', 'employee', '--label', 'employee', '--default-label', '*'])).calls).toEqual([
      ['updateOffline', 'd', 'INSERT DATA {}', { attributes: ['employee'], hierarchies: [] }, { label: 'employee', defaultLabel: '*', quiet: false }],
    ]);
  });
});

describe('the installed command (bin/ianode.js, as npx runs it)', () => {
  let idp: Server;
  let requests = 0;
  const folders: string[] = [];
  const temp = (prefix: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };
  beforeAll(async () => {
    // Stands where the identity provider would: a sign-in would reach it.
    idp = createServer((_req, res) => {
      requests += 1;
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end('{"__type":"NotAuthorizedException","message":"no"}');
    });
    idp.listen(0, '127.0.0.1');
    await once(idp, 'listening');
  });
  afterAll(() => {
    idp.close();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });
  // Asynchronous: the stand-in identity provider of this process must be able to answer meanwhile.
  const bin = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 }, (_error, stdout, stderr) =>
        resolve({ status: child.exitCode, stdout, stderr }),
      );
    });

  it('is committed executable, and package.json names it', () => {
    expect(execFileSync('git', ['ls-files', '-s', 'packages/cli/bin/ianode.js'], { cwd: REPO_ROOT, encoding: 'utf8' })).toMatch(/^100755 /);
    expect(JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages/cli/package.json'), 'utf8')).bin).toEqual({ ianode: 'bin/ianode.js' });
    // npm ci links what the lockfile says: a stale bin there (it said dist/main.js, absent at
    // install) left node_modules/.bin/ianode out altogether.
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { bin?: unknown }> };
    expect(lock.packages['packages/cli']!.bin).toEqual({ ianode: 'bin/ianode.js' });
  });

  it('up --help starts nothing and makes no data folder; token --help signs nobody in', async () => {
    const dataDir = path.join(temp('ianode-help-'), 'data');
    const idpUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    const env = { IANODE_DATA_DIR: dataDir, IDP_URL: idpUrl, IDP_PORT: '1', ACCESS_PORT: '2', GRAPH_PORT: '3' };
    // Five processes at once (nothing orders them; other cores take some of them).
    const argvs = [['up', '--help'], ['up', '-h'], ['token', '--help'], ['token', '-h'], ['--help']];
    const results = await Promise.all(argvs.map((argv) => bin(argv, env)));
    for (const [i, result] of results.entries()) {
      expect(result.status, argvs[i]!.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^usage: ianode /);
    }
    expect(existsSync(dataDir)).toBe(false);
    expect(requests).toBe(0);
    // The same server does answer a real sign-in attempt (so the zero above means something).
    const signIn = await bin(['token', 'someone@example.org'], env);
    expect(signIn.status).toBe(1);
    expect(signIn.stderr).toContain('NotAuthorizedException');
    expect(requests).toBe(1);
  });

  it('a help request loads the command line only: none of the services\' code (graph server, Fastify, tokens)', async () => {
    // Every module the process loads is noted by loader hooks (fixtures/record-modules.mjs). The
    // command's code is loaded when it runs (src/main.ts): `up` would load the graph server's
    // library, which --help has no use for.
    const list = path.join(temp('ianode-modules-'), 'modules.txt');
    writeFileSync(list, '');
    const recorder = path.join(REPO_ROOT, 'packages/cli/test/fixtures/record-modules.mjs');
    const result = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', pathToFileURL(recorder).href, BIN, 'up', '--help'], { encoding: 'utf8', env: { ...process.env, IANODE_RECORD_MODULES: list }, timeout: 60_000 }, (_error, stdout) =>
        resolve({ status: child.exitCode, stdout }),
      );
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: ianode up/);
    const loaded = readFileSync(list, 'utf8').split('\n').filter((url) => url !== '');
    // The recorder saw the command itself (so an empty list below means something).
    expect(loaded).toContain(pathToFileURL(path.join(REPO_ROOT, 'packages/cli/dist/main.js')).href);
    const services = loaded.filter((url) => /\/packages\/(graph-server|service|auth|idp|access-service)\/|\/node_modules\/(fastify|jose)\//.test(url));
    expect(services).toEqual([]);
  });

  it.each([
    { service: 'graph', says: 'usage: ianode-graph' },
    { service: 'access', says: 'usage: ianode-access' },
    { service: 'idp', says: 'ianode-idp' },
  ])('$service --help prints the service usage and exits 0', async ({ service, says }) => {
    const result = await bin([service, '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(says);
  });

  it('a usage error exits 2; a command that fails exits 1 with the reason', async () => {
    const bad = await bin(['query', '--nope']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--nope'");
    // A port nothing listens on any more: the message names the address, not "fetch failed".
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const down = await bin(['query', 'ASK {}', '--url', `http://127.0.0.1:${port}/ds`]);
    expect(down.status).toBe(1);
    expect(down.stderr).toContain(`ECONNREFUSED 127.0.0.1:${port} (is the node running? \`npm start\`)`);
  });

  it('builds first when there is no build (an install with --ignore-scripts), then runs', () => {
    // A repository of one tiny package, built by the real tsc through the real scripts/build.mjs.
    const root = temp('ianode-shim-');
    mkdirSync(path.join(root, 'scripts'));
    mkdirSync(path.join(root, 'packages/cli/bin'), { recursive: true });
    mkdirSync(path.join(root, 'packages/cli/src'));
    copyFileSync(path.join(REPO_ROOT, 'scripts/build.mjs'), path.join(root, 'scripts/build.mjs'));
    copyFileSync(BIN, path.join(root, 'packages/cli/bin/ianode.js'));
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module","private":true}\n');
    writeFileSync(path.join(root, 'tsconfig.json'), '{"files":[],"references":[{"path":"packages/cli"}]}\n');
    writeFileSync(path.join(root, 'packages/cli/package.json'), '{"type":"module"}\n');
    writeFileSync(
      path.join(root, 'packages/cli/tsconfig.json'),
      JSON.stringify({ compilerOptions: { composite: true, module: 'nodenext', target: 'es2022', types: ['node'], skipLibCheck: true, rootDir: 'src', outDir: 'dist' }, include: ['src'] }),
    );
    writeFileSync(path.join(root, 'packages/cli/src/main.ts'), "process.stdout.write(`main ran with ${process.argv.slice(2).join(' ')}\\n`);\n");
    const shim = path.join(root, 'packages/cli/bin/ianode.js');
    // npm start's and npm install's skip switch does not stop the command file's one build.
    const first = spawnSync(process.execPath, [shim, 'a', 'b'], { encoding: 'utf8', env: { ...process.env, IANODE_SKIP_BUILD: '1' }, timeout: 120_000 });
    expect(first.stderr).toContain('ianode: building every package (tsc -b; the first build takes about a minute)…');
    expect(first.stderr).toMatch(/ianode: built in \d/);
    expect(first.stdout).toBe('main ran with a b\n');
    expect(first.status).toBe(0);
    const second = spawnSync(process.execPath, [shim, 'c'], { encoding: 'utf8' });
    expect([second.status, second.stdout, second.stderr]).toEqual([0, 'main ran with c\n', '']);
  });

  it('scripts/build.mjs does nothing under IANODE_SKIP_BUILD=1, and says when TypeScript is missing', () => {
    const skipped = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], { encoding: 'utf8', env: { ...process.env, IANODE_SKIP_BUILD: '1' } });
    expect([skipped.status, skipped.stderr]).toEqual([0, '']);
    const root = temp('ianode-notsc-');
    mkdirSync(path.join(root, 'scripts'));
    copyFileSync(path.join(REPO_ROOT, 'scripts/build.mjs'), path.join(root, 'scripts/build.mjs'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module","private":true}\n');
    const noTsc = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { encoding: 'utf8', env: { ...process.env, IANODE_SKIP_BUILD: '' } });
    expect(noTsc.status).toBe(0);
    expect(noTsc.stderr).toContain('TypeScript is not installed');
  });
});
