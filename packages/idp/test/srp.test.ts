/**
 * USER_SRP_AUTH with real clients: amazon-cognito-identity-js (`authenticateUser`, unchanged, with
 * the `endpoint` option), the AWS SDK v3 with that library's AuthenticationHelper computing the
 * client side (also with a client secret), and Amplify v6 `signIn` (its default flow is SRP).
 * Tokens are verified against the IdP's JWKS. Each test file gets its own IdP on port 0.
 */
import { createHmac } from 'node:crypto';
import {
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
  InvalidParameterException,
  NotAuthorizedException,
  RespondToAuthChallengeCommand,
  type InitiateAuthCommandOutput,
} from '@aws-sdk/client-cognito-identity-provider';
import AmazonCognitoIdentity from 'amazon-cognito-identity-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatTimestamp, parseTimestamp } from '../src/crypto/srp.js';
import { createUser, PASSWORD, startIdpWithPool, verifyWithJwks, type TestIdp } from './support/harness.js';

const { AuthenticationDetails, CognitoUser, CognitoUserPool } = AmazonCognitoIdentity;

/** The library's SRP helper: exported at run time, absent from its type declarations. */
type Callback<T> = (err: unknown, value: T) => void;
interface BigNumber {
  toString(radix: number): string;
}
interface SrpHelper {
  getLargeAValue(cb: Callback<BigNumber>): void;
  getPasswordAuthenticationKey(userId: string, password: string, B: BigNumber, salt: BigNumber, cb: Callback<Buffer>): void;
}
const { AuthenticationHelper } = AmazonCognitoIdentity as unknown as { AuthenticationHelper: new (poolName: string) => SrpHelper };

let sdk: CognitoIdentityProviderClient;

const SRP_FLOWS = ['ALLOW_USER_SRP_AUTH', 'ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'];

// Every test gets a fresh IdP (and clock) with user sam: failed proofs (which count towards sam's
// lock-out), clock advances and users made by one test never reach another.
let idp: TestIdp, poolId: string, clientId: string;
beforeEach(async () => {
  ({ idp, poolId, clientId } = await startIdpWithPool(
    (f) => createUser(f.idp, f.poolId, 'sam', { attributes: { email: 'sam@example.org', email_verified: 'true' }, groups: ['ianode_read'] }),
    { client: { ExplicitAuthFlows: SRP_FLOWS } },
  ));
  sdk = new CognitoIdentityProviderClient({
    endpoint: idp.base,
    region: 'us-east-1',
    credentials: { accessKeyId: idp.server.admin.accessKeyId, secretAccessKey: idp.server.admin.secretAccessKey },
  });
});
afterEach(async () => {
  sdk?.destroy();
  await idp?.close();
});

interface Tokens {
  idToken: string;
  accessToken: string;
  refreshToken: string;
}

/** amazon-cognito-identity-js, as an app uses it. */
function signInWithCognitoJs(username: string, password: string, pool = poolId, client = clientId): Promise<Tokens | { newPasswordRequired: true }> {
  const userPool = new CognitoUserPool({ UserPoolId: pool, ClientId: client, endpoint: `${idp.base}/` });
  const user = new CognitoUser({ Username: username, Pool: userPool });
  return new Promise((resolve, reject) => {
    user.authenticateUser(new AuthenticationDetails({ Username: username, Password: password }), {
      onSuccess: (session) =>
        resolve({
          idToken: session.getIdToken().getJwtToken(),
          accessToken: session.getAccessToken().getJwtToken(),
          refreshToken: session.getRefreshToken().getToken(),
        }),
      onFailure: (err: unknown) => reject(err as Error),
      newPasswordRequired: () => resolve({ newPasswordRequired: true }),
    });
  });
}

