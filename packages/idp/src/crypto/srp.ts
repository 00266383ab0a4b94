/**
 * The server side of Cognito's SRP (`USER_SRP_AUTH`), written from the protocol because no
 * maintained library speaks Cognito's variant: SRP-6a over the 3072-bit group of RFC 5054
 * Appendix A (the RFC 3526 group) with g = 2 and SHA-256, where
 *
 *   - numbers are hashed as the even-length hex of their big-endian two's-complement bytes
 *     (Java's `BigInteger.toByteArray()`: a leading `00` when the top bit is set), `padHex` below;
 *   - k = H(padHex(N) | padHex(g)), u = H(padHex(A) | padHex(B));
 *   - x = H(padHex(salt) | H(poolName + userIdForSrp + ":" + password)), poolName being the part of
 *     the pool id after "_", v = g^x mod N;
 *   - the session key is HKDF-SHA256(ikm = padHex(S), salt = padHex(u), info = "Caldera Derived
 *     Key", 16 bytes), and the client proves it with
 *     HMAC-SHA256(key, poolName | userIdForSrp | secretBlock bytes | timestamp), base64.
 *
 * Big-number arithmetic is JavaScript's `bigint`; hashing, HKDF and HMAC are node:crypto's. The
 * server's exponent b is 256 random bits (RFC 5054 asks for at least 256).
 */
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** RFC 5054 Appendix A, 3072-bit group (= RFC 3526 §4). */
const N_HEX =
  'FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD' +
  'EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED' +
  'EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F' +
  '83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B' +
  'E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510' +
  '15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7' +
  'ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C' +
  'BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF';

export const N = BigInt(`0x${N_HEX}`);
export const g = 2n;
const INFO = Buffer.from('Caldera Derived Key', 'utf8');

/** Even-length hex of a non-negative integer's two's-complement bytes (a `00` byte before a set top bit). */
export function padHex(n: bigint): string {
  if (n < 0n) throw new RangeError('padHex: negative');
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return /^[89a-f]/i.test(hex) ? `00${hex}` : hex;
}

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const hashHex = (hex: string): bigint => BigInt(`0x${sha256(Buffer.from(hex, 'hex')).toString('hex')}`);

export const k = hashHex(padHex(N) + padHex(g));

export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = ((base % modulus) + modulus) % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** The pool name SRP hashes: the part of the pool id after the first "_". */
export const srpPoolName = (poolId: string): string => poolId.slice(poolId.indexOf('_') + 1);

function privateX(poolName: string, userId: string, password: string, saltHex: string): bigint {
  const inner = sha256(Buffer.from(`${poolName}${userId}:${password}`, 'utf8')).toString('hex');
  return hashHex(padHex(BigInt(`0x${saltHex}`)) + inner);
}

/** A fresh salt (16 random bytes, hex) and the verifier v = g^x mod N (hex), stored per user. */
export function createVerifier(poolId: string, userId: string, password: string, saltHex = randomBytes(16).toString('hex')): { salt: string; verifier: string } {
  const x = privateX(srpPoolName(poolId), userId, password, saltHex);
  return { salt: saltHex, verifier: modPow(g, x, N).toString(16) };
}

/** B = (k·v + g^b) mod N, hex. */
export const serverPublic = (bHex: string, verifierHex: string): string =>
  ((k * BigInt(`0x${verifierHex}`) + modPow(g, BigInt(`0x${bHex}`), N)) % N).toString(16);

/** The server's ephemeral pair: b (256 random bits) and B, both hex. */
export function serverEphemeral(verifierHex: string): { b: string; B: string } {
  for (;;) {
    const b = randomBytes(32).toString('hex');
    const B = serverPublic(b, verifierHex);
    if (BigInt(`0x${B}`) !== 0n) return { b, B };
  }
}

/** Parses the client's SRP_A (hex); undefined when malformed or A mod N = 0 (the client must then be refused). */
export function parseA(hex: string): bigint | undefined {
  if (!/^[0-9a-fA-F]{1,1024}$/.test(hex)) return undefined;
  const A = BigInt(`0x${hex}`);
  return A % N === 0n ? undefined : A;
}

/** The 16-byte session key both sides derive: S = (A·v^u)^b mod N here, HKDF as Cognito. */
export function sessionKey(A: bigint, Bhex: string, bHex: string, verifierHex: string): Buffer | undefined {
  const B = BigInt(`0x${Bhex}`);
  const u = hashHex(padHex(A) + padHex(B));
  if (u === 0n) return undefined;
  const v = BigInt(`0x${verifierHex}`);
  const S = modPow((A * modPow(v, u, N)) % N, BigInt(`0x${bHex}`), N);
  return Buffer.from(hkdfSync('sha256', Buffer.from(padHex(S), 'hex'), Buffer.from(padHex(u), 'hex'), INFO, 16));
}

/** HMAC-SHA256(key, poolName | userId | secretBlock | timestamp): the PASSWORD_CLAIM_SIGNATURE. */
export function claimSignature(key: Buffer, poolId: string, userId: string, secretBlock: Buffer, timestamp: string): Buffer {
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(srpPoolName(poolId), 'utf8'), Buffer.from(userId, 'utf8'), secretBlock, Buffer.from(timestamp, 'utf8')]))
    .digest();
}

export function signatureMatches(expected: Buffer, givenBase64: string): boolean {
  const given = Buffer.from(givenBase64, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Cognito's TIMESTAMP, `ddd MMM D HH:mm:ss UTC YYYY` (day not padded): "Thu Nov 26 04:00:00 UTC 2026". */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** The instant of a TIMESTAMP, or undefined when it is not in Cognito's format (or names a wrong weekday). */
export function parseTimestamp(text: string): number | undefined {
  const m = /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) UTC (\d{4})$/.exec(text);
  if (!m) return undefined;
  const [, wd, mon, day, hh, mm, ss, yyyy] = m as unknown as [string, string, string, string, string, string, string, string];
  const ms = Date.UTC(Number(yyyy), MONTHS.indexOf(mon), Number(day), Number(hh), Number(mm), Number(ss));
  const d = new Date(ms);
  if (d.getUTCDate() !== Number(day) || WEEKDAYS[d.getUTCDay()] !== wd || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return undefined;
  return ms;
}
