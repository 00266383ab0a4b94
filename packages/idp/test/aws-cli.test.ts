/**
 * Real-client test: the AWS CLI (`aws cognito-idp`) against the IdP. In CI (`CI` set) a missing
 * `aws` fails the test (`.ci/run` installs Debian's awscli); elsewhere it is skipped with a reason.
 *
 * Every `aws` call is a Python start of about a second, most of it CPU: calls that do not depend on
 * each other's results run at the same time (`Promise.all`), so a second core shortens the file.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startIdp, verifyWithJwks, type TestIdp } from './support/harness.js';

const run = promisify(execFile);
const awsPath = spawnSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).stdout.trim();
const PASSWORD = 'Cli-pass-word1';

if (!awsPath && !process.env.CI) {
  console.warn('aws-cli.test.ts: skipped: the AWS CLI (`aws`) is not on PATH (apt-get install awscli); CI requires it');
}

describe.runIf(!awsPath && process.env.CI)('AWS CLI availability (CI)', () => {
  it('aws is on PATH', () => {
    throw new Error('the AWS CLI (`aws`) is not on PATH; .ci/run installs Debian awscli before the tests');
  });
});

describe.runIf(awsPath)('AWS CLI against the IdP', () => {
  let idp: TestIdp;
  let home: string;
  let endpoint: string;
  let version: Promise<void> | undefined;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'ianode-idp-aws-'));
    // Which CLI the tests drive, for the log; it runs alongside the tests and is awaited at the end.
    version = run('aws', ['--version'], { env: awsEnv({ id: 'none', secret: 'none' }) }).then((v) =>
      console.log(`aws-cli.test.ts: using ${awsPath}: ${(v.stdout || v.stderr).trim()}`),
    );
    version.catch(() => {}); // a failure is reported by afterAll's await, not as an unhandled rejection
  });
  afterAll(async () => {
    await version;
    if (home) await rm(home, { recursive: true, force: true });
  });
  // A fresh IdP per test: each test sees only the pools it made.
  beforeEach(async () => {
    idp = await startIdp({ log: false });
    const address = idp.server.app.server.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterEach(() => idp?.close());

  function awsEnv(creds?: { id: string; secret: string }): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: home ?? tmpdir(),
      AWS_ACCESS_KEY_ID: creds?.id ?? idp?.server.admin.accessKeyId,
      AWS_SECRET_ACCESS_KEY: creds?.secret ?? idp?.server.admin.secretAccessKey,
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_PAGER: '',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(home ?? tmpdir(), 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home ?? tmpdir(), 'no-credentials'),
    };
  }

  async function aws<T = Record<string, unknown>>(args: string[], creds?: { id: string; secret: string }): Promise<T> {
    const { stdout } = await run('aws', ['--endpoint-url', endpoint, '--output', 'json', 'cognito-idp', ...args], {
      env: awsEnv(creds),
      timeout: 60_000,
    });
    return (stdout.trim() ? JSON.parse(stdout) : {}) as T;
  }

  it(
    'drives pool, client, user, password, group and both sign-ins; the ID token verifies and carries the group',
    async () => {
      const { UserPool } = await aws<{ UserPool: { Id: string } }>(['create-user-pool', '--pool-name', 'cli-pool']);
      expect(UserPool.Id).toMatch(/^local_[A-Za-z0-9]{8}$/);
      const poolId = UserPool.Id;
      // The client, the user and the group need only the pool; the password and the membership only the user (and group).
      const [{ UserPoolClient }, created] = await Promise.all([
        aws<{ UserPoolClient: { ClientId: string } }>([
          'create-user-pool-client',
          '--user-pool-id',
          poolId,
          '--client-name',
          'cli-client',
          '--explicit-auth-flows',
          'ALLOW_USER_PASSWORD_AUTH',
          'ALLOW_ADMIN_USER_PASSWORD_AUTH',
          'ALLOW_REFRESH_TOKEN_AUTH',
        ]),
        aws<{ User: { UserStatus: string } }>([
          'admin-create-user',
          '--user-pool-id',
          poolId,
          '--username',
          'wendy',
          '--user-attributes',
          'Name=email,Value=wendy@example.org',
          'Name=email_verified,Value=true',
          '--message-action',
          'SUPPRESS',
        ]),
        aws(['create-group', '--user-pool-id', poolId, '--group-name', 'ianode_admin']),
      ]);
      const clientId = UserPoolClient.ClientId;
      expect(created.User.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
      await Promise.all([
        aws(['admin-set-user-password', '--user-pool-id', poolId, '--username', 'wendy', '--password', PASSWORD, '--permanent']),
        aws(['admin-add-user-to-group', '--user-pool-id', poolId, '--username', 'wendy', '--group-name', 'ianode_admin']),
      ]);

      // Reads and both sign-ins, once the password and the membership are in.
      const [user, listed, auth, adminAuth] = await Promise.all([
        aws<{ UserStatus: string }>(['admin-get-user', '--user-pool-id', poolId, '--username', 'wendy']),
        aws<{ Users: { Username: string }[] }>(['list-users', '--user-pool-id', poolId, '--filter', 'email = "wendy@example.org"']),
        aws<{ AuthenticationResult: { IdToken: string; AccessToken: string; RefreshToken: string; TokenType: string } }>([
          'initiate-auth',
          '--client-id',
          clientId,
          '--auth-flow',
          'USER_PASSWORD_AUTH',
          '--auth-parameters',
          `USERNAME=wendy,PASSWORD=${PASSWORD}`,
        ]),
        aws<{ AuthenticationResult: { IdToken: string } }>([
          'admin-initiate-auth',
          '--user-pool-id',
          poolId,
          '--client-id',
          clientId,
          '--auth-flow',
          'ADMIN_USER_PASSWORD_AUTH',
          '--auth-parameters',
          `USERNAME=wendy,PASSWORD=${PASSWORD}`,
        ]),
      ]);
      expect(user.UserStatus).toBe('CONFIRMED');
      expect(listed.Users.map((u) => u.Username)).toEqual(['wendy']);
      expect(auth.AuthenticationResult.TokenType).toBe('Bearer');
      const id = await verifyWithJwks(idp, poolId, auth.AuthenticationResult.IdToken, { audience: clientId });
      expect(id).toMatchObject({ 'cognito:username': 'wendy', email: 'wendy@example.org', email_verified: true, 'cognito:groups': ['ianode_admin'] });
      const adminId = await verifyWithJwks(idp, poolId, adminAuth.AuthenticationResult.IdToken, { audience: clientId });
      expect(adminId['cognito:groups']).toEqual(['ianode_admin']);

      const me = await aws<{ Username: string }>(['get-user', '--access-token', auth.AuthenticationResult.AccessToken]);
      expect(me.Username).toBe('wendy');
    },
    240_000,
  );

  it(
    'the same admin call with wrong credentials is refused',
    async () => {
      const { UserPool } = await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'the-only-pool' });
      // Four independent calls, at the same time.
      const [wrongSecret, unknownKey, wrongPassword, pools] = await Promise.allSettled([
        aws(['list-user-pools', '--max-results', '10'], { id: idp.server.admin.accessKeyId, secret: 'wrong-secret' }),
        aws(['list-user-pools', '--max-results', '10'], { id: 'AKIAUNKNOWNUNKNOWN00', secret: 'x' }),
        aws(['initiate-auth', '--client-id', 'x', '--auth-flow', 'USER_PASSWORD_AUTH', '--auth-parameters', 'USERNAME=a,PASSWORD=b']),
        // The right key still works.
        aws<{ UserPools: { Id: string; Name: string }[] }>(['list-user-pools', '--max-results', '10']),
      ]);
      expect(wrongSecret).toMatchObject({ status: 'rejected', reason: { stderr: expect.stringContaining('InvalidSignatureException') } });
      expect(unknownKey).toMatchObject({ status: 'rejected', reason: { stderr: expect.stringContaining('UnrecognizedClientException') } });
      expect(wrongPassword).toMatchObject({ status: 'rejected', reason: { stderr: expect.stringContaining('ResourceNotFoundException') } });
      expect(pools.status).toBe('fulfilled');
      const { UserPools } = (pools as PromiseFulfilledResult<{ UserPools: { Id: string; Name: string }[] }>).value;
      expect(UserPools).toHaveLength(1);
      expect(UserPools[0]).toMatchObject({ Id: UserPool.Id, Name: 'the-only-pool' });
    },
    120_000,
  );
});