describe('amazon-cognito-identity-js authenticateUser (USER_SRP_AUTH)', () => {
  it('signs in unchanged; the tokens verify against the JWKS', async () => {
    const tokens = (await signInWithCognitoJs('sam', PASSWORD)) as Tokens;
    const id = await verifyWithJwks(idp, poolId, tokens.idToken, { audience: clientId });
    expect(id).toMatchObject({ 'cognito:username': 'sam', email: 'sam@example.org', token_use: 'id', 'cognito:groups': ['ianode_read'] });
    const access = await verifyWithJwks(idp, poolId, tokens.accessToken);
    expect(access).toMatchObject({ token_use: 'access', client_id: clientId, username: 'sam' });
    expect(tokens.refreshToken.length).toBeGreaterThan(20);
  });

  it('a wrong password is NotAuthorizedException', async () => {
    await expect(signInWithCognitoJs('sam', 'Wrong-password-1')).rejects.toMatchObject({
      code: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
  });

  it('an unknown user gets the same NotAuthorizedException, after a challenge like a real one', async () => {
    await expect(signInWithCognitoJs('nobody', PASSWORD)).rejects.toMatchObject({
      code: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
  });

  it('a user with a temporary password gets NEW_PASSWORD_REQUIRED after SRP', async () => {
    await idp.ok('AdminCreateUser', { UserPoolId: poolId, Username: 'tina', TemporaryPassword: 'Temp-pass-1', MessageAction: 'SUPPRESS' });
    expect(await signInWithCognitoJs('tina', 'Temp-pass-1')).toEqual({ newPasswordRequired: true });
  });
});

/** The client side of SRP through amazon-cognito-identity-js's AuthenticationHelper, over the AWS SDK. */
async function srpSignIn(
  username: string,
  password: string,
  opts: { secret?: string; client?: string; timestamp?: (now: string) => string; admin?: boolean } = {},
): Promise<{ initiate: InitiateAuthCommandOutput; responses: Record<string, string> }> {
  const client = opts.client ?? clientId;
  const helper = new AuthenticationHelper(poolId.split('_')[1]!);
  const A: BigNumber = await new Promise((resolve, reject) => helper.getLargeAValue((err, a) => (err ? reject(err as Error) : resolve(a))));
  const secretHash = (name: string) => (opts.secret ? createHmac('sha256', opts.secret).update(name + client).digest('base64') : undefined);
  const authParameters = { USERNAME: username, SRP_A: A.toString(16), ...(opts.secret ? { SECRET_HASH: secretHash(username)! } : {}) };
  const initiate = opts.admin
    ? await sdk.send(new AdminInitiateAuthCommand({ UserPoolId: poolId, ClientId: client, AuthFlow: 'USER_SRP_AUTH', AuthParameters: authParameters }))
    : await sdk.send(new InitiateAuthCommand({ ClientId: client, AuthFlow: 'USER_SRP_AUTH', AuthParameters: authParameters }));
  expect(initiate.ChallengeName).toBe('PASSWORD_VERIFIER');
  const p = initiate.ChallengeParameters!;
  const userId = p.USER_ID_FOR_SRP!;
  const BigInteger = Object.getPrototypeOf(A).constructor as new (hex: string, radix: number) => BigNumber;
  const key: Buffer = await new Promise((resolve, reject) =>
    helper.getPasswordAuthenticationKey(userId, password, new BigInteger(p.SRP_B!, 16), new BigInteger(p.SALT!, 16), (err, k) =>
      err ? reject(err as Error) : resolve(k),
    ),
  );
  const now = formatTimestamp(idp.clock.now()); // the client's clock agrees with the IdP's
  const timestamp = opts.timestamp ? opts.timestamp(now) : now;
  const message = Buffer.concat([
    Buffer.from(poolId.split('_')[1]!, 'utf8'),
    Buffer.from(userId, 'utf8'),
    Buffer.from(p.SECRET_BLOCK!, 'base64'),
    Buffer.from(timestamp, 'utf8'),
  ]);
  const responses: Record<string, string> = {
    USERNAME: userId,
    PASSWORD_CLAIM_SECRET_BLOCK: p.SECRET_BLOCK!,
    PASSWORD_CLAIM_SIGNATURE: createHmac('sha256', key).update(message).digest('base64'),
    TIMESTAMP: timestamp,
    ...(opts.secret ? { SECRET_HASH: secretHash(userId)! } : {}),
  };
  return { initiate, responses };
}

describe('AWS SDK v3 InitiateAuth / RespondToAuthChallenge with USER_SRP_AUTH', () => {
  it('answers PASSWORD_VERIFIER with SRP_B, SALT, SECRET_BLOCK, USER_ID_FOR_SRP, then tokens', async () => {
    const { initiate, responses } = await srpSignIn('SAM', PASSWORD); // case-insensitive pool: USER_ID_FOR_SRP is the stored name
    expect(initiate.ChallengeParameters).toMatchObject({ USER_ID_FOR_SRP: 'sam', USERNAME: 'sam' });
    expect(initiate.ChallengeParameters!.SALT).toMatch(/^[0-9a-f]+$/);
    expect(initiate.ChallengeParameters!.SRP_B).toMatch(/^[0-9a-f]{700,}$/);
    const out = await sdk.send(new RespondToAuthChallengeCommand({ ClientId: clientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: responses }));
    await verifyWithJwks(idp, poolId, out.AuthenticationResult!.IdToken!, { audience: clientId });

    // The same secret block twice: refused.
    const again = sdk.send(new RespondToAuthChallengeCommand({ ClientId: clientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: responses }));
    await expect(again).rejects.toBeInstanceOf(NotAuthorizedException);
  });

  it('AdminInitiateAuth / AdminRespondToAuthChallenge speak it too', async () => {
    const { responses } = await srpSignIn('sam', PASSWORD, { admin: true });
    const out = await sdk.send(
      new AdminRespondToAuthChallengeCommand({ UserPoolId: poolId, ClientId: clientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: responses }),
    );
    expect(out.AuthenticationResult?.AccessToken).toBeDefined();
  });

  it('a wrong password, a tampered block, a bad TIMESTAMP or an expired block are refused', async () => {
    const wrong = await srpSignIn('sam', 'Not-the-password-1');
    await expect(
      sdk.send(new RespondToAuthChallengeCommand({ ClientId: clientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: wrong.responses })),
    ).rejects.toThrow(NotAuthorizedException);

    const tampered = await srpSignIn('sam', PASSWORD);
    const block = Buffer.from(tampered.responses.PASSWORD_CLAIM_SECRET_BLOCK!, 'base64');
    block[40] = block[40]! ^ 1;
    await expect(
      sdk.send(
        new RespondToAuthChallengeCommand({
          ClientId: clientId,
          ChallengeName: 'PASSWORD_VERIFIER',
          ChallengeResponses: { ...tampered.responses, PASSWORD_CLAIM_SECRET_BLOCK: block.toString('base64') },
        }),
      ),
    ).rejects.toThrow(NotAuthorizedException);

    const badTime = await srpSignIn('sam', PASSWORD, { timestamp: () => '2026-11-26T04:00:00Z' });
    await expect(
      sdk.send(new RespondToAuthChallengeCommand({ ClientId: clientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: badTime.responses })),
    ).rejects.toThrow(InvalidParameterException);

    const late = await srpSignIn('sam', PASSWORD);
    idp.clock.advance(3 * 60_000 + 1); // the client's AuthSessionValidity (3 minutes)
    await expect(
      sdk.send(new RespondToAuthChallengeCommand({ ClientId: clientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: late.responses })),
    ).rejects.toThrow(/expired/);
  });

  it('with a client secret, SECRET_HASH is required on both calls', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string; ClientSecret: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'confidential',
      GenerateSecret: true,
      ExplicitAuthFlows: SRP_FLOWS,
    });
    const { responses } = await srpSignIn('sam', PASSWORD, { client: UserPoolClient.ClientId, secret: UserPoolClient.ClientSecret });
    const out = await sdk.send(
      new RespondToAuthChallengeCommand({ ClientId: UserPoolClient.ClientId, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: responses }),
    );
    expect(out.AuthenticationResult?.IdToken).toBeDefined();
    await expect(srpSignIn('sam', PASSWORD, { client: UserPoolClient.ClientId })).rejects.toThrow(NotAuthorizedException);
  });

  it('a client without ALLOW_USER_SRP_AUTH refuses the flow', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'password-only',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
    });
    await expect(srpSignIn('sam', PASSWORD, { client: UserPoolClient.ClientId })).rejects.toThrow(InvalidParameterException);
  });
});

