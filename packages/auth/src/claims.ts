import type { JWTPayload } from 'jose';
import { invalidToken } from './errors.js';

/** Claims that name the user, first present wins (SPEC §2). */
export const DEFAULT_USER_CLAIMS: readonly string[] = ['email', 'cognito:username', 'username', 'preferred_username', 'sub'];
/** Claim that lists the caller's groups (SPEC §2). */
export const DEFAULT_GROUPS_CLAIM = 'cognito:groups';

export interface ClaimMapping {
  /** Claims that may hold the user name, in order; the first one holding a non-empty string wins. */
  userClaims?: readonly string[];
  /** Claim that holds the groups. */
  groupsClaim?: string;
}

export interface MappedClaims {
  user: string;
  groups: string[];
}

/**
 * The user name and groups of a verified claim set. The groups claim may be an array of strings
 * (Cognito) or one string of names separated by spaces or commas; anything else counts as no
 * groups. A claim set naming no user is `INVALID_TOKEN` (`no_user_claim`).
 */
export function mapClaims(claims: JWTPayload, mapping: ClaimMapping = {}): MappedClaims {
  const userClaims = mapping.userClaims ?? DEFAULT_USER_CLAIMS;
  let user: string | undefined;
  for (const claim of userClaims) {
    const value = claims[claim];
    if (typeof value === 'string' && value.trim() !== '') {
      user = value;
      break;
    }
  }
  if (user === undefined) throw invalidToken('no_user_claim');
  return { user, groups: groupsOf(claims[mapping.groupsClaim ?? DEFAULT_GROUPS_CLAIM]) };
}

function groupsOf(value: unknown): string[] {
  let names: unknown[];
  if (Array.isArray(value)) names = value;
  else if (typeof value === 'string') names = value.split(/[\s,]+/);
  else return [];
  const groups: string[] = [];
  for (const name of names) {
    if (typeof name === 'string' && name !== '' && !groups.includes(name)) groups.push(name);
  }
  return groups;
}
