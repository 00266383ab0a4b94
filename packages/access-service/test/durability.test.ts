import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, Directory, applySeed, openDatabase, readSeedFile } from '../src/index.js';
import { ADMIN, DEMO_SEED, USER, startIdp, startService, tempDir, type TestIdp } from './helpers.js';

let idp: TestIdp;
let admin: string;

beforeAll(async () => {
  idp = await startIdp();
  admin = await idp.token(ADMIN, ['ianode_admin']);
});
afterAll(() => idp.close());

describe('restart', () => {
  it('keeps everything across close and reopen of the same data folder, and the seed does not undo edits', async () => {
    const data = tempDir();
    try {
      const first = await startService(idp, data.dir);
      expect(first.server.seeded.created.users).toEqual([ADMIN, USER]);
      const call = (method: string, path: string, body?: unknown) => first.call(method, path, { token: admin, body });
      await call('POST', '/groups', { name: 'analysts' });
      await call('POST', '/attributes', { name: 'tier', values: ['bronze', 'gold'], hierarchy: ['bronze', 'gold'] });
      await call('POST', '/users', { id: 'frank@example.org', attributes: { tier: 'gold', nationality: ['GBR', 'USA'] }, groups: ['analysts'] });
      await call('PATCH', `/users/${USER}`, { attributes: { clearance: 'S' }, active: false });
      await first.call('GET', '/whoami', { token: await idp.token('gina@example.org', ['g1']) });
      const snapshot = {
        users: (await call('GET', '/users')).body,
        groups: (await call('GET', '/groups')).body,
        attributes: (await call('GET', '/attributes')).body,
        hierarchies: (await call('GET', '/hierarchies')).body,
      };
      await first.close();

      const second = await startService(idp, data.dir);
      try {
        expect(second.server.seeded.created).toEqual({ hierarchies: [], attributes: [], groups: [], users: [] });
        const again = (method: string, path: string) => second.call(method, path, { token: admin });
        expect({
          users: (await again('GET', '/users')).body,
          groups: (await again('GET', '/groups')).body,
          attributes: (await again('GET', '/attributes')).body,
          hierarchies: (await again('GET', '/hierarchies')).body,
        }).toEqual(snapshot);
        expect((await again('GET', `/users/${USER}`)).body).toMatchObject({ active: false, attributes: { clearance: 'S' } });
        expect((await again('GET', '/users/gina@example.org')).body).toMatchObject({ active: false, tokenGroups: ['g1'] });
        expect((await second.call('GET', '/hierarchies/lookup/tier')).body.tiers).toEqual(['bronze', 'gold']);
      } finally {
        await second.close();
      }
    } finally {
      data.remove();
    }
  });
});

