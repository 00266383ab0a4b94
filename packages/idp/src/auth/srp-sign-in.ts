/**
 * USER_SRP_AUTH: InitiateAuth with SRP_A answers the PASSWORD_VERIFIER challenge (SRP_B, SALT,
 * SECRET_BLOCK, USER_ID_FOR_SRP); RespondToAuthChallenge with PASSWORD_CLAIM_SIGNATURE,
 * PASSWORD_CLAIM_SECRET_BLOCK and TIMESTAMP proves the password (`crypto/srp.ts`).
 *
 * The server keeps no row per challenge: its state (b, A, B, the user, client and expiry) travels
 * in the SECRET_BLOCK, sealed with AES-256-GCM under a key kept in the database (generated on first
 * use). Each block is accepted once (`srp_used`, until it expires) and only before it expires.
 *
 * Unknown users, and users with no SRP verifier yet (created before migration 3 and not signed in
 * with a password since), get a challenge that looks like a real one (a salt and USER_ID_FOR_SRP
 * derived from the name under the server key) and fail at the answer with the one
 * NotAuthorizedException, so the challenge does not tell which names exist.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { IdpContext } from '../context.js';
import {
  claimSignature,
  createVerifier,
  padHex,
  parseA,
  parseTimestamp,
  serverEphemeral,
  serverPublic,
  sessionKey,
  signatureMatches,
} from '../crypto/srp.js';
import { invalidParameter, notAuthorized } from '../errors.js';
import type { Client } from '../model/clients.js';
import type { Pool } from '../model/pools.js';
import { clearFailures, isLockedOut, recordFailure } from '../model/throttle.js';
import { findUser, findUserBySub, throttleKey } from '../model/users.js';
import { afterCredentials, checkSecretHash, requiredParameter as required, type SignInOutcome } from './sign-in.js';

interface BlockState {
  /** Block id (replay guard). */
  id: string;
  poolId: string;
  clientId: string;
  /** The user, or null for a name that does not resolve to a user with a verifier. */
  sub: string | null;
  /** USER_ID_FOR_SRP as sent. */
  userId: string;
  /** The name the client first gave (SECRET_HASH may be computed over it). */
  name: string;
  /** The client's A and the server's b, base64 of their bytes (B is recomputed from b and the verifier). */
  A: string;
  b: string;
  expiresAt: number;
}

const BLOCK_VERSION = 1;

function blockKey(ctx: IdpContext): Buffer {
  return ctx.db.tx(() => {
    const row = ctx.db.get<{ value: string }>("SELECT value FROM settings WHERE key = 'srp_block_key'");
    if (row) return Buffer.from(row.value, 'base64');
    const key = randomBytes(32);
    ctx.db.run("INSERT INTO settings (key, value) VALUES ('srp_block_key', ?)", key.toString('base64'));
    return key;
  });
}

function seal(key: Buffer, state: BlockState): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([BLOCK_VERSION]), iv, cipher.getAuthTag(), body]).toString('base64');
}

