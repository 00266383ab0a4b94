/**
 * Signing keys per pool: an RSA-2048 key generated with the pool, persisted (private JWK in the
 * database, which is mode 0600), rotatable. The newest key signs. A retired key stays in the JWKS
 * and keeps verifying until every token it signed has expired: each signature raises the key's
 * `max_exp`, so "expired" is exact rather than guessed from settings that may change later.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../db/database.js';

export const SIGNING_ALG = 'RS256';

export interface PublicJwk {
  kty: string;
  kid: string;
  use: 'sig';
  alg: string;
  n: string;
  e: string;
}

interface KeyRow {
  kid: string;
  pool_id: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  retired_at: number | null;
  max_exp: number;
}

export interface NewKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: PublicJwk;
}

/** Generates a key pair (outside any transaction: this takes tens of milliseconds). */
export async function generateSigningKey(): Promise<NewKey> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  if (!pub.n || !pub.e) throw new TypeError('RSA public key without n or e');
  return {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG },
    publicJwk: { kty: 'RSA', kid, use: 'sig', alg: SIGNING_ALG, n: pub.n, e: pub.e },
  };
}

/** Stores a new key; every older active key of the pool is retired at `now`. */
export function installKey(db: Db, poolId: string, key: NewKey, now: number): void {
  db.tx(() => {
    db.run('UPDATE signing_keys SET retired_at = ? WHERE pool_id = ? AND retired_at IS NULL', now, poolId);
    db.run(
      'INSERT INTO signing_keys (kid, pool_id, private_jwk, public_jwk, created_at, retired_at, max_exp) VALUES (?, ?, ?, ?, ?, NULL, 0)',
      key.kid,
      poolId,
      JSON.stringify(key.privateJwk),
      JSON.stringify(key.publicJwk),
      now,
    );
  });
}

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

export interface KeyStore {
  /** A new key, not yet installed: for a new pool (`installKey`) or a rotation. */
  newKey(): Promise<NewKey>;
  /** The key that signs new tokens for the pool. */
  signingKey(poolId: string): Promise<SigningKey>;
  /** Records that the key signed a token expiring at `exp` (seconds). */
  noteSigned(kid: string, exp: number): void;
  /** The public key for `kid` if it belongs to the pool and is still published. */
  verificationKey(poolId: string, kid: string): Promise<CryptoKey | undefined>;
  /** The published keys: the active one and retired ones still covering unexpired tokens. */
  jwks(poolId: string): PublicJwk[];
  /** Adds a new signing key and retires the current one; returns the kids. */
  rotate(poolId: string): Promise<{ kid: string; previousKid: string | null }>;
}

/** `newKey` makes every new key (default: `generateSigningKey`; tests inject pre-generated ones). */
export function createKeyStore(db: Db, now: () => number, newKey: () => Promise<NewKey> = generateSigningKey): KeyStore {
  // Imported keys are cached by kid; which kid is active is read from the database every time, so a
  // rotation by another process (the `rotate-keys` command) takes effect at once.
  const privateKeys = new Map<string, Promise<CryptoKey>>();
  const publicKeys = new Map<string, Promise<CryptoKey>>();
  const importCached = (cache: Map<string, Promise<CryptoKey>>, kid: string, jwk: string) => {
    let key = cache.get(kid);
    if (!key) {
      key = importJWK(JSON.parse(jwk) as JWK, SIGNING_ALG) as Promise<CryptoKey>;
      cache.set(kid, key);
    }
    return key;
  };
  const published = (poolId: string): KeyRow[] =>
    db.all<KeyRow>(
      `SELECT * FROM signing_keys WHERE pool_id = ? AND (retired_at IS NULL OR max_exp * 1000 > ?)
       ORDER BY created_at DESC, rowid DESC`,
      poolId,
      now(),
    );

  return {
    newKey,
    async signingKey(poolId) {
      const row = db.get<KeyRow>(
        'SELECT * FROM signing_keys WHERE pool_id = ? AND retired_at IS NULL ORDER BY created_at DESC, rowid DESC',
        poolId,
      );
      if (!row) throw new Error(`pool ${poolId} has no signing key`);
      return { kid: row.kid, key: await importCached(privateKeys, row.kid, row.private_jwk) };
    },
    noteSigned(kid, exp) {
      db.run('UPDATE signing_keys SET max_exp = max(max_exp, ?) WHERE kid = ?', exp, kid);
    },
    async verificationKey(poolId, kid) {
      const row = published(poolId).find((r) => r.kid === kid);
      return row && importCached(publicKeys, row.kid, row.public_jwk);
    },
    jwks: (poolId) => published(poolId).map((r) => JSON.parse(r.public_jwk) as PublicJwk),
    async rotate(poolId) {
      const previous = db.get<{ kid: string }>(
        'SELECT kid FROM signing_keys WHERE pool_id = ? AND retired_at IS NULL ORDER BY created_at DESC, rowid DESC',
        poolId,
      );
      const key = await newKey();
      installKey(db, poolId, key, now());
      return { kid: key.kid, previousKid: previous?.kid ?? null };
    },
  };
}
