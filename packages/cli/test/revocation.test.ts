/**
 * Issue 13, revocation: the real IdP, access service and graph server in one process, one injected
 * clock. GlobalSignOut, AdminUserGlobalSignOut, RevokeToken, AdminDisableUser and AdminDeleteUser
 * take effect at the graph server within its revocation poll interval, not at token expiry.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessServer, type AccessServer } from '@ianode/access-service';
import { createGraphServer, type GraphServer } from '@ianode/graph-server';
import { createIdpServer, signRequestV4, type IdpServer } from '@ianode/idp';
import { DEMO_CLIENT, DEMO_PASSWORD, DEMO_POOL, REPO_ROOT } from '../src/up.js';

const POLL_MS = 10_000;
const clock = { t: Date.now() };
const now = () => clock.t;
let dir: string;
let idp: IdpServer;
let access: AccessServer;
let graph: GraphServer;
let idpUrl: string;
let graphUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ianode-revocation-'));
  idp = await createIdpServer({
    dataDir: path.join(dir, 'idp'),
    seed: path.join(REPO_ROOT, 'packages/idp/seed/demo.yaml'),
    log: false,
    now,
    adminCredentials: { accessKeyId: 'AKIAREVOCATIONTEST01', secretAccessKey: 'revocation-test-secret' },
  });
  idpUrl = await idp.listen({ port: 0, host: '127.0.0.1' });
  const issuer = `${idpUrl}/${DEMO_POOL}`;
  const jwksUrl = `${issuer}/.well-known/jwks.json`;
  const revocationUrl = `${issuer}/revocations`;
  access = await createAccessServer({
    dataDir: ':memory:',
    seed: path.join(REPO_ROOT, 'packages/access-service/seed/demo.yaml'),
    openIdProviderUrl: issuer,
    jwksUrl,
    clientIds: [DEMO_CLIENT],
    linkByEmail: true,
    logger: false,
    now,
  });
  const accessUrl = await access.listen({ port: 0 });
  graph = await createGraphServer(
    {
      security: { jwksUrl, openIdProviderUrl: issuer, userAttributesUrl: accessUrl, clientIds: [DEMO_CLIENT], revocationUrl, revocationPollMs: POLL_MS, attributeCacheMs: 30_000 },
    },
    { logger: false, now },
  );
  await graph.store.load('<http://example/x> <http://example/p> "visible to readers" .', { format: 'text/turtle', label: 'ianode_read' });
  graphUrl = await graph.listen({ port: 0 });
});

afterAll(async () => {
  await graph?.close();
  await access?.close();
  await idp?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cognito<T = Record<string, unknown>>(operation: string, body: unknown, signed = false): Promise<{ status: number; body: T }> {
  const payload = JSON.stringify(body);
  const host = new URL(idpUrl).host;
  let headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    'x-amz-target': `AWSCognitoIdentityProviderService.${operation}`,
    host,
  };
  if (signed) headers = signRequestV4({ method: 'POST', url: '/', headers, body: payload }, { ...idp.admin, region: 'us-east-1', service: 'cognito-idp', now: now() });
  const response = await fetch(`${idpUrl}/`, { method: 'POST', headers, body: payload });
  return { status: response.status, body: (await response.json()) as T };
}

interface Tokens {
  IdToken: string;
  AccessToken: string;
  RefreshToken: string;
}

async function signIn(username: string, password = DEMO_PASSWORD): Promise<Tokens> {
  const reply = await cognito<{ AuthenticationResult: Tokens }>('InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: DEMO_CLIENT,
    AuthParameters: { USERNAME: username, PASSWORD: password },
  });
  expect(reply.status).toBe(200);
  return reply.body.AuthenticationResult;
}

async function query(idToken: string): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const response = await fetch(`${graphUrl}/ds/query?query=${encodeURIComponent('SELECT * WHERE { ?s ?p ?o }')}`, { headers: { authorization: `Bearer ${idToken}` } });
  return { status: response.status, body: (await response.json()) as { code?: string; message?: string } };
}

/** The token works now, is still served from the list within the poll interval, and is refused once it passes. */
async function refusedWithinPoll(idToken: string): Promise<void> {
  clock.t += POLL_MS;
  const refused = await query(idToken);
  expect(refused.status).toBe(401);
  expect(refused.body).toMatchObject({ code: 'INVALID_TOKEN', message: expect.stringContaining('revoked') });
}

