/**
 * Issue 15, provisioning: the real IdP, access service and graph server in one process, with the
 * demo's access configuration (config/access-demo.yaml). A user created in the IdP and put in
 * ianode_read reads through the graph server with no administrator step; the IdP's user-creation
 * notification is a JWT signed with the pool's key that the access service verifies through the
 * JWKS (audience, token_use, replay); an entry an administrator deactivated stays inactive; an
 * unreachable access service does not fail the creation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessServer, readAccessConfigFile, type AccessServer } from '@ianode/access-service';
import { createGraphServer, type GraphServer } from '@ianode/graph-server';
import { createIdpServer, signRequestV4, userCreatedToken, type IdpServer } from '@ianode/idp';
import { DEMO_CLIENT, DEMO_PASSWORD, DEMO_POOL, REPO_ROOT } from '../src/up.js';

let dir: string;
let idp: IdpServer;
let access: AccessServer;
let graph: GraphServer;
/** A second graph server whose read permission lets an attribute-less caller in (`*`, issue 17). */
let graphStar: GraphServer;
let graphStarUrl: string;
let idpUrl: string;
let accessUrl: string;
let graphUrl: string;
let issuer: string;
const idpLog: Record<string, unknown>[] = [];
const accessLog: Record<string, unknown>[] = [];

/** A free loopback port (the IdP must know the access service's URL before either listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lines = (into: Record<string, unknown>[]) => ({
  write(chunk: string) {
    for (const line of chunk.split('\n')) if (line.trim() !== '') into.push(JSON.parse(line) as Record<string, unknown>);
  },
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ianode-provisioning-'));
  const accessPort = await freePort();
  idp = await createIdpServer({
    dataDir: path.join(dir, 'idp'),
    seed: path.join(REPO_ROOT, 'packages/idp/seed/demo.yaml'),
    log: { level: 'info', stream: lines(idpLog) },
    adminCredentials: { accessKeyId: 'AKIAPROVISIONINGTEST', secretAccessKey: 'provisioning-test-secret' },
    userCreatedWebhook: { url: `http://127.0.0.1:${accessPort}/provisioning/user-created` },
  });
  idpUrl = await idp.listen({ port: 0, host: '127.0.0.1' });
  issuer = `${idpUrl}/${DEMO_POOL}`;
  const jwksUrl = `${issuer}/.well-known/jwks.json`;
  access = await createAccessServer({
    dataDir: ':memory:',
    seed: path.join(REPO_ROOT, 'packages/access-service/seed/demo.yaml'),
    provisioning: readAccessConfigFile(path.join(REPO_ROOT, 'config/access-demo.yaml')).provisioning,
    openIdProviderUrl: issuer,
    jwksUrl,
    clientIds: [DEMO_CLIENT],
    linkByEmail: true,
    logger: { level: 'info', stream: lines(accessLog) } as never,
  });
  accessUrl = await access.listen({ port: accessPort });
  graph = await createGraphServer(
    { security: { jwksUrl, openIdProviderUrl: issuer, userAttributesUrl: accessUrl, clientIds: [DEMO_CLIENT], attributeCacheMs: 0 } },
    { logger: false },
  );
  await graph.store.load('<http://example/x> <http://example/p> "visible to readers" .', { format: 'text/turtle', label: 'ianode_read' });
  graphUrl = await graph.listen({ port: 0 });
  graphStar = await createGraphServer(
    { security: { jwksUrl, openIdProviderUrl: issuer, userAttributesUrl: accessUrl, clientIds: [DEMO_CLIENT], attributeCacheMs: 0 }, dataset: { permissions: { read: '*', write: 'ianode_admin', admin: 'ianode_admin' } } },
    { logger: false },
  );
  await graphStar.store.load('<http://example/x> <http://example/p> "for anyone the directory knows" .', { format: 'text/turtle', label: '*' });
  graphStarUrl = await graphStar.listen({ port: 0 });
});

afterAll(async () => {
  await graph?.close();
  await graphStar?.close();
  await access?.close();
  await idp?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cognito<T = Record<string, unknown>>(operation: string, body: unknown, signed = false, base = idpUrl, server = idp): Promise<{ status: number; body: T }> {
  const payload = JSON.stringify(body);
  let headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    'x-amz-target': `AWSCognitoIdentityProviderService.${operation}`,
    host: new URL(base).host,
  };
  if (signed) headers = signRequestV4({ method: 'POST', url: '/', headers, body: payload }, { ...server.admin, region: 'us-east-1', service: 'cognito-idp', now: Date.now() });
  const response = await fetch(`${base}/`, { method: 'POST', headers, body: payload });
  return { status: response.status, body: (await response.json()) as T };
}

/** AdminCreateUser (with a verified address), a permanent password, the groups: as an operator would. */
async function createUser(email: string, groups: string[]): Promise<string> {
  const created = await cognito<{ User: { Attributes: { Name: string; Value: string }[] } }>('AdminCreateUser', {
    UserPoolId: DEMO_POOL,
    Username: email,
    UserAttributes: [{ Name: 'email', Value: email }, { Name: 'email_verified', Value: 'true' }],
    MessageAction: 'SUPPRESS',
  }, true);
  expect(created.status).toBe(200);
  expect((await cognito('AdminSetUserPassword', { UserPoolId: DEMO_POOL, Username: email, Password: DEMO_PASSWORD, Permanent: true }, true)).status).toBe(200);
  for (const group of groups) expect((await cognito('AdminAddUserToGroup', { UserPoolId: DEMO_POOL, Username: email, GroupName: group }, true)).status).toBe(200);
  return created.body.User.Attributes.find((a) => a.Name === 'sub')!.Value;
}