describe('malformed requests never corrupt stored data', () => {
  it('leaves the directory exactly as it was', async () => {
    const data = tempDir();
    const svc = await startService(idp, data.dir, { bodyLimit: 4096 });
    try {
      const state = async () => ({
        users: (await svc.call('GET', '/users', { token: admin })).body,
        groups: (await svc.call('GET', '/groups', { token: admin })).body,
        attributes: (await svc.call('GET', '/attributes', { token: admin })).body,
        hierarchies: (await svc.call('GET', '/hierarchies', { token: admin })).body,
      });
      const before = await state();
      const json = { 'content-type': 'application/json' };
      const attempts: [string, string, { rawBody?: string; body?: unknown; headers?: Record<string, string> }, number][] = [
        ['PATCH', `/users/${USER}`, { rawBody: '{"attributes": {"clearance": "TS"', headers: json }, 400],
        ['PATCH', `/users/${USER}`, { rawBody: '{"attributes": {"clearance": "TS"}, "__proto__": {"active": true}}', headers: json }, 400],
        ['PATCH', `/users/${USER}`, { rawBody: '', headers: json }, 400],
        ['PATCH', `/users/${USER}`, { rawBody: 'null', headers: json }, 400],
        ['PATCH', `/users/${USER}`, { rawBody: '[]', headers: json }, 400],
        ['PATCH', `/users/${USER}`, { rawBody: 'attributes=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415],
        ['PATCH', `/users/${USER}`, { body: { attributes: { clearance: 'TS', nationality: 'XXX' } } }, 400],
        ['PATCH', `/users/${USER}`, { body: { attributes: { clearance: 'x'.repeat(5000) } } }, 413],
        ['POST', '/users', { body: { id: 'z@example.org', attributes: { clearance: 'S' }, groups: ['ghosts'] } }, 400],
        ['POST', '/users', { rawBody: '{"id": "z@example.org"', headers: json }, 400],
        ['POST', '/groups', { body: { name: 'ok', extra: 1 } }, 400],
        ['PUT', '/hierarchies/clearance', { body: { tiers: ['TS', 'TS'] } }, 400],
        ['PUT', '/hierarchies/clearance', { body: { tiers: ['O', 'S'] } }, 409],
        ['POST', '/attributes', { body: { name: 'clearance', values: ['O'] } }, 400],
        ['POST', '/attributes', { body: { name: 'nationality', values: ['USA'] } }, 409],
        ['POST', '/attributes', { body: { name: 'new', values: 'a' } }, 400],
      ];
      for (const [method, path, options, status] of attempts) {
        const reply = await svc.call(method, path, { token: admin, ...options });
        expect(reply.status, `${method} ${path} ${JSON.stringify(options)}`).toBe(status);
        expect(Object.keys(reply.body).sort()).toEqual(['code', 'message']);
      }
      expect(await state()).toEqual(before);
    } finally {
      await svc.close();
      data.remove();
    }
  });
});

describe('seed', () => {
  it('is idempotent and creates only what is missing', () => {
    const directory = Directory.open(':memory:');
    try {
      const seed = readSeedFile(DEMO_SEED);
      const first = applySeed(directory, seed);
      expect(first.created).toEqual({
        hierarchies: ['clearance'],
        attributes: ['clearance', 'nationality', 'engineer', 'employee', 'contractor'],
        groups: ['ianode_admin', 'ianode_read'],
        users: [ADMIN, USER],
      });
      directory.updateUser(ADMIN, { attributes: { clearance: 'S' } });
      expect(applySeed(directory, seed).created).toEqual({ hierarchies: [], attributes: [], groups: [], users: [] });
      expect(directory.getUser(ADMIN)!.attributes.clearance).toEqual(['S']);
    } finally {
      directory.close();
    }
  });

  it('refuses an invalid seed as a whole, naming the entry', () => {
    const directory = Directory.open(':memory:');
    try {
      expect(() =>
        applySeed(directory, { groups: [{ name: 'fine' }], users: [{ id: 'x', attributes: { clearance: 'TS' } }] }, 'bad.yaml'),
      ).toThrow('bad.yaml: user x: attribute clearance is not defined; define it first (POST /attributes)');
      expect(directory.listGroups()).toEqual([]);
    } finally {
      directory.close();
    }
  });

  it('refuses a seed file that is not a seed', async () => {
    const data = tempDir();
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${data.dir}/a.yaml`, 'people: []\n');
      expect(() => readSeedFile(`${data.dir}/a.yaml`)).toThrow(/unknown section "people"/);
      writeFileSync(`${data.dir}/b.yaml`, 'users: [ {id: x\n');
      expect(() => readSeedFile(`${data.dir}/b.yaml`)).toThrow(/cannot read seed file/);
      writeFileSync(`${data.dir}/c.json`, JSON.stringify({ groups: [{ name: 'from_json' }] }));
      expect(readSeedFile(`${data.dir}/c.json`)).toEqual({ groups: [{ name: 'from_json' }] });
    } finally {
      data.remove();
    }
  });
});

describe('files at rest', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('a new data folder is 0700 and the database and its journal 0600', () => {
    const data = tempDir();
    try {
      const dir = join(data.dir, 'access');
      const db = openDatabase(dir);
      db.exec('CREATE TABLE IF NOT EXISTS probe (x)'); // a write, so the -wal file exists
      expect([mode(dir), mode(join(dir, DATABASE_FILE)), mode(join(dir, `${DATABASE_FILE}-wal`))]).toEqual([0o700, 0o600, 0o600]);
      db.close();
    } finally {
      data.remove();
    }
  });

  it('an older folder and database with wider modes are tightened at open', () => {
    const data = tempDir();
    try {
      const dir = join(data.dir, 'access');
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      openDatabase(dir).close();
      chmodSync(join(dir, DATABASE_FILE), 0o644);
      openDatabase(dir).close();
      expect([mode(dir), mode(join(dir, DATABASE_FILE))]).toEqual([0o700, 0o600]);
    } finally {
      data.remove();
    }
  });
});