function open(key: Buffer, block: Buffer): BlockState | undefined {
  if (block.length < 1 + 12 + 16 + 2 || block[0] !== BLOCK_VERSION) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, block.subarray(1, 13));
    decipher.setAuthTag(block.subarray(13, 29));
    const text = Buffer.concat([decipher.update(block.subarray(29)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as BlockState;
  } catch {
    return undefined;
  }
}

/** Deterministic stand-ins for a name without a verifier, so repeated challenges agree. */
function decoy(key: Buffer, pool: Pool, name: string): { userId: string; salt: string; verifier: string } {
  const mac = (what: string) => createHmac('sha256', key).update(`${what}\0${pool.id}\0${name.toLowerCase()}`).digest();
  const salt = mac('salt').subarray(0, 16).toString('hex');
  let userId = name;
  if (pool.config.UsernameAttributes.includes('email')) {
    // Users of e-mail pools have a UUID user name; a decoy looks the same.
    const h = mac('id').toString('hex');
    userId = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  const { verifier } = createVerifier(pool.id, userId, mac('pw').toString('base64'), salt);
  return { userId, salt, verifier };
}

export interface PasswordVerifierChallenge {
  ChallengeName: 'PASSWORD_VERIFIER';
  ChallengeParameters: Record<string, string>;
}

export function startSrp(ctx: IdpContext, pool: Pool, client: Client, params: Record<string, string> | undefined): PasswordVerifierChallenge {
  const name = params?.USERNAME;
  if (!name) throw invalidParameter('Missing required parameter USERNAME');
  const srpA = params.SRP_A;
  if (!srpA) throw invalidParameter('Missing required parameter SRP_A');
  const A = parseA(srpA);
  if (A === undefined) throw invalidParameter('Invalid SRP_A.');
  checkSecretHash(client, params.SECRET_HASH, name);
  const user = findUser(ctx.db, pool, name);
  if (isLockedOut(ctx.db, pool.id, throttleKey(user, name), ctx.now())) throw notAuthorized('Password attempts exceeded');

  const key = blockKey(ctx);
  const real = user?.srpVerifier && user.srpSalt ? { userId: user.username, salt: user.srpSalt, verifier: user.srpVerifier } : undefined;
  const fake = decoy(key, pool, name); // computed for every name, so the answer's timing does not tell which exist
  const { userId, salt, verifier } = real ?? fake;
  const { b, B } = serverEphemeral(verifier);
  const state: BlockState = {
    id: randomUUID(),
    poolId: pool.id,
    clientId: client.id,
    sub: real && user ? user.sub : null,
    userId,
    name,
    A: Buffer.from(padHex(A), 'hex').toString('base64'),
    b: Buffer.from(padHex(BigInt(`0x${b}`)), 'hex').toString('base64'),
    expiresAt: ctx.now() + client.config.AuthSessionValidity * 60_000,
  };
  return {
    ChallengeName: 'PASSWORD_VERIFIER',
    ChallengeParameters: { SALT: salt, SECRET_BLOCK: seal(key, state), SRP_B: B, USERNAME: userId, USER_ID_FOR_SRP: userId },
  };
}

/** Answers PASSWORD_VERIFIER: the sealed state, then the signature; then the user's state as for a password sign-in. */
export function answerPasswordVerifier(
  ctx: IdpContext,
  pool: Pool,
  client: Client,
  responses: Record<string, string> | undefined,
): SignInOutcome {
  const username = required(responses, 'USERNAME');
  const blockText = required(responses, 'PASSWORD_CLAIM_SECRET_BLOCK');
  const signature = required(responses, 'PASSWORD_CLAIM_SIGNATURE');
  const timestampText = required(responses, 'TIMESTAMP');
  const now = ctx.now();

  const blockBytes = Buffer.from(blockText, 'base64');
  const key = blockKey(ctx);
  const state = open(key, blockBytes);
  if (!state || state.poolId !== pool.id || state.clientId !== client.id)
    throw notAuthorized('Invalid session for the user.');
  if (state.expiresAt <= now) throw notAuthorized('Invalid session for the user, session is expired.');
  checkSecretHash(client, responses?.SECRET_HASH, username, state.userId, state.name);
  const named = findUser(ctx.db, pool, username);
  if (username !== state.userId && username !== state.name && (state.sub === null || named?.sub !== state.sub))
    throw notAuthorized('Invalid session for the user.');
  const timestamp = parseTimestamp(timestampText);
  if (timestamp === undefined) throw invalidParameter('TIMESTAMP is not in the format "ddd MMM d HH:mm:ss UTC yyyy".');
  if (Math.abs(timestamp - now) > ctx.signatureMaxSkewMs) throw notAuthorized('TIMESTAMP is too far from the current time.');

  // Single use: the block is spent before its signature is judged, so a failed guess burns it too.
  const fresh = ctx.db.run('INSERT OR IGNORE INTO srp_used (id, expires_at) VALUES (?, ?)', state.id, state.expiresAt).changes === 1;
  if (!fresh) throw notAuthorized('Invalid session for the user, session can only be used once.');

  const user = state.sub === null ? undefined : findUserBySub(ctx.db, state.sub);
  const failureKey = throttleKey(user, state.name);
  if (isLockedOut(ctx.db, pool.id, failureKey, now)) throw notAuthorized('Password attempts exceeded');
  const fake = decoy(key, pool, state.name).verifier; // for every name, as at the start
  const verifier = user?.srpVerifier ?? fake;
  const A = parseA(Buffer.from(state.A, 'base64').toString('hex'));
  const b = Buffer.from(state.b, 'base64').toString('hex');
  const sessionK = A === undefined ? undefined : sessionKey(A, serverPublic(b, verifier), b, verifier);
  const ok =
    sessionK !== undefined &&
    signatureMatches(claimSignature(sessionK, pool.id, state.userId, blockBytes, timestampText), signature) &&
    user !== undefined &&
    user.poolId === pool.id;
  if (!ok || !user) {
    recordFailure(ctx.db, ctx.throttle, pool.id, failureKey, now);
    throw notAuthorized();
  }
  clearFailures(ctx.db, pool.id, failureKey);
  return afterCredentials(ctx, pool, client, user);
}
