/**
 * `compat: reference` (issue 17, item 6): the reference access service's answers, as its own tests
 * and OpenAPI document show them (ianode-access: the lookup of a user holding nationality GBR,
 * clearance O, a deployed organisation and two groups answers
 * `["permitted_nationalities='GBR'", "classification='O'", "permitted_organisations='…'",
 * "<g1>:and", "<g2>:and", "<g1>:or", "<g2>:or"]`; hierarchies `{uuid, name, tiers, readonly}` by
 * data name, or by user name with `?isUserAttribute=true`), and the refusal rules of lookups
 * without a token.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkCompat, isPrivateAddress, type CompatConfig } from '../src/index.js';
import { readAccessConfigFile } from '../src/provisioning.js';
import { CLIENT, MAIN, spawnMain, startIdp, startService, subjectOf, tempDir, type RunningService, type TestIdp } from './helpers.js';

const HEAD = 'headofeng@ndtp.example';
const COO = 'coo@ndtp.example';
const OTHER = 'other@ndtp.example';

/** The reference's test users (transcribed: names, values and groups), in an ianode seed. */
const SEED = {
  hierarchies: [{ name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] }],
  attributes: [
    { name: 'clearance' },
    { name: 'nationality' },
    { name: 'personnel_type', values: ['GOV', 'NON-GOV'] },
    { name: 'deployed_organisation' },
  ],
  groups: [{ name: 'urn:ndtp:groups:developers' }, { name: 'urn:ndtp:groups:csuite' }, { name: 'ianode_admin' }],
  users: [
    {
      id: HEAD,
      email: HEAD,
      name: 'Thomas',
      active: true,
      attributes: { nationality: 'GBR', clearance: 'O', personnel_type: 'NON-GOV', deployed_organisation: "Integration Architecture's" },
      groups: ['urn:ndtp:groups:developers', 'urn:ndtp:groups:csuite'],
    },
    { id: COO, email: COO, name: COO, active: false, attributes: {} },
    { id: OTHER, email: OTHER, name: 'Other', active: true, attributes: { clearance: 'S' } },
  ],
};

const REFERENCE = 'reference' as const;
const compat = (extra: Record<string, unknown> = {}): CompatConfig => checkCompat({ mode: REFERENCE, ...extra }, 'test')!;

let idp: TestIdp;
const cleanups: Array<() => Promise<void> | void> = [];

async function service(config: CompatConfig | undefined): Promise<RunningService> {
  const data = tempDir();
  const svc = await startService(idp, data.dir, { seed: SEED as never, ...(config === undefined ? {} : { compat: config }) });
  cleanups.push(() => svc.close(), () => data.remove());
  return svc;
}

beforeAll(async () => {
  idp = await startIdp();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await idp.close();
});

describe('compat: reference — GET /users/lookup/{user}', () => {
  let svc: RunningService;
  let head: string;
  let admin: string;
  let other: string;
  beforeAll(async () => {
    svc = await service(compat());
    head = await idp.token(HEAD);
    admin = await idp.token('root@ndtp.example', ['ianode_admin']);
    other = await idp.token(OTHER);
  });

  it("answers the reference's shape: data-side names, single-quoted values, personnel_type left out, every group as :and then :or", async () => {
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { token: head });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: HEAD,
      active: true,
      // The directory keeps attributes and groups in name order (the reference: its stored order).
      attributes: [
        "classification='O'",
        "permitted_organisations='Integration Architecture\\'s'",
        "permitted_nationalities='GBR'",
        'urn:ndtp:groups:csuite:and',
        'urn:ndtp:groups:developers:and',
        'urn:ndtp:groups:csuite:or',
        'urn:ndtp:groups:developers:or',
      ],
    });
  });

  it('the token groups of a self lookup join the directory groups, each written twice', async () => {
    const token = await idp.token(OTHER, ['ianode_read']);
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(subjectOf(OTHER))}`, { token });
    expect(reply.status).toBe(200);
    expect(reply.body.attributes).toEqual(["classification='S'", 'ianode_read:and', 'ianode_read:or']);
  });

  it('{user} may be the e-mail address (case ignored), the directory id, or the caller\'s own subject', async () => {
    for (const name of [HEAD.toUpperCase(), HEAD, subjectOf(HEAD)]) {
      const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(name)}`, { token: head });
      expect(reply.status, name).toBe(200);
      expect(reply.body.id).toBe(HEAD);
    }
  });

  it("an inactive user: the reference's empty list (and active: false)", async () => {
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(COO)}`, { token: admin });
    expect(reply.body).toEqual({ id: COO, attributes: [], active: false });
  });

  it("another user's entry: 403 without the admin group (unknown names too), 200 / 404 with it", async () => {
    expect((await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { token: other })).status).toBe(403);
    expect((await svc.call('GET', '/users/lookup/nobody@ndtp.example', { token: other })).status).toBe(403);
    expect((await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { token: admin })).status).toBe(200);
    const unknown = await svc.call('GET', '/users/lookup/nobody@ndtp.example', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  it('without a token (unauthenticatedLookup off, the default): 401, even from loopback', async () => {
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`);
    expect(reply.status).toBe(401);
    expect(reply.body.code).toBe('MISSING_TOKEN');
  });

  it('an invalid token: 401', async () => {
    expect((await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { token: 'not.a.token' })).status).toBe(401);
  });
});

