/**
 * InitiateAuth (USER_SRP_AUTH, USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH), AdminInitiateAuth
 * (USER_SRP_AUTH, ADMIN_USER_PASSWORD_AUTH, ADMIN_NO_SRP_AUTH, REFRESH_TOKEN_AUTH),
 * RespondToAuthChallenge and AdminRespondToAuthChallenge (PASSWORD_VERIFIER, NEW_PASSWORD_REQUIRED).
 * Every flow must be enabled on the app client, as in Cognito.
 */
import { answerPasswordVerifier, startSrp } from '../../auth/srp-sign-in.js';
import {
  checkSecretHash,
  completeNewPassword,
  newPasswordChallengeParameters,
  requiredParameter as required,
  signInWithPassword,
  type SignInOutcome,
} from '../../auth/sign-in.js';
import type { IdpContext } from '../../context.js';
import { refreshSession } from '../../auth/refresh.js';
import { invalidParameter } from '../../errors.js';
import { authFlowAllowed, requireClient, requirePoolClient, type Client } from '../../model/clients.js';
import { requirePool, type Pool } from '../../model/pools.js';
import { API_SCOPE, authenticationResult, issueTokens } from '../../tokens/issue.js';
import { operation } from '../operation.js';
import { ClientId, enumOf, obj, str, strMap, UserPoolId } from '../schema.js';

type Params = Record<string, string>;

const AUTH_FLOWS = [
  'USER_SRP_AUTH',
  'REFRESH_TOKEN_AUTH',
  'REFRESH_TOKEN',
  'CUSTOM_AUTH',
  'ADMIN_NO_SRP_AUTH',
  'USER_PASSWORD_AUTH',
  'ADMIN_USER_PASSWORD_AUTH',
  'USER_AUTH',
];

async function passwordFlow(ctx: IdpContext, pool: Pool, client: Client, params: Params | undefined): Promise<object> {
  const username = required(params, 'USERNAME');
  const password = required(params, 'PASSWORD');
  checkSecretHash(client, params?.SECRET_HASH, username);
  return outcomeReply(ctx, pool, client, await signInWithPassword(ctx, pool, client, username, password));
}

/** Tokens, or the NEW_PASSWORD_REQUIRED challenge, after proven credentials. */
async function outcomeReply(ctx: IdpContext, pool: Pool, client: Client, outcome: SignInOutcome): Promise<object> {
  if (outcome.kind === 'new-password-required') {
    return {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      Session: outcome.session,
      ChallengeParameters: newPasswordChallengeParameters(outcome.user),
    };
  }
  const tokens = await issueTokens(ctx, { pool, client, user: outcome.user, scope: API_SCOPE });
  return { ChallengeParameters: {}, AuthenticationResult: authenticationResult(tokens) };
}

async function refreshFlow(ctx: IdpContext, client: Client, params: Params | undefined): Promise<object> {
  const token = required(params, 'REFRESH_TOKEN');
  const tokens = await refreshSession(ctx, client, token, (user) =>
    checkSecretHash(client, params?.SECRET_HASH, params?.USERNAME ?? user.username, user.username, user.sub),
  );
  return { ChallengeParameters: {}, AuthenticationResult: authenticationResult(tokens) };
}

function srpFlow(ctx: IdpContext, pool: Pool, client: Client, params: Params | undefined): object {
  if (!authFlowAllowed(client, 'ALLOW_USER_SRP_AUTH')) throw invalidParameter('USER_SRP_AUTH is not enabled for the client.');
  return startSrp(ctx, pool, client, params);
}

async function answerChallenge(
  ctx: IdpContext,
  pool: Pool,
  client: Client,
  challengeName: string,
  session: string | undefined,
  responses: Params | undefined,
): Promise<object> {
  if (challengeName === 'PASSWORD_VERIFIER') {
    if (!authFlowAllowed(client, 'ALLOW_USER_SRP_AUTH')) throw invalidParameter('USER_SRP_AUTH is not enabled for the client.');
    return outcomeReply(ctx, pool, client, answerPasswordVerifier(ctx, pool, client, responses));
  }
  if (challengeName !== 'NEW_PASSWORD_REQUIRED') throw invalidParameter(`Unsupported challenge: ${challengeName}`);
  if (!session) throw invalidParameter('Missing required parameter Session');
  const username = required(responses, 'USERNAME');
  const newPassword = required(responses, 'NEW_PASSWORD');
  checkSecretHash(client, responses?.SECRET_HASH, username);
  const attributes: Params = {};
  for (const [k, v] of Object.entries(responses ?? {})) {
    if (k.startsWith('userAttributes.')) attributes[k.slice('userAttributes.'.length)] = v;
  }
  const user = await completeNewPassword(ctx, pool, client, session, username, newPassword, attributes);
  const tokens = await issueTokens(ctx, { pool, client, user, scope: API_SCOPE });
  return { ChallengeParameters: {}, AuthenticationResult: authenticationResult(tokens) };
}

