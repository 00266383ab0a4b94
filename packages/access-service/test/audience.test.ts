/**
 * `POST /labels/audience`: how many of the directory's users a label admits (issue 19, "who could
 * see it"). Administrators only; the same evaluator and hierarchies the graph server uses; inactive
 * users are never admitted. Each test reads the seeded directory without changing it, except the
 * last, which makes its own user and removes it.
 */
import { expect, it } from 'vitest';
import { ADMIN, USER, serviceForFile } from './helpers.js';

const f = serviceForFile();

const audience = (label: string, token = f.admin) => f.svc.call('POST', '/labels/audience', { token, body: { label } });

it('counts the active users a label admits, with the clearance hierarchy', async () => {
  // The demo directory: the administrator has clearance TS and is an employee; the user has OS and is a contractor.
  const cases: [string, string[]][] = [
    ['clearance=OS', [ADMIN, USER]],
    ['clearance=S', [ADMIN]],
    ['employee', [ADMIN]],
    ['contractor || employee', [ADMIN, USER]],
    ['engineer && nationality=GBR', [ADMIN, USER]],
    ['!', []],
    ['*', [ADMIN, USER]],
  ];
  for (const [label, users] of cases) {
    const r = await audience(label);
    expect(r.status, label).toBe(200);
    expect(r.body, label).toMatchObject({ admitted: users.length, active: 2 });
    expect([...r.body.users].sort(), label).toEqual([...users].sort());
  }
});

it('names the mistake in a label that does not parse', async () => {
  const r = await audience('clearance=S &&');
  expect(r.status).toBe(400);
  expect(r.body.message).toMatch(/^label: /);
});

it('answers administrators only', async () => {
  expect((await audience('employee', f.userToken)).status).toBe(403);
  expect((await f.svc.call('POST', '/labels/audience', { body: { label: 'employee' } })).status).toBe(401);
});

it('never counts an inactive user', async () => {
  const created = await f.svc.call('POST', '/users', { token: f.admin, body: { id: 'ina@example.org', email: 'ina@example.org', attributes: { clearance: 'TS' }, groups: [] } });
  expect(created.status).toBe(201);
  try {
    expect((await audience('clearance=TS')).body).toMatchObject({ admitted: 2, active: 3 });
    expect((await f.svc.call('PATCH', '/users/ina@example.org', { token: f.admin, body: { active: false } })).status).toBe(200);
    expect((await audience('clearance=TS')).body).toMatchObject({ admitted: 1, active: 2, users: [ADMIN] });
  } finally {
    await f.svc.call('DELETE', '/users/ina@example.org', { token: f.admin });
  }
});
