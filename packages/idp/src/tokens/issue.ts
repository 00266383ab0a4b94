/**
 * Issues the token set of a sign-in (SPEC §7): an ID token and an access token signed RS256 with
 * the pool's current key (`kid` in the header), and for a new sign-in an opaque refresh token whose
 * sha256 is stored with the session. A refresh keeps the session's `origin_jti` and `auth_time`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import type { IdpContext } from '../context.js';
import { newOpaqueToken } from '../crypto/random.js';
import { SIGNING_ALG } from '../keys/key-store.js';
import { lifetimes, type Client } from '../model/clients.js';
import { groupsOfUser } from '../model/groups.js';
import type { Pool } from '../model/pools.js';
import { insertSession } from '../model/sessions.js';
import type { User } from '../model/users.js';
import { attributeClaims, groupClaims } from './claims.js';

/** The scope of tokens from the Cognito API flows: the user may call the user-pool API. */
export const API_SCOPE = 'aws.cognito.signin.user.admin';

export interface TokenRequest {
  pool: Pool;
  client: Client;
  user: User;
  scope: string;
  /** Present when refreshing: the session's `origin_jti` and `auth_time` (seconds). */
  refresh?: { originJti: string; authTime: number };
  /** OIDC: echoed into the ID token. */
  nonce?: string | null;
  /** OIDC code flow: add `at_hash` to the ID token. */
  atHash?: boolean;
}

export interface IssuedTokens {
  idToken: string;
  accessToken: string;
  /** Only for a new sign-in (Cognito does not rotate refresh tokens). */
  refreshToken?: string;
  /** Seconds the access token lives. */
  expiresIn: number;
  originJti: string;
}

const accessTokenHash = (token: string): string =>
  createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

export async function issueTokens(ctx: IdpContext, req: TokenRequest): Promise<IssuedTokens> {
  const { pool, client, user } = req;
  const life = lifetimes(client.config);
  const nowMs = ctx.now();
  const iat = Math.floor(nowMs / 1000);
  const originJti = req.refresh?.originJti ?? randomUUID();
  const authTime = req.refresh?.authTime ?? iat;
  const eventId = randomUUID();
  const groups = groupClaims(groupsOfUser(ctx.db, user.sub));
  const iss = ctx.issuer(pool.id);
  const signing = await ctx.keys.signingKey(pool.id);

  const sign = (claims: JWTPayload) =>
    new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALG, kid: signing.kid }).sign(signing.key);

  const accessExp = iat + life.access;
  const accessToken = await sign({
    sub: user.sub,
    ...groups,
    iss,
    client_id: client.id,
    origin_jti: originJti,
    event_id: eventId,
    token_use: 'access',
    scope: req.scope,
    auth_time: authTime,
    exp: accessExp,
    iat,
    jti: randomUUID(),
    username: user.username,
  });

  const idExp = iat + life.id;
  const idToken = await sign({
    ...attributeClaims(user.attributes),
    sub: user.sub,
    ...groups,
    iss,
    'cognito:username': user.username,
    ...(req.nonce ? { nonce: req.nonce } : {}),
    ...(req.atHash ? { at_hash: accessTokenHash(accessToken) } : {}),
    origin_jti: originJti,
    aud: client.id,
    event_id: eventId,
    token_use: 'id',
    auth_time: authTime,
    exp: idExp,
    iat,
    jti: randomUUID(),
  });

  const refreshToken = req.refresh ? undefined : newOpaqueToken(48);
  ctx.db.tx(() => {
    ctx.keys.noteSigned(signing.kid, Math.max(accessExp, idExp));
    if (refreshToken) {
      insertSession(
        ctx.db,
        {
          originJti,
          poolId: pool.id,
          clientId: client.id,
          userSub: user.sub,
          scope: req.scope,
          authTime,
          createdAt: nowMs,
          expiresAt: nowMs + life.refresh * 1000,
          revokedAt: null,
        },
        refreshToken,
      );
    }
  });
  return { idToken, accessToken, ...(refreshToken ? { refreshToken } : {}), expiresIn: life.access, originJti };
}

/** Cognito's `AuthenticationResultType`. */
export function authenticationResult(t: IssuedTokens): Record<string, string | number> {
  return {
    AccessToken: t.accessToken,
    ExpiresIn: t.expiresIn,
    TokenType: 'Bearer',
    ...(t.refreshToken ? { RefreshToken: t.refreshToken } : {}),
    IdToken: t.idToken,
  };
}
