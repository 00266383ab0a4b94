/**
 * Issue 17 (items 5 and 8): callers the access service does not know are refused (403
 * UNKNOWN_USER) unless `security.unknownUsers: empty`; inactive entries are refused; tokens come
 * from the configured headers (`security.tokenHeaders`), each verified the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '@ianode/auth';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { tokenFromHeaders } from '../src/security.js';
import { accessStub, CLIENT, ISSUER, jwksServer, makeKey, sign, type Key } from './helpers.js';

const DATA = `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <http://example/>
:public :says "for everyone" .
:person9876 :empId 9876 .
GRAPH authz:labels {
  [ authz:pattern ':public :says "for everyone"' ; authz:label "*" ] .
  [ authz:pattern ':person9876 :empId 9876' ; authz:label "employee" ] .
}`;

const DIRECTORY = { 'known@test': ['employee', 'ianode_read'], 'bare@test': [] as string[] };

let key: Key;
let jwks: Awaited<ReturnType<typeof jwksServer>>;
let access: Awaited<ReturnType<typeof accessStub>>;
const servers: GraphServer[] = [];

/** A secure server whose read permission lets an attribute-less caller in (`*`). */
async function start(security: Record<string, unknown> = {}): Promise<string> {
  const server = await createGraphServer(
    {
      security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT], ...security },
      dataset: { permissions: { read: '*' } },
    },
    { logger: false, jwksCooldownMs: 0 },
  );
  servers.push(server);
  await server.store.load(DATA, { format: 'application/trig' });
  return server.listen({ port: 0 });
}

const QUERY = 'SELECT ?o WHERE { ?s ?p ?o }';

async function query(url: string, headers: Record<string, string>) {
  const response = await fetch(`${url}/ds/query?query=${encodeURIComponent(QUERY)}`, { headers });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as { code?: string; message?: string; results?: { bindings: Array<Record<string, { value: string }>> } } };
}

const values = (body: { results?: { bindings: Array<Record<string, { value: string }>> } }) => body.results!.bindings.map((b) => b.o!.value).sort();

beforeAll(async () => {
  key = await makeKey('k1');
  jwks = await jwksServer([key]);
  access = await accessStub(DIRECTORY, ['gone@test']);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await jwks.close();
  await access.close();
});