describe('compat: reference — the other routes', () => {
  let svc: RunningService;
  let head: string;
  let admin: string;
  beforeAll(async () => {
    svc = await service(compat({ attributeNames: { clearance: 'classification', deployed_organisation: null } }));
    head = await idp.token(HEAD);
    admin = await idp.token('root@ndtp.example', ['ianode_admin']);
  });

  it('compat.attributeNames replaces the default table: listed names renamed or left out, the rest unchanged', async () => {
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { token: head });
    expect(reply.body.attributes.filter((a: string) => !a.startsWith('urn:'))).toEqual(["classification='O'", "nationality='GBR'", "personnel_type='NON-GOV'"]);
  });

  it('GET /users/retrieve/{sub}: by the subject the entry is linked to; own token, or the admin group', async () => {
    const own = await svc.call('GET', `/users/retrieve/${encodeURIComponent(subjectOf(HEAD))}`, { token: head });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(HEAD);
    // The admin looks up by a subject the directory links (HEAD's, linked at its first call above).
    const byAdmin = await svc.call('GET', `/users/retrieve/${encodeURIComponent(subjectOf(HEAD))}`, { token: admin });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.attributes).toContain("classification='O'");
    expect((await svc.call('GET', '/users/retrieve/no-such-subject', { token: admin })).status).toBe(404);
    expect((await svc.call('GET', `/users/retrieve/${encodeURIComponent(subjectOf(HEAD))}`, { token: await idp.token(OTHER) })).status).toBe(403);
    expect((await svc.call('GET', `/users/retrieve/${encodeURIComponent(subjectOf(HEAD))}`)).status).toBe(401);
  });

  it("GET /user-info/self: the reference's user-info shape, user-side names; token required", async () => {
    const reply = await svc.call('GET', '/user-info/self', { token: head });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      username: 'Thomas',
      active: true,
      email: HEAD,
      userId: HEAD,
      attributes: { clearance: 'O', deployed_organisation: "Integration Architecture's", nationality: 'GBR', personnel_type: 'NON-GOV' },
      groups: ['urn:ndtp:groups:csuite', 'urn:ndtp:groups:developers'],
    });
    expect((await svc.call('GET', '/user-info/self')).status).toBe(401);
    expect((await svc.call('GET', '/user-info/self', { token: await idp.token('stranger@ndtp.example', [], { email_verified: false }) })).status).toBe(404);
  });

  it('GET /countries: ISO 3166-1 {name, alpha2, alpha3}; token required', async () => {
    const reply = await svc.call('GET', '/countries', { token: head });
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBeGreaterThanOrEqual(249);
    expect(reply.body).toContainEqual({ name: 'United Kingdom', alpha2: 'GB', alpha3: 'GBR' });
    expect(reply.body).toContainEqual({ name: 'France', alpha2: 'FR', alpha3: 'FRA' });
    expect(reply.body.every((c: { alpha3: string }) => /^[A-Z]{3}$/.test(c.alpha3))).toBe(true);
    expect((await svc.call('GET', '/countries')).status).toBe(401);
  });

  it('GET /hierarchies/lookup/{name}: by the data name, or the user name with ?isUserAttribute=true; {uuid, name, tiers, readonly}', async () => {
    const byData = await svc.call('GET', '/hierarchies/lookup/classification');
    expect(byData.status).toBe(200);
    expect(byData.body).toEqual({ uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), name: 'classification', tiers: ['O', 'OS', 'S', 'TS'], readonly: false });
    const byUser = await svc.call('GET', '/hierarchies/lookup/clearance?isUserAttribute=TRUE');
    expect(byUser.body).toEqual(byData.body);
    // The user-side name is not a data name; the data name is not a user name.
    expect((await svc.call('GET', '/hierarchies/lookup/clearance')).status).toBe(404);
    expect((await svc.call('GET', '/hierarchies/lookup/classification?isUserAttribute=true')).status).toBe(404);
    expect((await svc.call('GET', '/hierarchies/lookup/nationality')).status).toBe(404);
  });

  it('the uuid of a hierarchy is stable across restarts and services', async () => {
    const again = await service(compat());
    const a = await svc.call('GET', '/hierarchies/lookup/classification');
    const b = await again.call('GET', '/hierarchies/lookup/classification');
    expect(a.body.uuid).toBe(b.body.uuid);
  });
});

