/**
 * Self-service operations with the real AWS SDK v3 client against the running IdP (port 0):
 * SignUp → ConfirmSignUp → InitiateAuth (password and SRP), ResendConfirmationCode,
 * ForgotPassword/ConfirmForgotPassword, AdminResetUserPassword, AdminConfirmSignUp,
 * UpdateUserPool and UpdateUserPoolClient, each with the SDK's own exception classes. Codes are read
 * from the outbox (`IanodeIdp.ListMessages`); the clock is the harness's injected one.
 */
import { createHmac } from 'node:crypto';
import {
  AdminConfirmSignUpCommand,
  AdminGetUserCommand,
  AdminResetUserPasswordCommand,
  CodeMismatchException,
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
  ExpiredCodeException,
  ForgotPasswordCommand,
  InitiateAuthCommand,
  InvalidParameterException,
  InvalidPasswordException,
  LimitExceededException,
  NotAuthorizedException,
  PasswordResetRequiredException,
  ResendConfirmationCodeCommand,
  ResourceNotFoundException,
  SignUpCommand,
  UpdateUserPoolClientCommand,
  UpdateUserPoolCommand,
  UserNotConfirmedException,
  UserNotFoundException,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';
import AmazonCognitoIdentity from 'amazon-cognito-identity-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserCreatedEvent } from '../src/config.js';
import { createUser, PASSWORD, startIdp, startIdpWithPool, verifyWithJwks, type TestIdp } from './support/harness.js';

let idp: TestIdp;
let sdk: CognitoIdentityProviderClient;
let poolId: string;
let clientId: string;
/** The users the test's IdP announced (`onUserCreated`). */
let created: UserCreatedEvent[] = [];

interface Message {
  Username: string;
  UserSub: string;
  Purpose: string;
  Destination: string;
  Code: string;
}

async function messages(username?: string): Promise<Message[]> {
  const res = await idp.call<{ Messages: Message[] }>('IanodeIdp.ListMessages', { UserPoolId: poolId, ...(username ? { Username: username } : {}) });
  expect(res.status).toBe(200);
  return res.body.Messages;
}
async function codeFor(username: string, purpose = 'SIGN_UP'): Promise<string> {
  const m = (await messages(username)).find((x) => x.Purpose === purpose);
  if (!m) throw new Error(`no ${purpose} code for ${username}`);
  return m.Code;
}
/**
 * Runs `fn` with the IdP's clock moved ahead, then moves it back: the AWS SDK signs admin calls and
 * SRP clients stamp TIMESTAMP with the machine's time, which the IdP holds to its own clock.
 */
async function later(ms: number, fn: () => Promise<void>): Promise<void> {
  idp.clock.advance(ms);
  try {
    await fn();
  } finally {
    idp.clock.advance(-ms);
  }
}
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

const passwordSignIn = (username: string, password: string) =>
  sdk.send(new InitiateAuthCommand({ ClientId: clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: username, PASSWORD: password } }));

function srpSignIn(username: string, password: string): Promise<string> {
  const { AuthenticationDetails, CognitoUser, CognitoUserPool } = AmazonCognitoIdentity;
  const user = new CognitoUser({ Username: username, Pool: new CognitoUserPool({ UserPoolId: poolId, ClientId: clientId, endpoint: `${idp.base}/` }) });
  return new Promise((resolve, reject) =>
    user.authenticateUser(new AuthenticationDetails({ Username: username, Password: password }), {
      onSuccess: (s) => resolve(s.getIdToken().getJwtToken()),
      onFailure: (e: unknown) => reject(e as Error),
    }),
  );
}

/** What UpdateUserPool sets in its test; the shared pool is created so. */
const OPEN_POOL = {
  AutoVerifiedAttributes: ['email' as const],
  AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
  Policies: { PasswordPolicy: { MinimumLength: 10, RequireUppercase: true, RequireLowercase: true, RequireNumbers: true, RequireSymbols: false } },
};

/** A pool of the test's own (admin-only, the default) with a password-auth client named `app`. */
async function ownPool(): Promise<{ poolId: string; clientId: string }> {
  const { UserPool } = await idp.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'admin-only' });
  const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', {
    UserPoolId: UserPool.Id,
    ClientName: 'app',
    ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
  });
  return { poolId: UserPool.Id, clientId: UserPoolClient.ClientId };
}

