/**
 * ListUsers with Cognito's `Filter`: `attribute = "value"` (exact) or `attribute ^= "value"`
 * (prefix), on the attributes Cognito allows filtering on.
 */
import { invalidParameter } from '../../errors.js';
import { requirePool } from '../../model/pools.js';
import { listUsers, type User } from '../../model/users.js';
import { operation } from '../operation.js';
import { paginate } from '../pagination.js';
import { arr, Limit, NextToken, obj, str, UserPoolId } from '../schema.js';
import { userShape } from '../shapes.js';

const FILTERABLE = new Set([
  'username',
  'email',
  'phone_number',
  'name',
  'given_name',
  'family_name',
  'preferred_username',
  'cognito:user_status',
  'status',
  'sub',
]);

export type UserFilter = (user: User) => boolean;

/** Parses a Cognito filter expression; an empty filter matches everyone. */
export function parseUserFilter(filter: string | undefined): UserFilter {
  if (!filter || filter.trim() === '') return () => true;
  const m = /^\s*([\w:]+)\s*(\^?=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(filter);
  if (!m) throw invalidParameter('Error while parsing filter.');
  const [, attribute = '', op, raw = ''] = m;
  if (!FILTERABLE.has(attribute)) throw invalidParameter(`Invalid search attribute: ${attribute}`);
  const value = raw.replace(/\\(.)/g, '$1');
  const read = (u: User): string | undefined => {
    switch (attribute) {
      case 'username':
        return u.username;
      case 'sub':
        return u.sub;
      case 'cognito:user_status':
        return u.status;
      case 'status':
        return u.enabled ? 'Enabled' : 'Disabled';
      default:
        return u.attributes[attribute];
    }
  };
  return op === '='
    ? (u) => read(u) === value
    : (u) => (read(u) ?? '').toLowerCase().startsWith(value.toLowerCase());
}

export const listUsersOperations = [
  operation<{ UserPoolId: string; Filter?: string; Limit?: number; PaginationToken?: string; AttributesToGet?: string[] }>(
    'ListUsers',
    true,
    obj({ UserPoolId, Filter: { type: 'string', maxLength: 256 }, Limit, PaginationToken: NextToken, AttributesToGet: arr(str(1, 32)) }, [
      'UserPoolId',
    ]),
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      const matches = listUsers(ctx.db, body.UserPoolId).filter(parseUserFilter(body.Filter));
      const page = paginate(matches, (u) => u.username.toLowerCase() + '\u0000' + u.sub, body.Limit, body.PaginationToken);
      return {
        Users: page.items.map((u) => userShape(u, body.AttributesToGet)),
        ...(page.next ? { PaginationToken: page.next } : {}),
      };
    },
  ),
];
