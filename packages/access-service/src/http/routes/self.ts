import { AuthError } from '@ianode/auth';
import type { FastifyInstance } from 'fastify';
import { dataAttributes, displayAttributes, effectiveGroups } from '../../directory/data-attributes.js';
import type { Directory } from '../../directory/directory.js';
import type { Sighting } from '../../directory/types.js';
import { notFound } from '../../errors.js';
import type { Caller } from '../context.js';
import { authErrors, bearer, errorReply, lookup, param, whoami } from '../schemas.js';

/** What a caller's verified token says about their profile. */
export function sightingOf(caller: Caller): Sighting {
  const claims = caller.token.claims;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const joined = [text(claims.given_name), text(claims.family_name)].filter((part) => part !== undefined).join(' ');
  return {
    id: caller.user,
    groups: caller.groups,
    username: text(claims['cognito:username']) ?? text(claims.username) ?? text(claims.preferred_username),
    email: text(claims.email),
    name: text(claims.name) ?? (joined === '' ? undefined : joined),
  };
}

/** `GET /whoami` and `GET /users/lookup/{user}` (SPEC §6). */
export function registerSelfRoutes(app: FastifyInstance, directory: Directory): void {
  app.get(
    '/whoami',
    {
      config: { auth: 'user', audit: 'whoami' },
      schema: {
        summary: "The caller's identity, groups and attributes",
        description: 'An unknown but validly signed user is recorded on first sight as inactive, with no attributes.',
        tags: ['self'],
        security: bearer,
        response: { 200: whoami, ...authErrors },
      },
    },
    async (request) => {
      const caller = request.caller!;
      const { user, created } = directory.observe(sightingOf(caller));
      request.auditDetail = { target: user.id, ...(created ? { recorded: true } : {}) };
      return {
        userId: user.id,
        username: user.username,
        email: user.email,
        name: user.name,
        active: user.active,
        groups: effectiveGroups(user, caller.groups),
        attributes: displayAttributes(user.attributes),
        dataAttributes: dataAttributes(user, caller.groups),
      };
    },
  );

  app.get<{ Params: { user: string } }>(
    '/users/lookup/:user',
    {
      config: { auth: 'user', audit: 'lookup' },
      schema: {
        summary: 'The attribute strings the graph server evaluates labels against',
        description:
          "Needs the user's own token or one carrying the admin group. Attributes are `name=value` per user attribute plus one per group: " +
          "the caller's token groups when looking up oneself, else the groups of the user's token at their last whoami or lookup. " +
          'An inactive user has no attributes.',
        tags: ['self'],
        security: bearer,
        params: param('user', 'The user id (the user name from the token)'),
        response: {
          200: lookup,
          ...authErrors,
          403: { ...errorReply, description: "Another user's token without the admin group" },
          404: { ...errorReply, description: 'Unknown user' },
        },
      },
    },
    async (request) => {
      const caller = request.caller!;
      const target = request.params.user;
      request.auditDetail = { target };
      const self = caller.user === target;
      if (!self && !caller.isAdmin) throw new AuthError('FORBIDDEN', 'a token may look up only its own user unless it carries the admin group');
      let user = directory.getUser(target);
      if (user === undefined) throw notFound(`user ${JSON.stringify(target)}`);
      if (self) user = directory.observe(sightingOf(caller)).user;
      const attributes = dataAttributes(user, self ? caller.groups : user.tokenGroups);
      request.auditDetail.attributes = attributes;
      return { id: user.id, attributes };
    },
  );
}