// A fresh IdP for every test, with a self-service pool open to SignUp from the start: the users,
// codes, outbox messages and announcements of one test never reach another (the UpdateUserPool
// tests open and change pools of their own), so every test passes alone and in any order. (A fresh
// IdP rather than a fresh pool in one IdP: the harness's signing keys are cached per IdP start.)
beforeEach(async () => {
  created = [];
  const events = created;
  ({ idp, poolId, clientId } = await startIdpWithPool(async () => {}, {
    config: { onUserCreated: (e) => void events.push(e) },
    pool: { PoolName: 'self-service', ...OPEN_POOL },
    client: { ClientName: 'app', ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'] },
  }));
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

describe('UpdateUserPool and UpdateUserPoolClient', () => {
  it('a pool that allows only admins to create users refuses SignUp; UpdateUserPool opens it', async () => {
    const { poolId, clientId } = await ownPool();
    const signUp = () =>
      sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'early', Password: PASSWORD, UserAttributes: [{ Name: 'email', Value: 'early@example.org' }] }));
    await expect(signUp()).rejects.toThrow(NotAuthorizedException);

    await sdk.send(new UpdateUserPoolCommand({ UserPoolId: poolId, ...OPEN_POOL }));
    const { UserPool } = await sdk.send(new DescribeUserPoolCommand({ UserPoolId: poolId }));
    expect(UserPool).toMatchObject({
      AutoVerifiedAttributes: ['email' as const],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      Policies: { PasswordPolicy: { MinimumLength: 10, RequireSymbols: false } },
    });
    await expect(sdk.send(new UpdateUserPoolCommand({ UserPoolId: 'local_missing1' }))).rejects.toThrow(ResourceNotFoundException);
  });

  it('UpdateUserPoolClient replaces the settings (SRP turned on here), keeps the id', async () => {
    const { poolId, clientId } = await ownPool();
    const { UserPoolClient } = await sdk.send(
      new UpdateUserPoolClientCommand({
        UserPoolId: poolId,
        ClientId: clientId,
        ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        IdTokenValidity: 30,
        TokenValidityUnits: { IdToken: 'minutes' },
      }),
    );
    expect(UserPoolClient).toMatchObject({ ClientId: clientId, ClientName: 'app', IdTokenValidity: 30 });
    const described = await sdk.send(new DescribeUserPoolClientCommand({ UserPoolId: poolId, ClientId: clientId }));
    expect(described.UserPoolClient?.ExplicitAuthFlows).toContain('ALLOW_USER_SRP_AUTH');
    await expect(sdk.send(new UpdateUserPoolClientCommand({ UserPoolId: poolId, ClientId: 'nosuchclient' }))).rejects.toThrow(ResourceNotFoundException);
    await expect(
      sdk.send(new UpdateUserPoolClientCommand({ UserPoolId: poolId, ClientId: clientId, IdTokenValidity: 2, TokenValidityUnits: { IdToken: 'days' } })),
    ).rejects.toThrow(InvalidParameterException);
  });
});

