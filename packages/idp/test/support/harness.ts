/**
 * Test harness: an IdP in-process on 127.0.0.1 port 0 over a temporary data folder (removed on
 * close), with a controllable clock and captured logs; helpers to call the Cognito API signed or not.
 *
 * Starting one is cheap, so every test can have its own: signing keys come from a per-process
 * cache (`testSigningKeys`), passwords are hashed at a low scrypt cost (`FAST_SCRYPT`), and the
 * data folder is on a memory file system when there is one (`scratchDir`: the database is the
 * same SQLite file with the same settings, its fsyncs just cost nothing).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { createIdpServer, generateSigningKey, signRequestV4, type IdpConfig, type IdpServer, type NewKey } from '../../src/index.js';
import { manualClock, scratchDir, type ManualClock } from '@ianode/testkit';

export const TARGET = 'AWSCognitoIdentityProviderService';
export const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

/**
 * RSA-2048 keys generated once per test process (a generation takes 0.1 to 1 s of CPU). The first
 * is started as the harness loads: Node generates key pairs on its thread pool, so it is made
 * while the test file is still being loaded, and nearly every test file needs it.
 */
const generatedKeys: Promise<NewKey>[] = [generateSigningKey()];
/**
 * The `newSigningKey` of one test IdP: the process's cached keys in order, so the pools and
 * rotations of one IdP never share a key (each gets the next), while IdPs of the same process
 * reuse them. `security.test.ts` checks that an IdP left to its default generates fresh keys.
 */
export function testSigningKeys(): () => Promise<NewKey> {
  let next = 0;
  return () => (generatedKeys[next++] ??= generateSigningKey());
}

export const PASSWORD = 'Correct-horse-1';

