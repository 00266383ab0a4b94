import { AuthError } from '@ianode/auth';
import type { FastifyInstance } from 'fastify';
import { dataAttributes, displayAttributes, effectiveGroups } from '../../directory/data-attributes.js';
import type { Directory } from '../../directory/directory.js';
import type { Sighting, UserRecord } from '../../directory/types.js';
import { notFound } from '../../errors.js';
import type { VerifiedToken } from '@ianode/auth';
import type { Provisioner } from '../../provisioning.js';
import { authErrors, bearer, errorReply, lookup, param, whoami } from '../schemas.js';

/** What a verified token says about its bearer: the identity (iss, sub) and the profile. */
export function sightingOf(token: VerifiedToken): Sighting {
  const claims = token.claims;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const joined = [text(claims.given_name), text(claims.family_name)].filter((part) => part !== undefined).join(' ');
  return {
    issuer: token.issuer,
    subject: token.subject,
    // Only a real boolean true counts (Cognito sends a boolean; a string "true" is not trusted).
    emailVerified: claims.email_verified === true,
    groups: token.groups,
    username: text(claims['cognito:username']) ?? text(claims.username) ?? text(claims.preferred_username),
    email: text(claims.email),
    name: text(claims.name) ?? (joined === '' ? undefined : joined),
  };
}

/** `GET /whoami` and `GET /users/lookup/{user}` (SPEC §6). */
export function registerSelfRoutes(app: FastifyInstance, directory: Directory, options: { linkByEmail: boolean; provisioner: Provisioner; lookup?: boolean }): void {
  const { provisioner } = options;
  app.get(
    '/whoami',
    {
      config: { auth: 'user', audit: 'whoami' },
      schema: {
        summary: "The caller's identity, groups and attributes",
        description:
          'The caller is the identity (iss, sub) of the token. An unknown but validly signed identity is recorded on first sight as ' +
          'inactive, with no attributes (or, when the service links by e-mail, claims the one unlinked entry of its verified address). ' +
          'An identity whose address another identity has claimed is refused (403). A provisioning rule matching the token\'s groups ' +
          'activates an inactive entry no administrator deactivated.',
        tags: ['self'],
        security: bearer,
        response: { 200: whoami, ...authErrors },
      },
    },
    async (request) => {
      const caller = request.caller!;
      const sighting = sightingOf(caller.token);
      const resolution = caller.resolution.user === undefined && caller.resolution.conflict === undefined
        ? directory.resolveSubject(sighting, { linkByEmail: options.linkByEmail, create: true })
        : caller.resolution;
      if (resolution.user === undefined) {
        request.auditDetail = { conflict: resolution.conflict ?? 'no entry' };
        throw new AuthError('FORBIDDEN', 'this identity has no directory entry: its e-mail address is linked to another identity; ask an administrator');
      }
      const user = provisioner.apply(directory.observe(resolution.user.id, sighting), caller.groups, 'whoami');
      request.caller!.user = user.id;
      request.auditDetail = { target: user.id, ...(resolution.created ? { recorded: true } : {}) };
      return {
        userId: user.id,
        issuer: caller.issuer,
        subject: caller.subject,
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

  // Left to src/http/routes/compat.ts under compat: reference.
  if (options.lookup === false) return;
  app.get<{ Params: { user: string } }>(
    '/users/lookup/:user',
    {
      config: { auth: 'user', audit: 'lookup' },
      schema: {
        summary: 'The attribute strings the graph server evaluates labels against',
        description:
          "`{user}` is the caller's own subject (`sub`, what the graph server asks) or directory id, or, with the admin group, any directory id. " +
          "Needs the user's own token or one carrying the admin group. Attributes are `name=value` per user attribute plus one per group: " +
          "the caller's token groups when looking up oneself, else the groups of the user's token at their last whoami or lookup. " +
          'An inactive user has no attributes.',
        tags: ['self'],
        security: bearer,
        params: param('user', "The caller's subject, or a directory id"),
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
      let own = caller.resolution.user;
      // Unknown to the directory but matching a provisioning rule: recorded now (and activated below).
      if (own === undefined && !('conflict' in caller.resolution && caller.resolution.conflict !== undefined) && target === caller.subject && provisioner.matches(caller.groups)) {
        own = directory.resolveSubject(sightingOf(caller.token), { linkByEmail: options.linkByEmail, create: true }).user;
      }
      const self = target === caller.subject || (own !== undefined && target === own.id);
      if (!self && !caller.isAdmin) throw new AuthError('FORBIDDEN', 'a token may look up only its own user unless it carries the admin group');
      let user: UserRecord | undefined;
      if (self) {
        // Oneself is the entry linked to the token's (iss, sub): never an entry found by a name.
        if (own === undefined) throw notFound(`user ${JSON.stringify(target)}`);
        user = provisioner.apply(directory.observe(own.id, sightingOf(caller.token)), caller.groups, 'lookup');
      } else {
        user = directory.getUser(target);
        if (user === undefined) throw notFound(`user ${JSON.stringify(target)}`);
      }
      const attributes = dataAttributes(user, self ? caller.groups : user.tokenGroups);
      request.auditDetail.attributes = attributes;
      return { id: user.id, attributes, active: user.active };
    },
  );
}
