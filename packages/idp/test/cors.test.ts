/**
 * CORS and OPTIONS on the IdP (docs/operations.md, "Browsers and CORS"): a browser app on another
 * origin can call the Cognito JSON API (the AWS SDK v3's headers), read discovery and JWKS,
 * exchange a code at /oauth2/token and call /oauth2/userInfo. Never credentials; nothing by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdp, type TestIdp } from './support/harness.js';

const PAGE = 'http://localhost:5173';
let any: TestIdp;
let closed: TestIdp;
let poolId: string;

beforeAll(async () => {
  any = await startIdp({ corsOrigins: ['*'] });
  closed = await startIdp();
  poolId = ((await any.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'cors' })).UserPool.Id);
});

afterAll(async () => {
  await any?.close();
  await closed?.close();
});

const preflight = (idp: TestIdp, path: string, method: string, headers: string) =>
  fetch(`${idp.base}${path}`, { method: 'OPTIONS', headers: { origin: PAGE, 'access-control-request-method': method, 'access-control-request-headers': headers } });

const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('preflights', () => {
  it('the Cognito JSON API at POST /, with the headers the AWS SDK v3 sends from a browser', async () => {
    const sdkHeaders = 'content-type,x-amz-target,x-amz-user-agent,amz-sdk-invocation-id,amz-sdk-request';
    const r = await preflight(any, '/', 'POST', sdkHeaders);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(', ');
    for (const name of sdkHeaders.split(',')) expect(allowed).toContain(name);
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('discovery, JWKS, /oauth2/token and /oauth2/userInfo', async () => {
    for (const [path, method, allow] of [
      [`/${poolId}/.well-known/openid-configuration`, 'GET', 'GET, HEAD, OPTIONS'],
      [`/${poolId}/.well-known/jwks.json`, 'GET', 'GET, HEAD, OPTIONS'],
      ['/oauth2/token', 'POST', 'POST, OPTIONS'],
      ['/oauth2/userInfo', 'GET', 'GET, HEAD, POST, OPTIONS'],
    ] as const) {
      const r = await preflight(any, path, method, 'authorization,content-type');
      expect(r.status, path).toBe(204);
      expect(r.headers.get('allow'), path).toBe(allow);
      expect(r.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('by default: 204 with Allow, no CORS header', async () => {
    const r = await preflight(closed, '/', 'POST', 'content-type,x-amz-target');
    expect(r.status).toBe(204);
    expect(r.headers.get('allow')).toContain('POST');
    expect(corsHeaders(r.headers)).toEqual([]);
  });
});

describe('replies', () => {
  it('a Cognito error and its request id are readable by the page (x-amzn-requestid, x-amzn-errortype exposed)', async () => {
    const r = await fetch(`${any.base}/`, {
      method: 'POST',
      headers: { origin: PAGE, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
      body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: 'nosuchclient0000000000001', AuthParameters: { USERNAME: 'a', PASSWORD: 'b' } }),
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(', ');
    expect(exposed).toContain('x-amzn-requestid');
    expect(exposed).toContain('x-amzn-errortype');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('JWKS: readable from any origin with *, nothing CORS by default', async () => {
    const open = await fetch(`${any.base}/${poolId}/.well-known/jwks.json`, { headers: { origin: PAGE } });
    expect(open.status).toBe(200);
    expect(open.headers.get('access-control-allow-origin')).toBe('*');
    const none = await fetch(`${closed.base}/health`, { headers: { origin: PAGE } });
    expect(none.status).toBe(200);
    expect(corsHeaders(none.headers)).toEqual([]);
  });
});
