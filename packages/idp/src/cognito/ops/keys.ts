/**
 * `IanodeIdp.RotateSigningKey` (an extension, SigV4-signed like the admin operations): adds a new
 * signing key to the pool; the old one stays published until the tokens it signed expire.
 */
import { requirePool } from '../../model/pools.js';
import { operation } from '../operation.js';
import { obj, UserPoolId } from '../schema.js';

export const EXTENSION_PREFIX = 'IanodeIdp';

export const keyOperations = [
  operation<{ UserPoolId: string }>(
    'RotateSigningKey',
    true,
    obj({ UserPoolId }, ['UserPoolId']),
    async (ctx, body) => {
      const pool = requirePool(ctx.db, body.UserPoolId);
      const { kid, previousKid } = await ctx.keys.rotate(pool.id);
      return { UserPoolId: pool.id, Kid: kid, PreviousKid: previousKid };
    },
    EXTENSION_PREFIX,
  ),
];
