/**
 * Password hashing with scrypt (node:crypto), a fresh 16-byte salt per hash. The stored form names
 * its parameters so they can be raised later without invalidating existing hashes:
 * `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}
/**
 * N=2^15, r=8 (32 MiB, about 0.2 s per hash on a small machine). OWASP lists N=2^17 as its first
 * choice; operators raise the cost with the `scryptCost` setting, and old hashes keep verifying.
 */
export const DEFAULT_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const key = await derive(password, Buffer.from(saltB64, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;
/**
 * Spends the same time as a real verification, for unknown users, so timing does not tell
 * whether a user exists.
 */
export async function verifyAgainstDummy(password: string, cost: ScryptCost = DEFAULT_COST): Promise<false> {
  dummy ??= hashPassword('not-a-real-password', cost);
  await verifyPassword(password, await dummy);
  return false;
}
