import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN, USER, startIdp, subjectOf, startService, tempDir, type RunningService, type TestIdp } from './helpers.js';

let idp: TestIdp;
let svc: RunningService;
let data: ReturnType<typeof tempDir>;
let adminToken: string;
let userToken: string;

beforeAll(async () => {
  idp = await startIdp();
  data = tempDir();
  svc = await startService(idp, data.dir);
  adminToken = await idp.token(ADMIN, ['ianode_admin', 'ianode_read']);
  userToken = await idp.token(USER, ['ianode_read']);
});
afterAll(async () => {
  await svc.close();
  await idp.close();
  data.remove();
});

describe('GET /whoami', () => {
  it('shows a known user with token groups, attributes and data attributes', async () => {
    const reply = await svc.call('GET', '/whoami', { token: adminToken });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      userId: ADMIN,
      issuer: idp.issuer,
      subject: subjectOf(ADMIN),
      username: 'admin',
      email: ADMIN,
      name: 'Demo Administrator',
      active: true,
      groups: ['ianode_admin', 'ianode_read'],
      attributes: { clearance: 'TS', employee: 'true', engineer: 'true', nationality: 'GBR' },
      dataAttributes: ['clearance=TS', 'employee=true', 'engineer=true', 'nationality=GBR', 'ianode_admin', 'ianode_read'],
    });
    expect(reply.headers.get('x-request-id')).toBeTruthy();
  });

  it('accepts the bearer scheme in any case', async () => {
    const reply = await svc.call('GET', '/whoami', { headers: { authorization: `bearer ${userToken}` } });
    expect(reply.status).toBe(200);
    expect(reply.body.dataAttributes).toEqual(['clearance=OS', 'contractor=true', 'engineer=true', 'nationality=GBR', 'ianode_read']);
  });

  it('records an unknown user on first sight as inactive with no attributes', async () => {
    const token = await idp.token('newcomer@example.org', ['ianode_read'], { name: 'New Comer' });
    const first = await svc.call('GET', '/whoami', { token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      userId: 'newcomer@example.org',
      issuer: idp.issuer,
      subject: subjectOf('newcomer@example.org'),
      username: 'newcomer',
      email: 'newcomer@example.org',
      name: 'New Comer',
      active: false,
      groups: ['ianode_read'],
      attributes: {},
      dataAttributes: [],
    });
    const stored = await svc.call('GET', `/users/${encodeURIComponent('newcomer@example.org')}`, { token: adminToken });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id: 'newcomer@example.org', active: false, attributes: {}, tokenGroups: ['ianode_read'] });
    expect((await svc.call('GET', '/whoami', { token })).body.active).toBe(false);
    await vi.waitFor(() => expect(svc.audit().some((line) => line.event === 'whoami' && line.actor === 'newcomer@example.org' && line.recorded === true)).toBe(true));
  });

  it('shows a disabled user as inactive with no data attributes', async () => {
    await svc.call('POST', '/users', { token: adminToken, body: { id: 'carol@example.org', attributes: { clearance: 'S' } } });
    const token = await idp.token('carol@example.org', ['ianode_read']);
    expect((await svc.call('GET', '/whoami', { token })).body.dataAttributes).toEqual(['clearance=S', 'ianode_read']);
    const patched = await svc.call('PATCH', `/users/carol@example.org`, { token: adminToken, body: { active: false } });
    expect(patched.status).toBe(200);
    const reply = await svc.call('GET', '/whoami', { token });
    expect(reply.body).toMatchObject({ active: false, attributes: { clearance: 'S' }, dataAttributes: [] });
    expect((await svc.call('GET', '/users/lookup/carol@example.org', { token })).body).toEqual({ id: 'carol@example.org', attributes: [], active: false });
  });
});

