import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startIdp, startService, tempDir, type RunningService, type TestIdp } from './helpers.js';

let idp: TestIdp;
let svc: RunningService;
let data: ReturnType<typeof tempDir>;

beforeAll(async () => {
  idp = await startIdp();
  data = tempDir();
  svc = await startService(idp, data.dir);
});
afterAll(async () => {
  await svc.close();
  await idp.close();
  data.remove();
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface Operation {
  security?: unknown[];
  responses: Record<string, unknown>;
  parameters?: { name: string; in: string }[];
}

describe('GET /openapi.json', () => {
  it('documents every registered route, and every documented route is registered', async () => {
    const reply = await svc.call('GET', '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toMatch(/^3\./);
    const paths = reply.body.paths as Record<string, Record<string, Operation>>;
    const documented = Object.entries(paths)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const registered = svc.server.routes.map((r) => `${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`).sort();
    expect(documented).toEqual(registered);
    for (const route of [
      'GET /whoami',
      'GET /users/lookup/{user}',
      'GET /hierarchies/lookup/{name}',
      'GET /users',
      'POST /users',
      'GET /users/{id}',
      'PATCH /users/{id}',
      'DELETE /users/{id}',
      'GET /groups',
      'POST /groups',
      'DELETE /groups/{name}',
      'GET /hierarchies/{name}',
      'PUT /hierarchies/{name}',
      'DELETE /hierarchies/{name}',
      'GET /attributes',
      'POST /attributes',
      'GET /health',
      'GET /openapi.json',
    ]) {
      expect(documented).toContain(route);
    }
  });

  it('answers something other than 404 for every documented route', async () => {
    const token = await idp.token(ADMIN, ['ianode_admin']);
    const paths = (await svc.call('GET', '/openapi.json')).body.paths as Record<string, Record<string, Operation>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
        const concrete = path.replace(/\{[^}]+\}/g, 'probe-that-does-not-exist');
        const reply = await svc.call(method.toUpperCase(), concrete, { token, ...(['post', 'put', 'patch'].includes(method) ? { body: {} } : {}) });
        expect(reply.body?.message ?? '', `${method} ${path}`).not.toMatch(/^no route/);
      }
    }
  });

  it('marks authenticated routes with the bearer scheme and documents their errors', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).body;
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const publicRoutes = ['/health', '/openapi.json', '/hierarchies/lookup/{name}'];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        if (publicRoutes.includes(path)) {
          expect(op.security, `${method} ${path}`).toBeUndefined();
        } else {
          expect(op.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '503']));
        }
      }
    }
    const lookup = doc.paths['/users/lookup/{user}'].get as Operation;
    expect(lookup.parameters).toEqual([expect.objectContaining({ name: 'user', in: 'path' })]);
    expect(Object.keys(lookup.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '503']));
  });
});
