/** Random identifiers and secrets (node:crypto CSPRNG only). */
import { createHash, randomBytes, randomInt } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function randomString(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** `local_` + 8 alphanumerics (SPEC §7). */
export const newPoolId = (): string => `local_${randomString(8, ALNUM)}`;
/** 26 lower-case alphanumerics, the shape of a Cognito app client id. */
export const newClientId = (): string => randomString(26, LOWER_ALNUM);
/** 51 lower-case alphanumerics (about 263 bits), the shape of a Cognito client secret. */
export const newClientSecret = (): string => randomString(51, LOWER_ALNUM);
export const newAccessKeyId = (): string => `AKIA${randomString(16, UPPER_ALNUM)}`;
export const newSecretAccessKey = (): string => randomBytes(30).toString('base64');
/** An opaque bearer value (refresh token, challenge session, authorization code): 256 bits. */
export const newOpaqueToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const sha256Hex = (value: string | Buffer): string => createHash('sha256').update(value).digest('hex');
export const sha256Base64Url = (value: string | Buffer): string =>
  createHash('sha256').update(value).digest('base64url');
