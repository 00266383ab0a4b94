import { describe, expect, it } from 'vitest';
import { DEFAULT_COST, hashPassword, verifyPassword } from '../src/crypto/password.js';
import { checkPasswordPolicy, DEFAULT_PASSWORD_POLICY } from '../src/crypto/password-policy.js';
import { IdpError } from '../src/errors.js';

describe('password hashing', () => {
  it('stores scrypt with its parameters and a per-hash salt, never the password', async () => {
    const a = await hashPassword('Secret-pass-1');
    const b = await hashPassword('Secret-pass-1');
    expect(a).toMatch(new RegExp(`^scrypt\\$${DEFAULT_COST.N}\\$8\\$1\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
    expect(a).not.toBe(b);
    expect(a).not.toContain('Secret-pass-1');
    expect(await verifyPassword('Secret-pass-1', a)).toBe(true);
    expect(await verifyPassword('Secret-pass-2', a)).toBe(false);
  });

  it('keeps verifying hashes made with other parameters', async () => {
    const cheap = await hashPassword('Secret-pass-1', { N: 1024, r: 8, p: 1 });
    expect(await verifyPassword('Secret-pass-1', cheap)).toBe(true);
    expect(await verifyPassword('Secret-pass-1', 'plain')).toBe(false);
  });
});

describe('password policy', () => {
  const message = (pw: string, policy = DEFAULT_PASSWORD_POLICY) => {
    try {
      checkPasswordPolicy(pw, policy);
      return 'ok';
    } catch (err) {
      expect(err).toBeInstanceOf(IdpError);
      expect((err as IdpError).code).toBe('InvalidPasswordException');
      return (err as IdpError).message;
    }
  };

  it('enforces length and each character class of the pool policy', () => {
    expect(message('Aa1-')).toMatch(/not long enough/);
    expect(message('AAAAAAA1-')).toMatch(/lowercase/);
    expect(message('aaaaaaa1-')).toMatch(/uppercase/);
    expect(message('Aaaaaaaa-')).toMatch(/numeric/);
    expect(message('Aaaaaaaa1')).toMatch(/symbol/);
    expect(message('Aaaaaaa1-')).toBe('ok');
    expect(message(' Aaaaaaa1-')).toMatch(/space/);
  });

  it('follows a relaxed policy', () => {
    const relaxed = { ...DEFAULT_PASSWORD_POLICY, MinimumLength: 6, RequireSymbols: false, RequireUppercase: false, RequireNumbers: false };
    expect(message('abcdef', relaxed)).toBe('ok');
  });
});