const AuthFlow = enumOf(...AUTH_FLOWS);
const Session = str(20, 2048);
const ChallengeName = str(1, 64);

export const authOperations = [
  operation<{ AuthFlow: string; ClientId: string; AuthParameters?: Params }>(
    'InitiateAuth',
    false,
    obj({ AuthFlow, ClientId, AuthParameters: strMap(), ClientMetadata: strMap() }, ['AuthFlow', 'ClientId']),
    async (ctx, body) => {
      const client = requireClient(ctx.db, body.ClientId);
      switch (body.AuthFlow) {
        case 'USER_SRP_AUTH':
          return srpFlow(ctx, requirePool(ctx.db, client.poolId), client, body.AuthParameters);
        case 'USER_PASSWORD_AUTH':
          if (!authFlowAllowed(client, 'ALLOW_USER_PASSWORD_AUTH', 'USER_PASSWORD_AUTH'))
            throw invalidParameter('USER_PASSWORD_AUTH flow not enabled for this client');
          return passwordFlow(ctx, requirePool(ctx.db, client.poolId), client, body.AuthParameters);
        case 'REFRESH_TOKEN_AUTH':
        case 'REFRESH_TOKEN':
          return refreshFlow(ctx, client, body.AuthParameters);
        default:
          throw invalidParameter(`AuthFlow ${body.AuthFlow} is not supported by this identity provider.`);
      }
    },
  ),

  operation<{ UserPoolId: string; ClientId: string; AuthFlow: string; AuthParameters?: Params }>(
    'AdminInitiateAuth',
    true,
    obj({ UserPoolId, ClientId, AuthFlow, AuthParameters: strMap(), ClientMetadata: strMap() }, [
      'UserPoolId',
      'ClientId',
      'AuthFlow',
    ]),
    async (ctx, body) => {
      const { pool, client } = adminPoolAndClient(ctx, body);
      switch (body.AuthFlow) {
        case 'USER_SRP_AUTH':
          return srpFlow(ctx, pool, client, body.AuthParameters);
        case 'ADMIN_USER_PASSWORD_AUTH':
        case 'ADMIN_NO_SRP_AUTH':
          if (!authFlowAllowed(client, 'ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ADMIN_NO_SRP_AUTH'))
            throw invalidParameter('Auth flow not enabled for this client');
          return passwordFlow(ctx, pool, client, body.AuthParameters);
        case 'REFRESH_TOKEN_AUTH':
        case 'REFRESH_TOKEN':
          return refreshFlow(ctx, client, body.AuthParameters);
        default:
          throw invalidParameter(`AuthFlow ${body.AuthFlow} is not supported by this identity provider.`);
      }
    },
  ),

  operation<{ ClientId: string; ChallengeName: string; Session?: string; ChallengeResponses?: Params }>(
    'RespondToAuthChallenge',
    false,
    obj({ ClientId, ChallengeName, Session, ChallengeResponses: strMap(), ClientMetadata: strMap() }, ['ClientId', 'ChallengeName']),
    async (ctx, body) => {
      const client = requireClient(ctx.db, body.ClientId);
      const pool = requirePool(ctx.db, client.poolId);
      return answerChallenge(ctx, pool, client, body.ChallengeName, body.Session, body.ChallengeResponses);
    },
  ),

  operation<{ UserPoolId: string; ClientId: string; ChallengeName: string; Session?: string; ChallengeResponses?: Params }>(
    'AdminRespondToAuthChallenge',
    true,
    obj({ UserPoolId, ClientId, ChallengeName, Session, ChallengeResponses: strMap(), ClientMetadata: strMap() }, [
      'UserPoolId',
      'ClientId',
      'ChallengeName',
    ]),
    async (ctx, body) => {
      const { pool, client } = adminPoolAndClient(ctx, body);
      return answerChallenge(ctx, pool, client, body.ChallengeName, body.Session, body.ChallengeResponses);
    },
  ),
];

/** The pool and its client an admin operation names (`ResourceNotFoundException` for either). */
function adminPoolAndClient(ctx: IdpContext, body: { UserPoolId: string; ClientId: string }): { pool: Pool; client: Client } {
  const pool = requirePool(ctx.db, body.UserPoolId);
  return { pool, client: requirePoolClient(ctx.db, pool.id, body.ClientId) };
}
