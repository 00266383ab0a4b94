/**
 * The one place a self-registered user coming into being is announced: the user-created webhook
 * (`ctx.notifyUserCreated`, as AdminCreateUser and the seed do) and `IdpConfig.onUserCreated` (none by
 * default) are called once a self-registered user is confirmed (ConfirmSignUp, AdminConfirmSignUp).
 * A failing callback is logged (the user's `sub` and the error's message, nothing else) and does
 * not undo the confirmation: the user exists either way.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { UserCreatedEvent } from '../config.js';
import type { IdpContext } from '../context.js';
import { groupsOfUser } from '../model/groups.js';
import type { User } from '../model/users.js';

export async function announceUserCreated(ctx: IdpContext, user: User, via: UserCreatedEvent['via'], log: FastifyBaseLogger): Promise<void> {
  // The configured webhook (events/user-created.ts: the access service's provisioning) hears of
  // a self-registered user as of one an administrator created; it never throws nor waits.
  ctx.notifyUserCreated(user.poolId, user);
  if (!ctx.onUserCreated) return;
  const event: UserCreatedEvent = {
    poolId: user.poolId,
    sub: user.sub,
    username: user.username,
    attributes: { ...user.attributes },
    groups: groupsOfUser(ctx.db, user.sub).map((g) => g.name),
    via,
  };
  try {
    await ctx.onUserCreated(event);
  } catch (err) {
    log.warn({ sub: user.sub, reason: err instanceof Error ? err.message : String(err) }, 'onUserCreated callback failed');
  }
}