describe('callers unknown to the access service (issue 17, item 5)', () => {
  let url: string;
  beforeAll(async () => {
    url = await start();
  });

  it('a valid token of a user the access service does not know: 403 UNKNOWN_USER, no data, nothing about the directory', async () => {
    const token = await sign(key, { email: 'stranger@test', 'cognito:groups': ['ianode_read'] });
    const answer = await query(url, { authorization: `Bearer ${token}` });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('UNKNOWN_USER');
    expect(answer.body.message).toMatch(/not in the access service's directory/);
    expect(answer.text).not.toContain('for everyone');
    expect(answer.text).not.toContain('stranger');
    expect(answer.text).not.toContain(token);
  });

  it('a known user without attributes still gets what `*` shows; a known user with attributes gets more', async () => {
    const bare = await query(url, { authorization: `Bearer ${await sign(key, { email: 'bare@test' })}` });
    expect(bare.status).toBe(200);
    expect(values(bare.body)).toEqual(['for everyone']);
    const known = await query(url, { authorization: `Bearer ${await sign(key, { email: 'known@test' })}` });
    expect(values(known.body)).toEqual(['9876', 'for everyone']);
  });

  it('an inactive entry: 403 INACTIVE_USER, whatever unknownUsers says', async () => {
    const token = await sign(key, { email: 'gone@test', 'cognito:groups': ['ianode_read', 'employee'] });
    for (const target of [url, await start({ unknownUsers: 'empty' })]) {
      const answer = await query(target, { authorization: `Bearer ${token}` });
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('INACTIVE_USER');
      expect(answer.text).not.toContain('for everyone');
    }
  });

  it('unknownUsers: empty lets an unknown caller in with no attributes: the `*` data only', async () => {
    const open = await start({ unknownUsers: 'empty' });
    const answer = await query(open, { authorization: `Bearer ${await sign(key, { email: 'stranger@test', 'cognito:groups': ['employee'] })}` });
    expect(answer.status).toBe(200);
    expect(values(answer.body)).toEqual(['for everyone']);
  });

  it('the access service unreachable stays 503, not 403', async () => {
    const gone = await accessStub(DIRECTORY);
    const server = await createGraphServer(
      { security: { jwksUrl: `${jwks.url}/jwks.json`, openIdProviderUrl: ISSUER, userAttributesUrl: gone.url, clientIds: [CLIENT] }, dataset: { permissions: { read: '*' } } },
      { logger: false },
    );
    servers.push(server);
    const target = await server.listen({ port: 0 });
    await gone.close();
    const answer = await query(target, { authorization: `Bearer ${await sign(key, { email: 'stranger@test' })}` });
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('ATTRIBUTES_UNAVAILABLE');
  });

  it("JWKS_URL in the reference's aws:<region> form: refused at start without AWS_ALB_ARNS or with a bad region (test/aws-alb.test.ts has the rest)", async () => {
    await expect(start({ jwksUrl: 'aws:eu-west-2' })).rejects.toThrow(/JWKS_URL=aws:eu-west-2 needs the ARNs .*AWS_ALB_ARNS/);
    await expect(start({ jwksUrl: 'aws:eu-west-2/../x', albSigners: ['arn:x'] })).rejects.toThrow(/is not an AWS region name/);
  });

  it('unknownUsers must be deny or empty', async () => {
    await expect(start({ unknownUsers: 'allow' })).rejects.toThrow(/security\.unknownUsers must be deny or empty/);
  });
});

describe('configurable token headers (issue 17, item 8)', () => {
  it('default: only Authorization: Bearer; an ALB header alone is no token', async () => {
    const url = await start();
    const token = await sign(key, { email: 'known@test' });
    expect((await query(url, { authorization: `bEaReR ${token}` })).status).toBe(200);
    const alb = await query(url, { 'x-amzn-oidc-data': token });
    expect(alb.status).toBe(401);
    expect(alb.body.code).toBe('MISSING_TOKEN');
    expect(alb.body.message).toBe('a bearer token is required (Authorization: Bearer <ID token>)');
  });

  it('configured headers, in order: a header without prefix, one with a custom prefix; each token verified the same way', async () => {
    const url = await start({ tokenHeaders: [{ header: 'X-Amzn-Oidc-Data' }, { header: 'X-Auth-Token', prefix: 'Test' }] });
    const token = await sign(key, { email: 'known@test' });
    expect(values((await query(url, { 'x-amzn-oidc-data': token })).body)).toEqual(['9876', 'for everyone']);
    expect(values((await query(url, { 'x-auth-token': `test ${token}` })).body)).toEqual(['9876', 'for everyone']);
    // Authorization is not configured here: a bearer header is no token.
    const bearer = await query(url, { authorization: `Bearer ${token}` });
    expect(bearer.status).toBe(401);
    expect(bearer.body.message).toBe('a token is required (X-Amzn-Oidc-Data: <ID token> or X-Auth-Token: Test <ID token>)');
    // A forged token in a configured header is refused like any other.
    const other = await makeKey('k1');
    const forged = await query(url, { 'x-amzn-oidc-data': await sign(other, { email: 'known@test' }) });
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe('INVALID_TOKEN');
    // The first configured header present wins: a bad one there is not rescued by a later one.
    const first = await query(url, { 'x-amzn-oidc-data': 'not-a-jwt', 'x-auth-token': `Test ${token}` });
    expect(first.status).toBe(401);
  });

  it('bad tokenHeaders are refused at start, naming the entry', async () => {
    await expect(start({ tokenHeaders: [] })).rejects.toThrow(/security\.tokenHeaders must be a non-empty list/);
    await expect(start({ tokenHeaders: [{ header: 'X Bad' }] })).rejects.toThrow(/security\.tokenHeaders\[0\]\.header must be an HTTP header name/);
    await expect(start({ tokenHeaders: [{ header: 'A', prefix: 'two words' }] })).rejects.toThrow(/security\.tokenHeaders\[0\]\.prefix/);
    await expect(start({ tokenHeaders: [{ header: 'A' }, { header: 'a' }] })).rejects.toThrow(/tokenHeaders\[1\]\.header "a" is listed twice/);
    await expect(start({ tokenHeaders: [{ header: 'A', prefx: 'Bearer' }] })).rejects.toThrow(/unknown key "prefx"/);
  });

  it('tokenFromHeaders: prefixes ignore case, a matching header without a usable token is malformed, messages never hold the token', () => {
    const sources = [{ header: 'Authorization', prefix: 'Bearer' }, { header: 'X-Token', prefix: '' }];
    expect(tokenFromHeaders({ authorization: 'BEARER abc' }, sources)).toBe('abc');
    expect(tokenFromHeaders({ authorization: 'Basic dXNlcg==', 'x-token': ' xyz ' }, sources)).toBe('xyz');
    const refusal = (headers: Record<string, string | string[]>) => {
      try {
        tokenFromHeaders(headers, sources);
      } catch (error) {
        return error as AuthError;
      }
      throw new Error('accepted');
    };
    expect(refusal({}).code).toBe('MISSING_TOKEN');
    expect(refusal({ authorization: 'Basic secret-thing' }).code).toBe('MISSING_TOKEN');
    expect(refusal({ authorization: 'Bearer' }).code).toBe('INVALID_TOKEN');
    expect(refusal({ authorization: 'Bearer two parts' }).code).toBe('INVALID_TOKEN');
    expect(refusal({ 'x-token': ['a', 'b'] }).code).toBe('INVALID_TOKEN');
    expect(refusal({ 'x-token': 'x'.repeat(20_000) }).code).toBe('INVALID_TOKEN');
    expect(refusal({ authorization: 'Basic secret-thing' }).message).not.toContain('secret-thing');
  });
});