describe('GET /users/lookup/{user}', () => {
  it('answers the user themself with their attributes and token groups', async () => {
    const reply = await svc.call('GET', `/users/lookup/${USER}`, { token: userToken });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: USER, attributes: ['clearance=OS', 'contractor=true', 'engineer=true', 'nationality=GBR', 'ianode_read'], active: true });
  });

  it('answers an administrator with the groups seen at the user’s last whoami or lookup', async () => {
    const dave = await idp.token('dave@example.org', ['analysts']);
    await svc.call('POST', '/users', { token: adminToken, body: { id: 'dave@example.org', attributes: { nationality: 'USA' } } });
    expect((await svc.call('GET', '/users/lookup/dave@example.org', { token: adminToken })).body.attributes).toEqual(['nationality=USA']);
    await svc.call('GET', '/users/lookup/dave@example.org', { token: dave });
    expect((await svc.call('GET', '/users/lookup/dave@example.org', { token: adminToken })).body.attributes).toEqual(['nationality=USA', 'analysts']);
    const daveLater = await idp.token('dave@example.org', ['analysts', 'auditors']);
    await svc.call('GET', '/whoami', { token: daveLater });
    expect((await svc.call('GET', '/users/lookup/dave@example.org', { token: adminToken })).body.attributes).toEqual(['nationality=USA', 'analysts', 'auditors']);
  });

  it('refuses another ordinary user with 403, before saying whether the user exists', async () => {
    for (const target of [ADMIN, 'nobody@example.org']) {
      const reply = await svc.call('GET', `/users/lookup/${target}`, { token: userToken });
      expect(reply.status).toBe(403);
      expect(reply.body.code).toBe('FORBIDDEN');
      expect(reply.headers.get('www-authenticate')).toContain('insufficient_scope');
    }
    // This test's own line (other tests may be refused look-ups too, before or after it).
    const line = await vi.waitFor(() => svc.audit().filter((l) => l.event === 'lookup' && l.outcome === 'denied' && l.target === ADMIN).at(-1) ?? Promise.reject(new Error('no audit line yet')));
    expect(line).toMatchObject({ actor: USER, target: ADMIN, status: 403 });
  });

  it('answers 404 JSON for an unknown user', async () => {
    const reply = await svc.call('GET', '/users/lookup/nobody@example.org', { token: adminToken });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 'NOT_FOUND', message: 'user "nobody@example.org" not found' });
    // Oneself is named by subject (what the graph server asks): unknown there, 404.
    const self = await svc.call('GET', `/users/lookup/${subjectOf('ghost@example.org')}`, { token: await idp.token('ghost@example.org') });
    expect(self.status).toBe(404);
  });

  it('writes an audit line per lookup: who, whom, outcome, when', async () => {
    await svc.call('GET', `/users/lookup/${USER}`, { token: adminToken });
    const line = await vi.waitFor(() => svc.audit().filter((l) => l.event === 'lookup' && l.actor === ADMIN && l.target === USER).at(-1) ?? Promise.reject(new Error('no audit line yet')));
    expect(line).toMatchObject({ audit: true, outcome: 'ok', status: 200, admin: true });
    expect(typeof line!.time).toBe('number');
    expect(typeof line!.reqId).toBe('string');
  });
});

describe('identity is (iss, sub), not the e-mail address (issue 13)', () => {
  it('a second subject with the admin\'s address, verified or not, never gets the admin\'s attributes', async () => {
    // The admin's subject claimed the seeded entry earlier; now two others arrive with the address.
    expect((await svc.call('GET', '/whoami', { token: adminToken })).body.userId).toBe(ADMIN);
    for (const [subject, verified] of [['twin-verified', true], ['twin-unverified', false]] as const) {
      const twin = await idp.token(ADMIN, ['ianode_read'], { sub: subject, email_verified: verified });
      const lookup = await svc.call('GET', `/users/lookup/${subject}`, { token: twin });
      expect(lookup.status).toBe(404);
      const byName = await svc.call('GET', `/users/lookup/${ADMIN}`, { token: twin });
      expect(byName.status).toBe(403);
      const whoami = await svc.call('GET', '/whoami', { token: twin });
      if (verified) {
        expect(whoami.status).toBe(403);
        expect(JSON.stringify(whoami.body)).not.toContain('clearance');
      } else {
        expect(whoami.body).toMatchObject({ userId: subject, email: null, active: false, dataAttributes: [] });
      }
    }
    await vi.waitFor(() => expect(svc.logs.some((line) => line.includes('identity refused') && line.includes('twin-verified'))).toBe(true));
    const admin = await svc.call('GET', `/users/lookup/${subjectOf(ADMIN)}`, { token: adminToken });
    expect(admin.body).toMatchObject({ id: ADMIN, attributes: expect.arrayContaining(['clearance=TS']) });
  });

  it('the graph server\'s look-up by subject links the seeded entry on first sight', async () => {
    const token = await idp.token('erin@example.org', ['ianode_read']);
    await svc.call('POST', '/users', { token: adminToken, body: { id: 'erin@example.org', email: 'erin@example.org', attributes: { clearance: 'S' } } });
    const reply = await svc.call('GET', `/users/lookup/${subjectOf('erin@example.org')}`, { token });
    expect(reply.body).toEqual({ id: 'erin@example.org', attributes: ['clearance=S', 'ianode_read'], active: true });
    const stored = await svc.call('GET', '/users/erin@example.org', { token: adminToken });
    expect(stored.body.subject).toMatchObject({ issuer: idp.issuer, subject: subjectOf('erin@example.org'), linkedBy: 'email' });
  });

  it('an administrator links an entry to an identity explicitly; a token of another client is refused', async () => {
    await svc.call('POST', '/users', { token: adminToken, body: { id: 'frank', attributes: { clearance: 'O' } } });
    const linked = await svc.call('PUT', '/users/frank/subject', { token: adminToken, body: { issuer: idp.issuer, subject: 'frank-sub' } });
    expect(linked.status).toBe(200);
    const token = await idp.token('frank.other.address@example.org', [], { sub: 'frank-sub' });
    expect((await svc.call('GET', '/whoami', { token })).body).toMatchObject({ userId: 'frank', dataAttributes: ['clearance=O'] });
    // A second entry (this test's own: it passes alone and in any order) cannot take the same identity.
    await svc.call('POST', '/users', { token: adminToken, body: { id: 'frank-twin' } });
    expect((await svc.call('PUT', '/users/frank-twin/subject', { token: adminToken, body: { issuer: idp.issuer, subject: 'frank-sub' } })).status).toBe(409);
    const otherClient = await idp.token('frank.other.address@example.org', [], { sub: 'frank-sub', aud: 'another-client' });
    const refused = await svc.call('GET', '/whoami', { token: otherClient });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('aud');
    const accessToken = await idp.token('x@example.org', [], { sub: 'frank-sub', token_use: 'access', client_id: 'testclient0000000000000001', aud: undefined });
    expect((await svc.call('GET', '/whoami', { token: accessToken })).status).toBe(401);
  });
});

