/**
 * The IdP's own verification of access tokens it issued (GetUser, GlobalSignOut, userInfo):
 * the issuer must be this IdP and one of its pools, the `kid` one of that pool's published keys,
 * the algorithm RS256 only (so `alg: none` and HMAC tricks fail), the signature and `exp` valid,
 * `token_use` access, and the sign-in session not revoked.
 */
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { IdpContext } from '../context.js';
import { IdpError, notAuthorized } from '../errors.js';
import { SIGNING_ALG } from '../keys/key-store.js';
import { findPool, type Pool } from '../model/pools.js';
import { findSession, type Session } from '../model/sessions.js';
import { findUserBySub, type User } from '../model/users.js';

export interface VerifiedAccessToken {
  claims: JWTPayload;
  pool: Pool;
  user: User;
  session: Session;
}

const invalid = (cause?: unknown) => new IdpError('NotAuthorizedException', 'Invalid Access Token', { cause });

export async function verifyAccessToken(ctx: IdpContext, token: string): Promise<VerifiedAccessToken> {
  let kid: string | undefined;
  let iss: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    kid = typeof header.kid === 'string' ? header.kid : undefined;
    if (header.alg !== SIGNING_ALG) throw new Error(`algorithm ${String(header.alg)} not allowed`);
    iss = decodeJwt(token).iss;
  } catch (cause) {
    throw invalid(cause);
  }
  const prefix = `${ctx.publicUrl()}/`;
  if (!kid || !iss?.startsWith(prefix)) throw invalid('unknown issuer or no kid');
  const pool = findPool(ctx.db, iss.slice(prefix.length));
  if (!pool) throw invalid('unknown pool');
  const key = await ctx.keys.verificationKey(pool.id, kid);
  if (!key) throw invalid('unknown kid');

  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALG],
      issuer: ctx.issuer(pool.id),
      currentDate: new Date(ctx.now()),
      requiredClaims: ['exp', 'iat', 'sub'],
    }));
  } catch (cause) {
    if (cause instanceof errors.JWTExpired) throw new IdpError('NotAuthorizedException', 'Access Token has expired', { cause });
    throw invalid(cause);
  }
  if (claims.token_use !== 'access' || typeof claims.origin_jti !== 'string') throw invalid('not an access token');
  const session = findSession(ctx.db, claims.origin_jti);
  if (!session || session.revokedAt !== null) throw notAuthorized('Access Token has been revoked');
  const user = findUserBySub(ctx.db, String(claims.sub));
  if (!user) throw new IdpError('UserNotFoundException', 'User does not exist.');
  if (!user.enabled) throw notAuthorized('User is disabled.');
  return { claims, pool, user, session };
}
