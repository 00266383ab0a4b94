import { describe, expect, it, vi } from 'vitest';
import { ADMIN, USER, serviceForFile } from './helpers.js';

const f = serviceForFile();

const call = (method: string, path: string, body?: unknown) => f.svc.call(method, path, { token: f.admin, ...(body === undefined ? {} : { body }) });

describe('users', () => {
  it('lists users, with paging and an active filter', async () => {
    const all = await call('GET', '/users');
    expect(all.status).toBe(200);
    expect(all.body.users.map((u: { id: string }) => u.id)).toEqual([ADMIN, USER]);
    expect(all.body.total).toBe(2);
    expect(all.body.users[1]).toMatchObject({ id: USER, email: USER, name: 'Demo User', active: true, attributes: { clearance: 'OS' }, groups: [] });
    const page = await call('GET', '/users?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 2, users: [{ id: USER }] });
    expect((await call('GET', '/users?active=false')).body.total).toBe(0);
    for (const query of ['limit=0', 'limit=abc', 'offset=-1', 'active=yes', 'colour=red']) {
      expect((await call('GET', `/users?${query}`)).status, query).toBe(400);
    }
  });

  it('creates, reads, changes and deletes a user', async () => {
    const created = await call('POST', '/users', {
      id: 'erin@example.org',
      email: 'erin@example.org',
      name: 'Erin',
      attributes: { clearance: 'S', nationality: ['GBR', 'IRL'] },
      groups: ['ianode_read'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/users/erin%40example.org');
    expect(created.body).toMatchObject({ id: 'erin@example.org', active: true, attributes: { clearance: 'S', nationality: ['GBR', 'IRL'] }, groups: ['ianode_read'] });

    const erin = await f.idp.token('erin@example.org');
    expect((await f.svc.call('GET', '/users/lookup/erin@example.org', { token: erin })).body.attributes).toEqual([
      'clearance=S',
      'nationality=GBR',
      'nationality=IRL',
      'ianode_read',
    ]);

    const patched = await call('PATCH', '/users/erin@example.org', { attributes: { clearance: 'TS', nationality: null }, name: 'Erin E.' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Erin E.', attributes: { clearance: 'TS' }, groups: ['ianode_read'] });
    expect((await call('GET', '/users/erin@example.org')).body.attributes).toEqual({ clearance: 'TS' });
    expect((await f.svc.call('GET', '/users/lookup/erin@example.org', { token: erin })).body.attributes).toEqual(['clearance=TS', 'ianode_read']);

    expect((await call('PATCH', '/users/erin@example.org', { groups: [] })).body.groups).toEqual([]);
    expect((await call('DELETE', '/users/erin@example.org')).status).toBe(204);
    expect((await call('GET', '/users/erin@example.org')).status).toBe(404);
    expect((await call('DELETE', '/users/erin@example.org')).status).toBe(404);
    expect((await call('PATCH', '/users/erin@example.org', { active: true })).status).toBe(404);
  });

  it('shows a change of attributes in the next lookup', async () => {
    const before = await f.svc.call('GET', `/users/lookup/${USER}`, { token: f.userToken });
    expect(before.body.attributes).toContain('clearance=OS');
    await call('PATCH', `/users/${USER}`, { attributes: { clearance: 'S' } });
    const after = await f.svc.call('GET', `/users/lookup/${USER}`, { token: f.userToken });
    expect(after.body.attributes).toContain('clearance=S');
    expect(after.body.attributes).not.toContain('clearance=OS');
    await call('PATCH', `/users/${USER}`, { attributes: { clearance: 'OS' } });
  });

  it('refuses a duplicate user with 409', async () => {
    const reply = await call('POST', '/users', { id: USER });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ code: 'CONFLICT', message: `user "${USER}" exists already` });
  });

  it.each([
    ['no id', { email: 'x@y' }, /id/],
    ['an empty id', { id: '' }, /id/],
    ['an unknown field', { id: 'x', colour: 'red' }, /^body must not have property "colour"$/],
    ['a non-boolean active', { id: 'x', active: 'yes' }, /active/],
    ['a numeric attribute value', { id: 'x', attributes: { clearance: 3 } }, /^body\.attributes\.clearance must be string or array$/],
    ['an undefined attribute', { id: 'x', attributes: { shoe_size: '9' } }, /attribute shoe_size is not defined/],
    ['a value outside the hierarchy', { id: 'x', attributes: { clearance: 'XX' } }, /clearance=XX is not allowed; allowed values of clearance: O, OS, S, TS/],
    ['a value outside the allowed values', { id: 'x', attributes: { nationality: 'ATL' } }, /nationality=ATL is not allowed/],
    ['a repeated value', { id: 'x', attributes: { nationality: ['GBR', 'GBR'] } }, /twice/],
    ['an attribute name that is not a word', { id: 'x', attributes: { 'a=b': 'c' } }, /not a word/],
    ['an unknown group', { id: 'x', groups: ['nope'] }, /group "nope" does not exist/],
    ['a control character in a name', { id: 'x', name: 'a\u0007b' }, /name must be/],
  ])('refuses a user with %s (400)', async (_what, body, message) => {
    const reply = await call('POST', '/users', body);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION');
    expect(reply.body.message).toMatch(message);
    expect((await call('GET', '/users/x')).status).toBe(404);
  });

  it.each([
    ['an empty patch', {}],
    ['an unknown field', { attributes: {}, role: 'boss' }],
    ['a list of numbers', { attributes: { nationality: [1] } }],
    ['a bad value next to a good one', { attributes: { clearance: 'TS', nationality: 'ATL' } }],
    ['a good value next to an unknown group', { attributes: { clearance: 'TS' }, groups: ['nope'] }],
  ])('refuses a patch with %s (400) and changes nothing', async (_what, body) => {
    const before = (await call('GET', `/users/${USER}`)).body;
    const reply = await call('PATCH', `/users/${USER}`, body);
    expect(reply.status).toBe(400);
    expect((await call('GET', `/users/${USER}`)).body).toEqual(before);
  });
});

describe('groups', () => {
  it('lists, creates and deletes groups; membership gives a boolean attribute', async () => {
    expect((await call('GET', '/groups')).body.groups.map((g: { name: string }) => g.name)).toEqual(['ianode_admin', 'ianode_read']);
    const created = await call('POST', '/groups', { name: 'analysts', description: 'Analysts' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'analysts', description: 'Analysts', members: [] });
    expect((await call('POST', '/groups', { name: 'analysts' })).status).toBe(409);
    await call('PATCH', `/users/${USER}`, { groups: ['analysts'] });
    expect((await call('GET', '/groups')).body.groups.find((g: { name: string }) => g.name === 'analysts').members).toEqual([USER]);
    expect((await f.svc.call('GET', `/users/lookup/${USER}`, { token: f.userToken })).body.attributes).toEqual(
      expect.arrayContaining(['ianode_read', 'analysts']),
    );
    expect((await call('DELETE', '/groups/analysts')).status).toBe(204);
    expect((await call('GET', `/users/${USER}`)).body.groups).toEqual([]);
    expect((await call('DELETE', '/groups/analysts')).status).toBe(404);
  });

  it.each([[{}], [{ name: '' }], [{ name: 'has space' }], [{ name: 'a=b' }], [{ name: 'x', members: [] }]])('refuses group %j (400)', async (body) => {
    expect((await call('POST', '/groups', body)).status).toBe(400);
  });
});

describe('hierarchies', () => {
  it('gets, creates, replaces and deletes a hierarchy', async () => {
    expect((await call('GET', '/hierarchies/clearance')).body).toEqual({ name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] });
    expect((await call('GET', '/hierarchies')).body).toEqual({ hierarchies: [{ name: 'clearance', tiers: ['O', 'OS', 'S', 'TS'] }] });
    expect((await call('GET', '/hierarchies/tier')).status).toBe(404);
    expect((await call('PUT', '/hierarchies/tier', { tiers: ['bronze', 'silver'] })).status).toBe(201);
    const replaced = await call('PUT', '/hierarchies/tier', { name: 'tier', tiers: ['bronze', 'silver', 'gold'] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ name: 'tier', tiers: ['bronze', 'silver', 'gold'] });
    expect((await f.svc.call('GET', '/hierarchies/lookup/tier')).body.tiers).toEqual(['bronze', 'silver', 'gold']);
    expect((await call('DELETE', '/hierarchies/tier')).status).toBe(204);
    expect((await f.svc.call('GET', '/hierarchies/lookup/tier')).status).toBe(404);
    expect((await call('DELETE', '/hierarchies/tier')).status).toBe(404);
  });

  it.each([
    ['no tiers', {}],
    ['empty tiers', { tiers: [] }],
    ['repeated tiers', { tiers: ['a', 'a'] }],
    ['non-string tiers', { tiers: [1, 2] }],
    ['another name in the body', { name: 'other', tiers: ['a'] }],
  ])('refuses %s (400)', async (_what, body) => {
    const reply = await call('PUT', '/hierarchies/level', body);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION');
  });

  it('refuses tiers that would strand values users hold (409)', async () => {
    const reply = await call('PUT', '/hierarchies/clearance', { tiers: ['O', 'S', 'TS'] });
    expect(reply.status).toBe(409);
    expect(reply.body.message).toContain('clearance=OS');
    expect((await call('GET', '/hierarchies/clearance')).body.tiers).toEqual(['O', 'OS', 'S', 'TS']);
  });
});

describe('attribute definitions', () => {
  it('lists, defines, redefines and deletes attributes', async () => {
    const list = (await call('GET', '/attributes')).body.attributes;
    expect(list.map((a: { name: string }) => a.name)).toEqual(['clearance', 'contractor', 'employee', 'engineer', 'nationality']);
    expect(list[0]).toEqual({
      name: 'clearance',
      description: 'Security clearance; its values are the tiers of the clearance hierarchy',
      values: null,
      hierarchy: ['O', 'OS', 'S', 'TS'],
    });

    const created = await call('POST', '/attributes', { name: 'tier', hierarchy: ['bronze', 'silver', 'gold'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'tier', description: null, values: null, hierarchy: ['bronze', 'silver', 'gold'] });
    expect((await f.svc.call('GET', '/hierarchies/lookup/tier')).body.tiers).toEqual(['bronze', 'silver', 'gold']);
    expect((await call('POST', '/users', { id: 'tia@example.org', attributes: { tier: 'gold' } })).status).toBe(201);
    expect((await call('POST', '/users', { id: 'tib@example.org', attributes: { tier: 'platinum' } })).status).toBe(400);

    expect((await call('POST', '/attributes', { name: 'tier', hierarchy: ['bronze', 'silver'] })).status).toBe(409);
    const redefined = await call('POST', '/attributes', { name: 'tier', description: 'Service tier', values: ['bronze', 'silver', 'gold', 'platinum'] });
    expect(redefined.status).toBe(200);
    expect(redefined.body).toEqual({ name: 'tier', description: 'Service tier', values: ['bronze', 'silver', 'gold', 'platinum'], hierarchy: ['bronze', 'silver', 'gold'] });
    expect((await call('GET', '/attributes/tier')).body.description).toBe('Service tier');

    expect((await call('DELETE', '/attributes/tier')).status).toBe(409);
    await call('DELETE', '/users/tia@example.org');
    expect((await call('DELETE', '/attributes/tier')).status).toBe(204);
    expect((await call('GET', '/attributes/tier')).status).toBe(404);
    expect((await call('DELETE', '/attributes/tier')).status).toBe(404);
    // The hierarchy the definition made outlives it; removed so the hierarchies tests, in any
    // order, find only the seeded one.
    expect((await call('DELETE', '/hierarchies/tier')).status).toBe(204);
  });

  it.each([
    ['no name', { values: ['a'] }, 400],
    ['a name that is not a word', { name: 'two words' }, 400],
    ['empty values', { name: 'x', values: [] }, 400],
    ['tiers outside the values', { name: 'x', values: ['a'], hierarchy: ['a', 'b'] }, 400],
    ['an unknown field', { name: 'x', type: 'string' }, 400],
    ['values that strand what users hold', { name: 'nationality', values: ['USA'] }, 409],
  ])('refuses %s', async (_what, body, status) => {
    expect((await call('POST', '/attributes', body)).status).toBe(status);
  });

  it('writes an audit line per admin change', async () => {
    await call('PATCH', `/users/${USER}`, { attributes: { clearance: 'OS' } });
    await call('POST', '/groups', { name: 'audited' });
    await call('POST', '/groups', { name: 'audited' });
    await f.svc.call('POST', '/groups', { token: f.userToken, body: { name: 'sneaky' } });
    await vi.waitFor(() => expect(f.svc.audit().some((l) => l.event === 'group.create' && l.actor === USER)).toBe(true));
    const lines = f.svc.audit().filter((l) => l.event === 'group.create');
    expect(lines.map((l) => [l.actor, l.target, l.outcome, l.status])).toEqual([
      ...lines.slice(0, -3).map((l) => [l.actor, l.target, l.outcome, l.status]),
      [ADMIN, 'audited', 'ok', 201],
      [ADMIN, 'audited', 'rejected', 409],
      [USER, null, 'denied', 403],
    ]);
    const patch = f.svc.audit().find((l) => l.event === 'user.update' && l.outcome === 'ok');
    expect(patch).toMatchObject({ actor: ADMIN, target: expect.any(String), changes: expect.any(Object) });
    // Its group removed again, so the groups tests, in any order, list only the seeded ones.
    expect((await call('DELETE', '/groups/audited')).status).toBe(204);
  });
});