describe('ianode format (compat off): the reference routes are not served', () => {
  it("lookup and hierarchy answer ianode's shapes; /users/retrieve, /user-info/self and /countries are 404", async () => {
    const svc = await service(undefined);
    const head = await idp.token(HEAD);
    const lookup = await svc.call('GET', `/users/lookup/${encodeURIComponent(subjectOf(HEAD))}`, { token: head });
    expect(lookup.body.attributes).toContain('clearance=O');
    expect((await svc.call('GET', '/hierarchies/lookup/clearance')).body).toEqual({ name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] });
    for (const path of [`/users/retrieve/${subjectOf(HEAD)}`, '/user-info/self', '/countries']) {
      expect((await svc.call('GET', path, { token: head })).status, path).toBe(404);
    }
  });
});

describe('lookups without a token: compat.unauthenticatedLookup and its refusal rules', () => {
  it('on, no trustedNetworks, listening on loopback: a loopback client looks anyone up without a token; audited as unauthenticated', async () => {
    const svc = await service(compat({ unauthenticatedLookup: true }));
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`);
    expect(reply.status).toBe(200);
    expect(reply.body.attributes).toContain("classification='O'");
    const line = await vi.waitFor(() => svc.audit().find((l) => l.event === 'lookup' && l.unauthenticated === true) ?? Promise.reject(new Error('no audit line yet')));
    expect(line).toMatchObject({ actor: null, target: HEAD, outcome: 'ok' });
    expect((await svc.call('GET', '/users/lookup/nobody@ndtp.example')).status).toBe(404);
    // A token, when sent, is still verified; the token-only routes stay token-only.
    expect((await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { token: 'not.a.token' })).status).toBe(401);
    expect((await svc.call('GET', '/user-info/self')).status).toBe(401);
    expect((await svc.call('GET', '/countries')).status).toBe(401);
    expect((await svc.call('GET', '/users')).status).toBe(401);
  });

  it('anonymous /users/retrieve/{sub} finds the entry linked to the subject', async () => {
    const svc = await service(compat({ unauthenticatedLookup: true }));
    await svc.call('GET', '/whoami', { token: await idp.token(HEAD) });
    const reply = await svc.call('GET', `/users/retrieve/${encodeURIComponent(subjectOf(HEAD))}`);
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(HEAD);
  });

  it('trustedNetworks not matching the client address: no anonymous lookup (401)', async () => {
    const svc = await service(compat({ unauthenticatedLookup: true, trustedNetworks: ['10.0.0.0/8', 'fd00::/8'] }));
    expect((await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`)).status).toBe(401);
  });

  it('trustedNetworks matching the client address: served', async () => {
    const svc = await service(compat({ unauthenticatedLookup: true, trustedNetworks: ['127.0.0.0/8'] }));
    expect((await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`)).status).toBe(200);
  });

  it('a forwarded-for header does not make a client trusted', async () => {
    const svc = await service(compat({ unauthenticatedLookup: true, trustedNetworks: ['10.0.0.0/8'] }));
    const reply = await svc.call('GET', `/users/lookup/${encodeURIComponent(HEAD)}`, { headers: { 'x-forwarded-for': '10.1.2.3', forwarded: 'for=10.1.2.3' } });
    expect(reply.status).toBe(401);
  });

  it('on without trustedNetworks: refuses to listen on every interface (0.0.0.0, ::) or a public address', async () => {
    const data = tempDir();
    cleanups.push(() => data.remove());
    const { createAccessServer } = await import('../src/index.js');
    const server = await createAccessServer({ dataDir: data.dir, jwksUrl: idp.jwksUrl, openIdProviderUrl: idp.issuer, logger: false, compat: compat({ unauthenticatedLookup: true }) });
    cleanups.push(() => server.close());
    for (const host of ['0.0.0.0', '::', '8.8.8.8']) {
      await expect(server.listen({ port: 0, host }), host).rejects.toThrow(/compat\.unauthenticatedLookup.*loopback or private address/);
    }
  });

  it('with trustedNetworks, listening on every interface is allowed (the list decides)', async () => {
    const data = tempDir();
    cleanups.push(() => data.remove());
    const { createAccessServer } = await import('../src/index.js');
    const server = await createAccessServer({ dataDir: data.dir, jwksUrl: idp.jwksUrl, openIdProviderUrl: idp.issuer, logger: false, compat: compat({ unauthenticatedLookup: true, trustedNetworks: ['127.0.0.1/32'] }) });
    cleanups.push(() => server.close());
    await expect(server.listen({ port: 0, host: '0.0.0.0' })).resolves.toMatch(/^http:/);
  });

  it('isPrivateAddress: loopback, RFC 1918, link-local, CGNAT and IPv6 unique-local count; public and wildcard addresses do not', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.1.1', '100.64.0.1', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'fd00::1', 'fe80::1', 'localhost', '[::1]']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '172.32.0.1', '0.0.0.0', '::', '2001:db8::1', '::ffff:8.8.8.8', 'example.org', '']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe('the compat section of the configuration file', () => {
  it('compat: reference (the short form) takes the reference defaults and keeps lookups authenticated', () => {
    expect(checkCompat('reference', 'f')).toEqual({
      mode: 'reference',
      attributeNames: { clearance: 'classification', nationality: 'permitted_nationalities', deployed_organisation: 'permitted_organisations', personnel_type: null },
      unauthenticatedLookup: false,
      trustedNetworks: [],
    });
    expect(checkCompat(undefined, 'f')).toBeUndefined();
  });

  it('refuses what it cannot use, naming the key', () => {
    expect(() => checkCompat('jena', 'f')).toThrow(/compat must be "reference"/);
    expect(() => checkCompat({ mode: 'other' }, 'f')).toThrow(/compat\.mode must be reference/);
    expect(() => checkCompat({ mode: 'reference', extra: 1 }, 'f')).toThrow(/unknown key compat\.extra/);
    expect(() => checkCompat({ mode: 'reference', unauthenticatedLookup: 'yes' }, 'f')).toThrow(/unauthenticatedLookup must be true or false/);
    expect(() => checkCompat({ mode: 'reference', trustedNetworks: ['10.0.0.0/8'] }, 'f')).toThrow(/trustedNetworks is set but compat\.unauthenticatedLookup is not true/);
    expect(() => checkCompat({ mode: 'reference', unauthenticatedLookup: true, trustedNetworks: ['10.0.0.0/33'] }, 'f')).toThrow(/trustedNetworks\[0\].*prefix/);
    expect(() => checkCompat({ mode: 'reference', unauthenticatedLookup: true, trustedNetworks: ['intranet'] }, 'f')).toThrow(/trustedNetworks\[0\].*not an address/);
    expect(() => checkCompat({ mode: 'reference', attributeNames: { clearance: 'has space' } }, 'f')).toThrow(/attributeNames\.clearance must be a data attribute name/);
    expect(() => checkCompat({ mode: 'reference', attributeNames: { a: 'x', b: 'x' } }, 'f')).toThrow(/a and b both map to x/);
    expect(() => checkCompat({ mode: 'reference', attributeNames: { a: 'x', x: 'x' } }, 'f')).toThrow(/x.*also kept as itself|both map to x/);
  });

  it('readAccessConfigFile reads compat next to provisioning', () => {
    const data = tempDir();
    try {
      const path = join(data.dir, 'access.yaml');
      writeFileSync(path, 'compat:\n  mode: reference\n  attributeNames: { clearance: classification }\n  unauthenticatedLookup: true\n  trustedNetworks: [10.0.0.0/8]\n');
      expect(readAccessConfigFile(path).compat).toEqual({ mode: 'reference', attributeNames: { clearance: 'classification' }, unauthenticatedLookup: true, trustedNetworks: ['10.0.0.0/8'] });
      writeFileSync(path, 'compats: reference\n');
      expect(() => readAccessConfigFile(path)).toThrow(/unknown section "compats" \(expected provisioning, compat\)/);
    } finally {
      data.remove();
    }
  });
});

/** Runs dist/main.js until it logs `until` (then SIGTERM) or exits; its log lines and stderr. */
function runMain(args: string[], env: Record<string, string>, until: string, during: (line: Record<string, unknown>) => Promise<void>): Promise<{ code: number | null; lines: Record<string, unknown>[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const main = spawnMain(args, env, (line) => {
      if (line.msg === until) during(line).then(() => main.child.kill('SIGTERM'), (error: unknown) => { main.child.kill('SIGTERM'); reject(error as Error); });
    });
    main.child.on('exit', (code) => resolve({ code, lines: main.lines, stderr: main.stderr }));
  });
}

// Two dist/main.js processes with folders of their own: run at the same time (a second core).
describe.skipIf(!existsSync(MAIN))('main (dist/main.js) with a compat section', { concurrent: true }, () => {
  it('unauthenticatedLookup without trustedNetworks and HOST=0.0.0.0: refuses to start, saying why', async ({ expect }) => {
    const data = tempDir();
    try {
      const config = join(data.dir, 'access.yaml');
      writeFileSync(config, 'compat:\n  mode: reference\n  unauthenticatedLookup: true\n');
      const env = { JWKS_URL: idp.jwksUrl, OPENID_PROVIDER_URL: idp.issuer, TOKEN_CLIENT_IDS: CLIENT, HOST: '0.0.0.0' };
      const result = await runMain(['--port', '0', '--data', data.dir, '--config', config], env, 'access service listening', async () => {});
      expect(result.code).not.toBe(0);
      expect(result.stderr + JSON.stringify(result.lines)).toMatch(/compat\.unauthenticatedLookup is on without compat\.trustedNetworks/);
    } finally {
      data.remove();
    }
  });

  it('on loopback: starts, warns that lookups need no token, and serves the reference format', async ({ expect }) => {
    const data = tempDir();
    try {
      const config = join(data.dir, 'access.yaml');
      const seed = join(data.dir, 'seed.json');
      writeFileSync(config, 'compat:\n  mode: reference\n  unauthenticatedLookup: true\n');
      writeFileSync(seed, JSON.stringify(SEED));
      const env = { JWKS_URL: idp.jwksUrl, OPENID_PROVIDER_URL: idp.issuer, TOKEN_CLIENT_IDS: CLIENT, HOST: '127.0.0.1' };
      let answer: unknown;
      const result = await runMain(['--port', '0', '--data', data.dir, '--config', config, '--seed', seed], env, 'access service listening', async (line) => {
        answer = await (await fetch(`${line.url as string}/users/lookup/${encodeURIComponent(OTHER)}`)).json();
      });
      expect(result.code).toBe(0);
      expect(answer).toEqual({ id: OTHER, attributes: ["classification='S'"], active: true });
      expect(result.lines.some((l) => l.level === 40 && String(l.msg).startsWith('compat.unauthenticatedLookup'))).toBe(true);
    } finally {
      data.remove();
    }
  });
});