describe('SignUp → ConfirmSignUp → InitiateAuth', () => {
  it('signs up unconfirmed with a masked e-mail delivery; the code is in the outbox, never in the log', async () => {
    await expect(
      sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'weak', Password: 'short1A', UserAttributes: [{ Name: 'email', Value: 'w@example.org' }] })),
    ).rejects.toThrow(InvalidPasswordException);

    const out = await sdk.send(
      new SignUpCommand({ ClientId: clientId, Username: 'carol', Password: 'Carol-pass-12', UserAttributes: [{ Name: 'email', Value: 'carol@example.org' }] }),
    );
    expect(out.UserConfirmed).toBe(false);
    expect(out.UserSub).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.CodeDeliveryDetails).toEqual({ Destination: 'c***@e***', DeliveryMedium: 'EMAIL', AttributeName: 'email' });

    const [message] = await messages('carol');
    expect(message).toMatchObject({ Username: 'carol', UserSub: out.UserSub, Purpose: 'SIGN_UP', Destination: 'carol@example.org' });
    expect(message!.Code).toMatch(/^\d{6}$/);
    expect(idp.logs.join('')).not.toContain(message!.Code);

    await expect(
      sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'CAROL', Password: 'Carol-pass-12', UserAttributes: [{ Name: 'email', Value: 'c2@example.org' }] })),
    ).rejects.toThrow(UsernameExistsException);
    // The outbox is admin only.
    const unsigned = await idp.call('IanodeIdp.ListMessages', { UserPoolId: poolId }, { sign: false });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.__type).toBe('UnrecognizedClientException');
  });

  it('an unconfirmed user cannot sign in; a wrong code is CodeMismatchException; the right one confirms once', async () => {
    // A user of its own (signed up here, not by the test before it).
    await sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'cora', Password: 'Cora-pass-1234', UserAttributes: [{ Name: 'email', Value: 'cora@example.org' }] }));
    await expect(passwordSignIn('cora', 'Cora-pass-1234')).rejects.toThrow(UserNotConfirmedException);
    const code = await codeFor('cora');
    await expect(sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'cora', ConfirmationCode: wrongCode(code) }))).rejects.toThrow(
      CodeMismatchException,
    );
    await sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'cora', ConfirmationCode: code }));
    await expect(sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'cora', ConfirmationCode: code }))).rejects.toThrow(
      NotAuthorizedException,
    );
    expect(await messages('cora')).toEqual([]);

    const user = await sdk.send(new AdminGetUserCommand({ UserPoolId: poolId, Username: 'cora' }));
    expect(user.UserStatus).toBe('CONFIRMED');
    expect(user.UserAttributes).toContainEqual({ Name: 'email_verified', Value: 'true' });
    expect(created).toContainEqual(expect.objectContaining({ poolId, username: 'cora', via: 'ConfirmSignUp', sub: user.UserAttributes!.find((a) => a.Name === 'sub')!.Value }));

    const tokens = await passwordSignIn('cora', 'Cora-pass-1234');
    const id = await verifyWithJwks(idp, poolId, tokens.AuthenticationResult!.IdToken!, { audience: clientId });
    expect(id).toMatchObject({ 'cognito:username': 'cora', email: 'cora@example.org', email_verified: true });
    // The verifier stored at SignUp serves SRP as well.
    await verifyWithJwks(idp, poolId, await srpSignIn('cora', 'Cora-pass-1234'), { audience: clientId });
  });

  it('an unknown name is CodeMismatchException, as a wrong code', async () => {
    await expect(sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'nobody', ConfirmationCode: '123456' }))).rejects.toThrow(
      CodeMismatchException,
    );
  });

  it('codes allow 5 wrong tries, then LimitExceededException even for the right code', async () => {
    await sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'dave', Password: 'Dave-pass-123', UserAttributes: [{ Name: 'email', Value: 'dave@example.org' }] }));
    const code = await codeFor('dave');
    for (let i = 0; i < 5; i++)
      await expect(sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'dave', ConfirmationCode: wrongCode(code) }))).rejects.toThrow(
        CodeMismatchException,
      );
    await expect(sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'dave', ConfirmationCode: code }))).rejects.toThrow(
      LimitExceededException,
    );
    // A new code (ResendConfirmationCode) replaces it.
    const resent = await sdk.send(new ResendConfirmationCodeCommand({ ClientId: clientId, Username: 'dave' }));
    expect(resent.CodeDeliveryDetails).toMatchObject({ Destination: 'd***@e***', DeliveryMedium: 'EMAIL' });
    const fresh = await codeFor('dave');
    await sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'dave', ConfirmationCode: fresh }));
    await expect(sdk.send(new ResendConfirmationCodeCommand({ ClientId: clientId, Username: 'dave' }))).rejects.toThrow(InvalidParameterException);
  });

  it('codes expire (ExpiredCodeException) and new ones are limited per hour (LimitExceededException)', async () => {
    await sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'erin', Password: 'Erin-pass-123', UserAttributes: [{ Name: 'email', Value: 'erin@example.org' }] }));
    const code = await codeFor('erin');
    await later(24 * 3_600_000 + 1, async () => {
      await expect(sdk.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: 'erin', ConfirmationCode: code }))).rejects.toThrow(
        ExpiredCodeException,
      );
    });
    for (let i = 0; i < 4; i++) await sdk.send(new ResendConfirmationCodeCommand({ ClientId: clientId, Username: 'erin' })); // 5 codes in the hour
    await expect(sdk.send(new ResendConfirmationCodeCommand({ ClientId: clientId, Username: 'erin' }))).rejects.toThrow(LimitExceededException);
    await later(3_600_000, async () => {
      await sdk.send(new ResendConfirmationCodeCommand({ ClientId: clientId, Username: 'erin' }));
    });
  });

  it('AdminConfirmSignUp confirms without a code and announces the user; UserNotFoundException for unknown names', async () => {
    await sdk.send(new SignUpCommand({ ClientId: clientId, Username: 'fay', Password: 'Fay-pass-1234' }));
    expect(await messages('fay')).toEqual([]); // no e-mail: nothing to send, an admin confirms
    await sdk.send(new AdminConfirmSignUpCommand({ UserPoolId: poolId, Username: 'fay' }));
    expect(created).toContainEqual(expect.objectContaining({ username: 'fay', via: 'AdminConfirmSignUp' }));
    await expect(sdk.send(new AdminConfirmSignUpCommand({ UserPoolId: poolId, Username: 'fay' }))).rejects.toThrow(NotAuthorizedException);
    await expect(sdk.send(new AdminConfirmSignUpCommand({ UserPoolId: poolId, Username: 'ghost' }))).rejects.toThrow(UserNotFoundException);
    expect((await passwordSignIn('fay', 'Fay-pass-1234')).AuthenticationResult?.IdToken).toBeDefined();
  });

  it('a failing onUserCreated is logged without the attributes and does not undo the confirmation', async () => {
    const other = await startIdp({
      onUserCreated: () => {
        throw new Error('access service unreachable');
      },
    });
    try {
      const { UserPool } = await other.ok<{ UserPool: { Id: string } }>('CreateUserPool', { PoolName: 'p', AdminCreateUserConfig: { AllowAdminCreateUserOnly: false } });
      const { UserPoolClient } = await other.ok<{ UserPoolClient: { ClientId: string } }>('CreateUserPoolClient', { UserPoolId: UserPool.Id, ClientName: 'c' });
      const signedUp = await other.call('SignUp', {
        ClientId: UserPoolClient.ClientId,
        Username: 'lee',
        Password: 'Lee-pass-1234!',
        UserAttributes: [{ Name: 'email', Value: 'lee@example.org' }],
      });
      expect(signedUp.status).toBe(200);
      expect(signedUp.body).not.toHaveProperty('CodeDeliveryDetails'); // the pool does not auto-verify e-mail
      expect((await other.call('AdminConfirmSignUp', { UserPoolId: UserPool.Id, Username: 'lee' })).status).toBe(200);
      expect((await other.ok<{ UserStatus: string }>('AdminGetUser', { UserPoolId: UserPool.Id, Username: 'lee' })).UserStatus).toBe('CONFIRMED');
      const log = other.logs.join('');
      expect(log).toContain('onUserCreated callback failed');
      expect(log).toContain('access service unreachable');
      expect(log).not.toContain('lee@example.org');
    } finally {
      await other.close();
    }
  });

  it('SignUp with a client secret needs SecretHash', async () => {
    const { UserPoolClient } = await idp.ok<{ UserPoolClient: { ClientId: string; ClientSecret: string } }>('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'confidential',
      GenerateSecret: true,
    });
    await expect(sdk.send(new SignUpCommand({ ClientId: UserPoolClient.ClientId, Username: 'hal', Password: 'Hal-pass-1234' }))).rejects.toThrow(
      NotAuthorizedException,
    );
    const SecretHash = createHmac('sha256', UserPoolClient.ClientSecret).update(`hal${UserPoolClient.ClientId}`).digest('base64');
    const out = await sdk.send(new SignUpCommand({ ClientId: UserPoolClient.ClientId, Username: 'hal', Password: 'Hal-pass-1234', SecretHash }));
    expect(out.UserConfirmed).toBe(false);
  });
});

