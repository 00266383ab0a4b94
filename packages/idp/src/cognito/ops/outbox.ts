/**
 * `IanodeIdp.ListMessages` (an extension, SigV4-signed like the admin operations): the outbox of
 * live confirmation codes of a pool, for the operator (or a test) to hand to the user, since the
 * IdP sends no mail. `Username` narrows it to one user.
 */
import { outbox } from '../../model/confirmation-codes.js';
import { requirePool } from '../../model/pools.js';
import { requireUser } from '../../model/users.js';
import { operation } from '../operation.js';
import { obj, Username, UserPoolId } from '../schema.js';
import { epochSeconds } from '../shapes.js';
import { EXTENSION_PREFIX } from './keys.js';

export const outboxOperations = [
  operation<{ UserPoolId: string; Username?: string }>(
    'ListMessages',
    true,
    obj({ UserPoolId, Username }, ['UserPoolId']),
    (ctx, body) => {
      const pool = requirePool(ctx.db, body.UserPoolId);
      const only = body.Username !== undefined ? requireUser(ctx.db, pool, body.Username).sub : undefined;
      const messages = outbox(ctx.db, pool.id, ctx.now(), only);
      return {
        Messages: messages.map((m) => ({
          Username: m.username,
          UserSub: m.sub,
          Purpose: m.purpose,
          DeliveryMedium: 'EMAIL',
          Destination: m.destination,
          Code: m.code,
          CreatedDate: epochSeconds(m.createdAt),
          ExpirationDate: epochSeconds(m.expiresAt),
        })),
      };
    },
    EXTENSION_PREFIX,
  ),
];
