/** The pool's password policy (Cognito `PasswordPolicyType`), checked on every password set. */
import { IdpError } from '../errors.js';

export interface PasswordPolicy {
  MinimumLength: number;
  RequireUppercase: boolean;
  RequireLowercase: boolean;
  RequireNumbers: boolean;
  RequireSymbols: boolean;
  TemporaryPasswordValidityDays: number;
}

/** Cognito's defaults for a new pool. */
export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  MinimumLength: 8,
  RequireUppercase: true,
  RequireLowercase: true,
  RequireNumbers: true,
  RequireSymbols: true,
  TemporaryPasswordValidityDays: 7,
};

/** The symbols Cognito counts as special characters. */
const SYMBOLS = '^$*.[]{}()?"!@#%&/\\,><\':;|_~`=+- ';

/** Throws `InvalidPasswordException` naming the first rule the password breaks. */
export function checkPasswordPolicy(password: string, policy: PasswordPolicy): void {
  const fail = (why: string): never => {
    throw new IdpError('InvalidPasswordException', `Password did not conform with policy: ${why}`);
  };
  if ([...password].length < policy.MinimumLength) fail('Password not long enough');
  if (password.length > 256) fail('Password too long');
  if (/^\s|\s$/.test(password)) fail('Password must not begin or end with a space');
  if (policy.RequireLowercase && !/[a-z]/.test(password)) fail('Password must have lowercase characters');
  if (policy.RequireUppercase && !/[A-Z]/.test(password)) fail('Password must have uppercase characters');
  if (policy.RequireNumbers && !/[0-9]/.test(password)) fail('Password must have numeric characters');
  if (policy.RequireSymbols && ![...password].some((c) => SYMBOLS.includes(c)))
    fail('Password must have symbol characters');
}