/** The IdP's clock in tests: @ianode/testkit's manual clock, starting now unless told. */
export type Clock = ManualClock;
export const createClock = (start = Date.now()): Clock => manualClock(start);

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestIdp {
  server: IdpServer;
  /** The public base URL (issuer prefix): `http://localhost:<port>`. */
  url: string;
  /** Where to connect: `http://127.0.0.1:<port>`. */
  base: string;
  dir: string;
  clock: Clock;
  logs: string[];
  /** Calls an operation; admin operations are signed with the admin key unless `sign: false` or other credentials. */
  call<T = Record<string, unknown>>(
    op: string,
    body: unknown,
    opts?: { sign?: false | { accessKeyId: string; secretAccessKey: string }; target?: string; signAt?: number },
  ): Promise<ApiResponse<T>>;
  /** Like `call` but throws unless the status is 200. */
  ok<T = Record<string, unknown>>(op: string, body: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function startIdp(config: Partial<IdpConfig> & { keepDir?: string } = {}): Promise<TestIdp> {
  const dir = config.keepDir ?? (await mkdtemp(join(scratchDir(), 'ianode-idp-')));
  const clock = createClock();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString('utf8'));
      cb();
    },
  });
  let server: IdpServer;
  try {
    server = await createIdpServer({
      dataDir: dir,
      now: clock.now,
      scryptCost: FAST_SCRYPT,
      newSigningKey: testSigningKeys(),
      log: { level: 'debug', stream },
      ...config,
    });
  } catch (err) {
    if (!config.keepDir) await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;

  const call: TestIdp['call'] = async (op, body, opts = {}) => {
    const payload = JSON.stringify(body);
    const headers: Record<string, string> = {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': opts.target ?? (op.includes('.') ? op : `${TARGET}.${op}`),
      host: `127.0.0.1:${port}`,
    };
    const creds = opts.sign === false ? undefined : (opts.sign ?? server.admin);
    const signed = creds
      ? signRequestV4(
          { method: 'POST', url: '/', headers, body: payload },
          { ...creds, region: 'us-east-1', service: 'cognito-idp', now: opts.signAt ?? clock.now() },
        )
      : headers;
    const res = await fetch(`${base}/`, { method: 'POST', headers: signed, body: payload });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers } as never;
  };

  return {
    server,
    url,
    base,
    dir,
    clock,
    logs,
    call,
    async ok(op, body) {
      const res = await call(op, body);
      if (res.status !== 200) throw new Error(`${op} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as never;
    },
    async close() {
      await server.close();
      if (!config.keepDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface PoolFixture {
  poolId: string;
  clientId: string;
}

/**
 * A pool (`pool`: the CreateUserPool request, default `test-pool` with custom attribute clearance)
 * with a public client allowing the password and refresh flows (`client`: settings added to that).
 */
export async function createPoolAndClient(
  idp: TestIdp,
  client: Record<string, unknown> = {},
  pool: Record<string, unknown> = { PoolName: 'test-pool', Schema: [{ Name: 'clearance', AttributeDataType: 'String', Mutable: true }] },
): Promise<PoolFixture> {
  const { UserPool } = await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', pool);
  const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
    UserPoolId: UserPool.Id,
    ClientName: 'test-client',
    ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    ...client,
  });
  return { poolId: UserPool.Id, clientId: UserPoolClient.ClientId };
}

/** A CONFIRMED user with `PASSWORD`, optional attributes and groups. */
export async function createUser(
  idp: TestIdp,
  poolId: string,
  username: string,
  opts: { attributes?: Record<string, string>; groups?: string[]; password?: string } = {},
): Promise<void> {
  await idp.ok('AdminCreateUser', {
    UserPoolId: poolId,
    Username: username,
    MessageAction: 'SUPPRESS',
    UserAttributes: Object.entries(opts.attributes ?? {}).map(([Name, Value]) => ({ Name, Value })),
  });
  await idp.ok('AdminSetUserPassword', { UserPoolId: poolId, Username: username, Password: opts.password ?? PASSWORD, Permanent: true });
  for (const g of opts.groups ?? []) {
    const exists = await idp.call('GetGroup', { UserPoolId: poolId, GroupName: g });
    if (exists.status !== 200) await idp.ok('CreateGroup', { UserPoolId: poolId, GroupName: g });
    await idp.ok('AdminAddUserToGroup', { UserPoolId: poolId, Username: username, GroupName: g });
  }
}

export interface AuthResult {
  IdToken: string;
  AccessToken: string;
  RefreshToken?: string;
  ExpiresIn: number;
  TokenType: string;
}

export async function signIn(idp: TestIdp, clientId: string, username: string, password = PASSWORD): Promise<ApiResponse<{ AuthenticationResult?: AuthResult; __type?: string; message?: string; ChallengeName?: string; Session?: string }>> {
  return idp.call('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: clientId, AuthParameters: { USERNAME: username, PASSWORD: password } });
}

/** Verifies a token against the served JWKS, as a relying party would. */
export async function verifyWithJwks(idp: TestIdp, poolId: string, token: string, opts: { audience?: string } = {}): Promise<JWTPayload> {
  const jwks = (await (await fetch(`${idp.base}/${poolId}/.well-known/jwks.json`)).json()) as { keys: [] };
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
    issuer: `${idp.url}/${poolId}`,
    algorithms: ['RS256'],
    currentDate: new Date(idp.clock.now()),
    ...(opts.audience ? { audience: opts.audience } : {}),
  });
  return payload;
}

export interface IdpWithPool extends PoolFixture {
  idp: TestIdp;
}

/**
 * A fresh IdP with a pool and client, plus whatever `setup` adds (users, groups). Test files call it
 * in `beforeEach` so that every test starts from the same state and reads nothing another test
 * wrote: each passes alone and in any order (issue 20).
 */
export async function startIdpWithPool(
  setup: (fixture: IdpWithPool) => Promise<void> = async () => {},
  opts: { client?: Record<string, unknown>; pool?: Record<string, unknown>; config?: Partial<IdpConfig> } = {},
): Promise<IdpWithPool> {
  const idp = await startIdp(opts.config);
  try {
    const fixture = { idp, ...(await createPoolAndClient(idp, opts.client, opts.pool)) };
    await setup(fixture);
    return fixture;
  } catch (err) {
    await idp.close();
    throw err;
  }
}