describe('revocation reaches the graph server within the poll interval (issue 13)', () => {
  it('GlobalSignOut: every token of the user issued before it is refused; a new sign-in works', async () => {
    const tokens = await signIn('user@ianode.local');
    expect((await query(tokens.IdToken)).status).toBe(200);
    expect((await cognito('GlobalSignOut', { AccessToken: tokens.AccessToken })).status).toBe(200);
    await refusedWithinPoll(tokens.IdToken);
    clock.t += 1_000;
    expect((await query((await signIn('user@ianode.local')).IdToken)).status).toBe(200);
  });

  it('RevokeToken: the tokens of that sign-in session are refused, other sessions are not', async () => {
    const revoked = await signIn('user@ianode.local');
    const other = await signIn('user@ianode.local');
    expect((await cognito('RevokeToken', { Token: revoked.RefreshToken, ClientId: DEMO_CLIENT })).status).toBe(200);
    await refusedWithinPoll(revoked.IdToken);
    expect((await query(other.IdToken)).status).toBe(200);
  });

  it('AdminUserGlobalSignOut and AdminDisableUser (signed admin calls)', async () => {
    clock.t += 1_000;
    const first = await signIn('user@ianode.local');
    expect((await cognito('AdminUserGlobalSignOut', { UserPoolId: DEMO_POOL, Username: 'user@ianode.local' }, true)).status).toBe(200);
    await refusedWithinPoll(first.IdToken);

    clock.t += 1_000;
    const second = await signIn('user@ianode.local');
    expect((await query(second.IdToken)).status).toBe(200);
    expect((await cognito('AdminDisableUser', { UserPoolId: DEMO_POOL, Username: 'user@ianode.local' }, true)).status).toBe(200);
    await refusedWithinPoll(second.IdToken);
    // Enabling again does not revive the old token.
    expect((await cognito('AdminEnableUser', { UserPoolId: DEMO_POOL, Username: 'user@ianode.local' }, true)).status).toBe(200);
    clock.t += POLL_MS;
    expect((await query(second.IdToken)).status).toBe(401);
  });

  it('AdminDeleteUser: the deleted user\'s tokens are refused', async () => {
    const password = 'Deleted-user-1';
    expect(
      (await cognito('AdminCreateUser', { UserPoolId: DEMO_POOL, Username: 'temp@ianode.local', MessageAction: 'SUPPRESS', UserAttributes: [{ Name: 'email', Value: 'temp@ianode.local' }] }, true)).status,
    ).toBe(200);
    expect((await cognito('AdminSetUserPassword', { UserPoolId: DEMO_POOL, Username: 'temp@ianode.local', Password: password, Permanent: true }, true)).status).toBe(200);
    expect((await cognito('AdminAddUserToGroup', { UserPoolId: DEMO_POOL, Username: 'temp@ianode.local', GroupName: 'ianode_read' }, true)).status).toBe(200);
    const tokens = await signIn('temp@ianode.local', password);
    // Not in the directory: recorded as nobody with attributes, so 403, but the token itself is good.
    expect((await query(tokens.IdToken)).status).toBe(403);
    expect((await cognito('AdminDeleteUser', { UserPoolId: DEMO_POOL, Username: 'temp@ianode.local' }, true)).status).toBe(200);
    await refusedWithinPoll(tokens.IdToken);
  });

  it('the published list names no subject or session in clear', async () => {
    // Revocations of its own (a session and a subject), on a user the other tests leave alone.
    clock.t += 1_000;
    const session = await signIn('admin@ianode.local');
    const subject = await signIn('admin@ianode.local');
    expect((await cognito('RevokeToken', { Token: session.RefreshToken, ClientId: DEMO_CLIENT })).status).toBe(200);
    expect((await cognito('GlobalSignOut', { AccessToken: subject.AccessToken })).status).toBe(200);
    const text = await (await fetch(`${idpUrl}/${DEMO_POOL}/revocations`)).text();
    const list = JSON.parse(text) as { subjects: Array<{ sub: string }>; sessions: string[] };
    expect(list.subjects.length).toBeGreaterThan(0);
    expect(list.sessions.length).toBeGreaterThan(0);
    for (const hash of [...list.subjects.map((s) => s.sub), ...list.sessions]) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const claims = JSON.parse(Buffer.from(subject.IdToken.split('.')[1]!, 'base64url').toString()) as { sub: string; origin_jti: string };
    for (const clear of [claims.sub, claims.origin_jti, 'admin@ianode.local']) expect(text).not.toContain(clear);
  });
});