describe('GET /hierarchies/lookup/{name}', () => {
  it('answers the tiers without a token', async () => {
    const reply = await svc.call('GET', '/hierarchies/lookup/clearance');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] });
  });

  it('answers 404 for an unknown hierarchy', async () => {
    const reply = await svc.call('GET', '/hierarchies/lookup/colour');
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('NOT_FOUND');
  });
});

describe('authentication failures', () => {
  it('no token → 401 with WWW-Authenticate and a JSON body', async () => {
    for (const path of ['/whoami', `/users/lookup/${USER}`, '/users']) {
      const reply = await svc.call('GET', path);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="ianode"');
      expect(reply.body).toEqual({ code: 'MISSING_TOKEN', message: 'a bearer token is required (Authorization: Bearer <ID token>)' });
    }
  });

  it('a bad token → 401 invalid_token, and the token never reaches the log', async () => {
    const forged = `${adminToken.slice(0, -6)}AAAAAA`;
    for (const token of ['garbage', forged]) {
      const reply = await svc.call('GET', '/whoami', { token });
      expect(reply.status).toBe(401);
      expect(reply.body.code).toBe('INVALID_TOKEN');
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="ianode", error="invalid_token"/);
    }
    expect(svc.logs.join('\n')).not.toContain(forged);
    expect(svc.logs.join('\n')).not.toContain(adminToken.split('.')[2]);
    // A token (or a code) in the query string is redacted from the logged URL.
    await svc.call('GET', `/whoami?access_token=${adminToken}&code=c0de-secret`);
    await vi.waitFor(() => expect(svc.logs.some((line) => line.includes('/whoami?access_token=[redacted]'))).toBe(true));
    expect(svc.logs.join('\n')).not.toContain(adminToken.split('.')[2]);
    expect(svc.logs.join('\n')).not.toContain('c0de-secret');
  });

  it('an expired token → 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.token(ADMIN, ['ianode_admin'], { iat: now - 7200, exp: now - 3600 });
    const reply = await svc.call('GET', '/whoami', { token });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ code: 'INVALID_TOKEN', message: 'token expired: fetch a new one' });
  });

  it('a token from another issuer → 401', async () => {
    const token = await idp.token(ADMIN, ['ianode_admin'], { iss: 'http://evil.example/local_test1234' });
    const reply = await svc.call('GET', '/whoami', { token });
    expect(reply.status).toBe(401);
    expect(reply.body.code).toBe('INVALID_TOKEN');
  });

  it('an ordinary user on the admin API → 403', async () => {
    for (const [method, path] of [
      ['GET', '/users'],
      ['GET', '/groups'],
      ['GET', '/attributes'],
      ['GET', '/hierarchies/clearance'],
      ['DELETE', `/users/${ADMIN}`],
    ] as const) {
      const reply = await svc.call(method, path, { token: userToken });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body).toEqual({ code: 'FORBIDDEN', message: 'this needs the ianode_admin group' });
    }
    expect((await svc.call('GET', `/users/${ADMIN}`, { token: adminToken })).status).toBe(200);
  });

  it('unknown routes answer 404 JSON', async () => {
    const reply = await svc.call('GET', '/nope?x=1');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 'NOT_FOUND', message: 'no route GET /nope' });
  });
});

describe('JWKS unreachable', () => {
  it.each(['down', 'html'] as const)('answers 503, never a guess (JWKS %s)', async (mode) => {
    const other = tempDir();
    const fresh = await startService(idp, other.dir);
    try {
      idp.mode = mode;
      const reply = await fresh.call('GET', '/whoami', { token: adminToken });
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({ code: 'JWKS_UNAVAILABLE', message: 'token signing keys unavailable: try again later' });
      expect((await fresh.call('GET', `/users/lookup/${USER}`, { token: adminToken })).status).toBe(503);
      expect((await fresh.call('GET', '/users', { token: adminToken })).status).toBe(503);
      expect((await fresh.call('GET', '/whoami')).status).toBe(401);
      expect((await fresh.call('GET', '/health')).status).toBe(200);
    } finally {
      idp.mode = 'ok';
      await fresh.close();
      other.remove();
    }
  });
});
