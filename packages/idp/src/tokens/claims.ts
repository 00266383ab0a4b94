/** How a user's attributes become JWT claims (`*_verified` are booleans, `updated_at` a number). */
import type { Group } from '../model/groups.js';

export function attributeClaims(attributes: Record<string, string>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'email_verified' || name === 'phone_number_verified') out[name] = value === 'true';
    else if (name === 'updated_at') out[name] = Number(value);
    else out[name] = value;
  }
  return out;
}

/** `cognito:groups` (and the role claims Cognito adds when groups carry an IAM role). */
export function groupClaims(groups: readonly Group[]): Record<string, string | string[]> {
  if (groups.length === 0) return {};
  const claims: Record<string, string | string[]> = { 'cognito:groups': groups.map((g) => g.name) };
  const roles = groups.flatMap((g) => (g.roleArn ? [g.roleArn] : []));
  if (roles.length > 0 && roles[0]) {
    claims['cognito:roles'] = roles;
    claims['cognito:preferred_role'] = roles[0];
  }
  return claims;
}
