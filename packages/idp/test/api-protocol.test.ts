/** The JSON protocol itself: targets, content types, bodies, admin authentication. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdp, type TestIdp } from './support/harness.js';

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());

const post = (headers: Record<string, string>, body: string) => fetch(`${idp.base}/`, { method: 'POST', headers, body });

describe('Cognito JSON protocol', () => {
  it('answers an unknown or missing X-Amz-Target with UnknownOperationException', async () => {
    const unknown = await post({ 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.Nope' }, '{}');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ __type: 'UnknownOperationException' });
    const missing = await post({ 'content-type': 'application/x-amz-json-1.1' }, '{}');
    expect(await missing.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  it('answers malformed JSON and a wrong content type with SerializationException', async () => {
    const target = { 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' };
    const bad = await post({ ...target, 'content-type': 'application/x-amz-json-1.1' }, '{nope');
    expect(await bad.json()).toMatchObject({ __type: 'SerializationException' });
    const xml = await post({ ...target, 'content-type': 'text/xml' }, '<a/>');
    expect(xml.status).toBe(400);
    expect(await xml.json()).toMatchObject({ __type: 'SerializationException' });
  });

  it('answers with the AWS content type and a request id', async () => {
    const res = await post(
      { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
      JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: 'unknownclient' }),
    );
    expect(res.headers.get('content-type')).toMatch(/^application\/x-amz-json-1\.1/);
    expect(res.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toMatchObject({ __type: 'ResourceNotFoundException' });
  });

  it('does not expose the internal operation routes', async () => {
    const res = await fetch(`${idp.base}/_target/AWSCognitoIdentityProviderService.ListUserPools`, {
      method: 'POST',
      body: '{"MaxResults":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(404);
  });
});

describe('admin authentication (SigV4)', () => {
  const adminOps: [string, unknown][] = [
    ['CreateUserPool', { PoolName: 'x' }],
    ['ListUserPools', { MaxResults: 1 }],
    ['AdminCreateUser', { UserPoolId: 'local_abcdefgh', Username: 'x' }],
    ['AdminInitiateAuth', { UserPoolId: 'local_abcdefgh', ClientId: 'c', AuthFlow: 'ADMIN_USER_PASSWORD_AUTH' }],
    ['CreateGroup', { UserPoolId: 'local_abcdefgh', GroupName: 'g' }],
    ['ListUsers', { UserPoolId: 'local_abcdefgh' }],
  ];

  it.each(adminOps)('%s unsigned → UnrecognizedClientException (400)', async (op, body) => {
    const res = await idp.call(op, body, { sign: false });
    expect(res.status).toBe(400);
    expect(res.body.__type).toBe('UnrecognizedClientException');
  });

  it.each(adminOps)('%s signed with a wrong secret → InvalidSignatureException (403)', async (op, body) => {
    const res = await idp.call(op, body, { sign: { accessKeyId: idp.server.admin.accessKeyId, secretAccessKey: 'not-the-secret' } });
    expect(res.status).toBe(403);
    expect(res.body.__type).toBe('InvalidSignatureException');
  });

  it('an unknown access key → UnrecognizedClientException', async () => {
    const res = await idp.call('ListUserPools', { MaxResults: 1 }, { sign: { accessKeyId: 'AKIAUNKNOWNUNKNOWN00', secretAccessKey: 'x' } });
    expect(res.body).toMatchObject({ __type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' });
  });

  it('a request signed too long ago (or too far ahead) → InvalidSignatureException (signature expired)', async () => {
    for (const offset of [-20 * 60_000, 20 * 60_000]) {
      const res = await idp.call('ListUserPools', { MaxResults: 1 }, { signAt: idp.clock.now() + offset });
      expect(res.status).toBe(403);
      expect(res.body.__type).toBe('InvalidSignatureException');
      expect(res.body.message).toMatch(/^Signature expired/);
    }
  });

  it('signature errors come before validation errors (no information without the key)', async () => {
    const res = await idp.call('CreateUserPool', {}, { sign: false });
    expect(res.body.__type).toBe('UnrecognizedClientException');
  });

  it('user operations are public (no signature needed)', async () => {
    const res = await idp.call('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: 'nosuchclient' }, { sign: false });
    expect(res.body.__type).toBe('ResourceNotFoundException');
  });
});

describe('health and unknown routes', () => {
  it('GET /health', async () => {
    const res = await fetch(`${idp.base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('unknown routes are 404 JSON', async () => {
    const res = await fetch(`${idp.base}/nope/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});