async function signIn(username: string): Promise<string> {
  const reply = await cognito<{ AuthenticationResult: { IdToken: string } }>('InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: DEMO_CLIENT,
    AuthParameters: { USERNAME: username, PASSWORD: DEMO_PASSWORD },
  });
  expect(reply.status).toBe(200);
  return reply.body.AuthenticationResult.IdToken;
}

async function query(idToken: string, url = graphUrl): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/ds/query?query=${encodeURIComponent('SELECT ?o WHERE { ?s ?p ?o }')}`, {
    headers: { authorization: `Bearer ${idToken}`, accept: 'application/sparql-results+json' },
  });
  return { status: response.status, text: await response.text() };
}

/** Waits (bounded by tries, not by a clock) for the notification of `sub` to be recorded. */
async function recorded(sub: string): Promise<NonNullable<ReturnType<AccessServer['directory']['findBySubject']>>> {
  for (let i = 0; i < 200; i++) {
    const user = access.directory.findBySubject(issuer, sub);
    if (user !== undefined) return user;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the access service never recorded ${sub}`);
}

/** A notification token as the IdP makes them, for a user of the demo pool. */
async function notification(sub: string, email: string, audience = 'ianode-access-service'): Promise<string> {
  const user: Parameters<typeof userCreatedToken>[2] = {
    poolId: DEMO_POOL, username: sub, sub, attributes: { email, email_verified: 'true' },
    passwordHash: null, srpSalt: null, srpVerifier: null, status: 'CONFIRMED', enabled: true, passwordSetAt: null, createdAt: 0, updatedAt: 0,
  };
  return userCreatedToken(idp.context, DEMO_POOL, user, audience);
}

const notify = (token: string) => fetch(`${accessUrl}/provisioning/user-created`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });

describe('an IdP-created user in ianode_read reads with no administrator step (issue 15)', () => {
  it('AdminCreateUser notifies the access service (recorded inactive: no groups yet); with ianode_read the first query activates it by the rule', async () => {
    const sub = await createUser('new.reader@example.org', ['ianode_read']);
    const entry = await recorded(sub);
    expect(entry.active).toBe(false);
    expect(entry.email).toBe('new.reader@example.org');
    const answer = await query(await signIn('new.reader@example.org'));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('visible to readers');
    // Issue 17: activated by the rule at its lookup, it is a known user, not an unknown one.
    const star = await query(await signIn('new.reader@example.org'), graphStarUrl);
    expect(star.status).toBe(200);
    expect(star.text).toContain('for anyone the directory knows');
    const after = access.directory.findBySubject(issuer, sub)!;
    expect(after).toMatchObject({ active: true, activatedBy: 'rule:ianode_read', deactivatedAt: null });
    const audit = accessLog.find((l) => l.event === 'auto-activate' && l.target === after.id);
    expect(audit).toMatchObject({ audit: true, rule: 'ianode_read', via: 'lookup' });
    // The notification token never reaches a log line.
    expect(JSON.stringify([...idpLog, ...accessLog])).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/);
    expect(idpLog.some((l) => l.msg === 'user-creation notification delivered' && l.sub === sub)).toBe(true);
  });

  it('a user in no rule group stays inactive and cannot read', async () => {
    const sub = await createUser('no.group@example.org', []);
    await recorded(sub);
    const idToken = await signIn('no.group@example.org');
    expect((await query(idToken)).status).toBe(403);
    expect(access.directory.findBySubject(issuer, sub)!.active).toBe(false);
    // Issue 17: inactive is refused even where the read permission lets an attribute-less caller in.
    const star = await query(idToken, graphStarUrl);
    expect(star.status).toBe(403);
    expect(JSON.parse(star.text)).toMatchObject({ code: 'INACTIVE_USER' });
    expect(star.text).not.toContain('for anyone');
    // Deleted from the directory, its still-valid token belongs to a user the access service does
    // not know: 403 UNKNOWN_USER, not the `*` data (the reference's answer).
    const adminToken = await signIn('admin@ianode.local');
    const id = access.directory.findBySubject(issuer, sub)!.id;
    const deleted = await fetch(`${accessUrl}/users/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { authorization: `Bearer ${adminToken}` } });
    expect(deleted.status).toBe(204);
    const unknown = await query(idToken, graphStarUrl);
    expect(unknown.status).toBe(403);
    expect(JSON.parse(unknown.text)).toMatchObject({ code: 'UNKNOWN_USER' });
    expect(unknown.text).not.toContain('for anyone');
  });

  it('a user an administrator deactivated is not reactivated by the rule', async () => {
    const sub = await createUser('switched.off@example.org', ['ianode_read']);
    const idToken = await signIn('switched.off@example.org');
    expect((await query(idToken)).status).toBe(200);
    const id = access.directory.findBySubject(issuer, sub)!.id;
    const adminToken = await signIn('admin@ianode.local');
    const patched = await fetch(`${accessUrl}/users/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ active: false }),
    });
    expect(patched.status).toBe(200);
    expect((await query(idToken)).status).toBe(403);
    expect(JSON.parse((await query(idToken, graphStarUrl)).text)).toMatchObject({ code: 'INACTIVE_USER' });
    const whoami = await fetch(`${accessUrl}/whoami`, { headers: { authorization: `Bearer ${idToken}` } });
    expect(await whoami.json()).toMatchObject({ active: false, dataAttributes: [] });
    expect(access.directory.findBySubject(issuer, sub)!.deactivatedAt).not.toBeNull();
    // An administrator may switch it on again.
    const on = await fetch(`${accessUrl}/users/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ active: true }),
    });
    expect(on.status).toBe(200);
    expect((await query(idToken)).status).toBe(200);
  });
});

describe('the user-creation notification', () => {
  it('a notification carrying ianode_read activates the user at once; a replay, another audience, a user ID token or none are refused', async () => {
    const sub = await createUser('notified@example.org', ['ianode_read']);
    await recorded(sub); // AdminCreateUser's own notification (no groups then): inactive
    expect(access.directory.findBySubject(issuer, sub)!.active).toBe(false);
    // The IdP's notification once the user has its group (as the seed sends it).
    const token = await notification(sub, 'notified@example.org');
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: issuer, aud: 'ianode-access-service', sub, token_use: 'user_created', 'cognito:groups': ['ianode_read'] });
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    const accepted = await notify(token);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ active: true, recorded: false });
    expect(access.directory.findBySubject(issuer, sub)).toMatchObject({ active: true, activatedBy: 'rule:ianode_read' });
    expect(accessLog.find((l) => l.event === 'auto-activate' && l.via === 'notification')).toBeDefined();

    expect((await notify(token)).status).toBe(401); // replay
    expect((await notify(await notification(sub, 'notified@example.org', 'someone-else'))).status).toBe(401);
    expect((await notify(await signIn('notified@example.org'))).status).toBe(401); // a user's own ID token is no notification
    const none = await fetch(`${accessUrl}/provisioning/user-created`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    const tampered = token.slice(0, token.lastIndexOf('.') + 1) + 'x'.repeat(20);
    expect((await notify(tampered)).status).toBe(401);
  });

  it('is verified with the user tokens\' key cache and fetch (one key-set fetch, through the injected fetch)', async () => {
    const seen: string[] = [];
    const second = await createAccessServer({
      dataDir: ':memory:',
      provisioning: readAccessConfigFile(path.join(REPO_ROOT, 'config/access-demo.yaml')).provisioning,
      openIdProviderUrl: issuer,
      jwksUrl: `${issuer}/.well-known/jwks.json`,
      clientIds: [DEMO_CLIENT],
      fetch: (input, init) => {
        seen.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
      logger: false,
    });
    try {
      const url = await second.listen({ port: 0 });
      const sub = await createUser('one.key.cache@example.org', ['ianode_read']);
      const token = await notification(sub, 'one.key.cache@example.org');
      const reply = await fetch(`${url}/provisioning/user-created`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(reply.status).toBe(200);
      expect(seen).toEqual([`${issuer}/.well-known/jwks.json`]);
      expect(second.verifier.jwksFetches).toBe(1);
      // A user token after it needs no second fetch.
      const whoami = await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${await signIn('one.key.cache@example.org')}` } });
      expect(whoami.status).toBe(200);
      expect(second.verifier.jwksFetches).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('an unreachable access service does not fail the creation: the IdP logs a warning', async () => {
    const closedPort = await freePort();
    const log: Record<string, unknown>[] = [];
    const lone = await createIdpServer({
      dataDir: path.join(dir, 'idp-lone'),
      seed: path.join(REPO_ROOT, 'packages/idp/seed/demo.yaml'),
      log: { level: 'info', stream: lines(log) },
      adminCredentials: { accessKeyId: 'AKIAPROVISIONINGLONE', secretAccessKey: 'provisioning-lone-secret' },
      userCreatedWebhook: { url: `http://127.0.0.1:${closedPort}/provisioning/user-created?secret=never-logged` },
    });
    try {
      const base = await lone.listen({ port: 0, host: '127.0.0.1' });
      const created = await cognito('AdminCreateUser', { UserPoolId: DEMO_POOL, Username: 'lonely@example.org', MessageAction: 'SUPPRESS' }, true, base, lone);
      expect(created.status).toBe(200);
      for (let i = 0; i < 200 && !log.some((l) => l.msg === 'user-creation notification not delivered; the access service records the user at its first /whoami or lookup' && l.sub !== undefined && JSON.stringify(created.body).includes(String(l.sub))); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const warning = log.find((l) => typeof l.msg === 'string' && l.msg.startsWith('user-creation notification not delivered') && JSON.stringify(created.body).includes(String(l.sub)));
      expect(warning).toMatchObject({ level: 40, webhook: `http://127.0.0.1:${closedPort}/provisioning/user-created` });
      expect(JSON.stringify(log)).not.toContain('never-logged');
    } finally {
      await lone.close();
    }
  });
});