describe('SRP in a pool that signs in with e-mail, and the throttle', () => {
  it('USER_ID_FOR_SRP is the stored user name (the sub), and an unknown address gets one of the same shape', async () => {
    const { UserPool } = await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'by-email', UsernameAttributes: ['email'] });
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
      UserPoolId: UserPool.Id,
      ClientName: 'web',
    }); // the default flows include ALLOW_USER_SRP_AUTH
    await idp.ok('AdminCreateUser', { UserPoolId: UserPool.Id, Username: 'uma@example.org', MessageAction: 'SUPPRESS' });
    await idp.ok('AdminSetUserPassword', { UserPoolId: UserPool.Id, Username: 'uma@example.org', Password: PASSWORD, Permanent: true });
    const tokens = (await signInWithCognitoJs('uma@example.org', PASSWORD, UserPool.Id, UserPoolClient.ClientId)) as Tokens;
    const id = await verifyWithJwks(idp, UserPool.Id, tokens.idToken, { audience: UserPoolClient.ClientId });
    expect(id['cognito:username']).toBe(id.sub);

    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const name of ['uma@example.org', 'nobody@example.org']) {
      const res = await idp.call<{ ChallengeParameters: Record<string, string> }>('InitiateAuth', {
        AuthFlow: 'USER_SRP_AUTH',
        ClientId: UserPoolClient.ClientId,
        AuthParameters: { USERNAME: name, SRP_A: 'abcdef0123' },
      });
      expect(res.status).toBe(200);
      expect(res.body.ChallengeParameters.USER_ID_FOR_SRP).toMatch(uuid);
    }
  });

  it('failed SRP proofs count towards the lock-out like wrong passwords', async () => {
    await createUser(idp, poolId, 'lena', { password: 'Lena-pass-123!' });
    for (let i = 0; i < 5; i++) await expect(signInWithCognitoJs('lena', 'Wrong-pass-123!')).rejects.toMatchObject({ code: 'NotAuthorizedException' });
    await expect(signInWithCognitoJs('lena', 'Lena-pass-123!')).rejects.toMatchObject({
      code: 'NotAuthorizedException',
      message: 'Password attempts exceeded',
    });
  });

  it('an SRP_A that is 0 mod N is refused', async () => {
    const res = await idp.call('InitiateAuth', { AuthFlow: 'USER_SRP_AUTH', ClientId: clientId, AuthParameters: { USERNAME: 'sam', SRP_A: '0' } });
    expect(res.status).toBe(400);
    expect(res.body.__type).toBe('InvalidParameterException');
  });
});