describe('ForgotPassword, ConfirmForgotPassword, AdminResetUserPassword', () => {
  beforeEach(async () => {
    await createUser(idp, poolId, 'ivan', { attributes: { email: 'ivan@example.org', email_verified: 'true' }, password: 'Ivan-pass-123' });
  });

  it('sends a code; a weak password or a wrong code change nothing; the right one sets the password once', async () => {
    const out = await sdk.send(new ForgotPasswordCommand({ ClientId: clientId, Username: 'ivan' }));
    expect(out.CodeDeliveryDetails).toEqual({ Destination: 'i***@e***', DeliveryMedium: 'EMAIL', AttributeName: 'email' });
    const code = await codeFor('ivan', 'FORGOT_PASSWORD');
    await expect(
      sdk.send(new ConfirmForgotPasswordCommand({ ClientId: clientId, Username: 'ivan', ConfirmationCode: code, Password: 'weak' })),
    ).rejects.toThrow(InvalidPasswordException);
    await expect(
      sdk.send(new ConfirmForgotPasswordCommand({ ClientId: clientId, Username: 'ivan', ConfirmationCode: wrongCode(code), Password: 'Ivan-new-pass-1' })),
    ).rejects.toThrow(CodeMismatchException);
    await sdk.send(new ConfirmForgotPasswordCommand({ ClientId: clientId, Username: 'ivan', ConfirmationCode: code, Password: 'Ivan-new-pass-1' }));
    await expect(
      sdk.send(new ConfirmForgotPasswordCommand({ ClientId: clientId, Username: 'ivan', ConfirmationCode: code, Password: 'Ivan-other-pass-1' })),
    ).rejects.toThrow(CodeMismatchException);

    await expect(passwordSignIn('ivan', 'Ivan-pass-123')).rejects.toThrow(NotAuthorizedException);
    expect((await passwordSignIn('ivan', 'Ivan-new-pass-1')).AuthenticationResult?.IdToken).toBeDefined();
    await verifyWithJwks(idp, poolId, await srpSignIn('ivan', 'Ivan-new-pass-1'));
    expect(idp.logs.join('')).not.toContain(code);
  });

  it('an unknown name gets a delivery answer like a known one; a user without a verified e-mail cannot reset', async () => {
    const out = await sdk.send(new ForgotPasswordCommand({ ClientId: clientId, Username: 'nobody@example.org' }));
    expect(out.CodeDeliveryDetails).toEqual({ Destination: 'n***@e***', DeliveryMedium: 'EMAIL', AttributeName: 'email' });
    await createUser(idp, poolId, 'judy', { attributes: { email: 'judy@example.org' }, password: 'Judy-pass-123' });
    await expect(sdk.send(new ForgotPasswordCommand({ ClientId: clientId, Username: 'judy' }))).rejects.toThrow(InvalidParameterException);
  });

  it('a forgot-password code lives one hour', async () => {
    await sdk.send(new ForgotPasswordCommand({ ClientId: clientId, Username: 'ivan' }));
    const code = await codeFor('ivan', 'FORGOT_PASSWORD');
    await later(3_600_000, async () => {
      await expect(
        sdk.send(new ConfirmForgotPasswordCommand({ ClientId: clientId, Username: 'ivan', ConfirmationCode: code, Password: 'Ivan-late-pass-1' })),
      ).rejects.toThrow(ExpiredCodeException);
    });
  });

  it('AdminResetUserPassword: sign-in says PasswordResetRequiredException until the code sets a new password', async () => {
    await createUser(idp, poolId, 'kim', { attributes: { email: 'kim@example.org', email_verified: 'true' }, password: 'Kim-pass-1234' });
    await sdk.send(new AdminResetUserPasswordCommand({ UserPoolId: poolId, Username: 'kim' }));
    await expect(passwordSignIn('kim', 'Kim-pass-1234')).rejects.toThrow(PasswordResetRequiredException);
    await expect(srpSignIn('kim', 'Kim-pass-1234')).rejects.toMatchObject({ code: 'PasswordResetRequiredException' });
    const code = await codeFor('kim', 'FORGOT_PASSWORD');
    await sdk.send(new ConfirmForgotPasswordCommand({ ClientId: clientId, Username: 'kim', ConfirmationCode: code, Password: 'Kim-new-pass-12' }));
    expect((await passwordSignIn('kim', 'Kim-new-pass-12')).AuthenticationResult?.IdToken).toBeDefined();
    await expect(sdk.send(new AdminResetUserPasswordCommand({ UserPoolId: poolId, Username: 'ghost' }))).rejects.toThrow(UserNotFoundException);
  });
});