describe('users from before SRP verifiers', () => {
  it('fail USER_SRP_AUTH with NotAuthorizedException until a password sign-in stores a verifier', async () => {
    await createUser(idp, poolId, 'olga', { password: 'Olga-pass-123!' });
    idp.server.context.db.run("UPDATE users SET srp_salt = NULL, srp_verifier = NULL WHERE username = 'olga'");
    await expect(signInWithCognitoJs('olga', 'Olga-pass-123!')).rejects.toMatchObject({ code: 'NotAuthorizedException' });
    const res = await idp.call('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: clientId, AuthParameters: { USERNAME: 'olga', PASSWORD: 'Olga-pass-123!' } });
    expect(res.status).toBe(200);
    const tokens = (await signInWithCognitoJs('olga', 'Olga-pass-123!')) as Tokens;
    await verifyWithJwks(idp, poolId, tokens.idToken, { audience: clientId });
  });

  it('the verifier follows AdminSetUserPassword and ChangePassword', async () => {
    await createUser(idp, poolId, 'olga', { password: 'Olga-pass-123!' });
    await idp.ok('AdminSetUserPassword', { UserPoolId: poolId, Username: 'olga', Password: 'Olga-second-1!', Permanent: true });
    await expect(signInWithCognitoJs('olga', 'Olga-pass-123!')).rejects.toMatchObject({ code: 'NotAuthorizedException' });
    const tokens = (await signInWithCognitoJs('olga', 'Olga-second-1!')) as Tokens;
    await idp.ok('ChangePassword', { AccessToken: tokens.accessToken, PreviousPassword: 'Olga-second-1!', ProposedPassword: 'Olga-third-12!' });
    await expect(signInWithCognitoJs('olga', 'Olga-second-1!')).rejects.toMatchObject({ code: 'NotAuthorizedException' });
    expect(await signInWithCognitoJs('olga', 'Olga-third-12!')).toHaveProperty('idToken');
  });
});

describe('TIMESTAMP', () => {
  it("formats and parses Cognito's form, day unpadded", () => {
    const t = Date.UTC(2026, 10, 3, 4, 5, 6);
    expect(formatTimestamp(t)).toBe('Tue Nov 3 04:05:06 UTC 2026');
    expect(parseTimestamp('Tue Nov 3 04:05:06 UTC 2026')).toBe(t);
    expect(parseTimestamp('Wed Nov 3 04:05:06 UTC 2026')).toBeUndefined();
    expect(parseTimestamp('Tue Nov 31 04:05:06 UTC 2026')).toBeUndefined();
  });
});
