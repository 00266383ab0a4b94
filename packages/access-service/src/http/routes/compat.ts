/**
 * The routes of `compat: reference` (src/compat.ts; packages/access-service/README.md "Reference
 * compatibility"): `/users/lookup/{user}` and `/hierarchies/lookup/{name}` in the reference's
 * shapes, and the reference's `/users/retrieve/{sub}`, `/user-info/self` and `/countries`.
 */
import { AuthError } from '@ianode/auth';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import countries from 'i18n-iso-countries';
import { dataNameOf, hierarchyUuid, referenceAttributes, userNameOf, type CompatConfig } from '../../compat.js';
import { displayAttributes, effectiveGroups } from '../../directory/data-attributes.js';
import type { Directory } from '../../directory/directory.js';
import type { UserRecord } from '../../directory/types.js';
import { conflict, notFound } from '../../errors.js';
import type { Provisioner } from '../../provisioning.js';
import { authErrors, bearer, errorReply, param } from '../schemas.js';
import { sightingOf } from './self.js';

const str = { type: 'string' } as const;
const strList = { type: 'array', items: str } as const;

const referenceLookup = {
  type: 'object',
  description: "The reference's lookup answer: data-side names, single-quoted values, each group as G:and and G:or",
  properties: {
    id: str,
    attributes: { ...strList, example: ["classification='S'", "permitted_nationalities='GBR'", 'ianode_read:and', 'ianode_read:or'] },
    active: { type: 'boolean', description: 'Not in the reference (its clients ignore it): false for an inactive entry, whose attributes are empty' },
  },
  required: ['id', 'attributes'],
} as const;

const referenceHierarchy = {
  type: 'object',
  properties: {
    uuid: { type: 'string', description: 'A stable id derived from the hierarchy name' },
    name: { type: ['string', 'null'], description: 'The data-side attribute name' },
    tiers: { ...strList, description: 'Least to most privileged' },
    readonly: { type: 'boolean', description: 'Always false: hierarchies are edited through the admin API' },
  },
  required: ['uuid', 'name', 'tiers', 'readonly'],
} as const;

const userInfo = {
  type: 'object',
  properties: {
    username: { type: ['string', 'null'] },
    active: { type: 'boolean' },
    email: { type: ['string', 'null'] },
    userId: str,
    attributes: { type: 'object', additionalProperties: { anyOf: [str, strList] }, description: 'User-side attribute names' },
    groups: strList,
  },
  required: ['username', 'active', 'email', 'userId', 'attributes', 'groups'],
} as const;

const lookupErrors = {
  ...authErrors,
  401: { ...errorReply, description: 'No token (and not a trusted client with compat.unauthenticatedLookup), or a bad one' },
  403: { ...errorReply, description: "Another user's entry without the admin group" },
  404: { ...errorReply, description: 'Unknown user' },
  409: { ...errorReply, description: 'The name matches several entries' },
} as const;

/** One entry by candidate ids; several is a conflict (the reference would answer an arbitrary one). */
function single(directory: Directory, ids: readonly string[], what: string): UserRecord | undefined {
  if (ids.length > 1) throw conflict(`${what} matches ${ids.length} directory entries; look it up by directory id`);
  return ids.length === 1 ? directory.getUser(ids[0]!) : undefined;
}

export function registerCompatRoutes(
  app: FastifyInstance,
  directory: Directory,
  compat: CompatConfig,
  options: { linkByEmail: boolean; provisioner: Provisioner },
): void {
  const { provisioner } = options;
  const countryList = Object.entries(countries.getNames('en', { select: 'official' }))
    .map(([alpha2, name]) => ({ name, alpha2, alpha3: countries.alpha2ToAlpha3(alpha2) ?? '' }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));

  /**
   * The entry a lookup names and the token groups to add, or the errors of SPEC §6: a caller with a
   * token may look up itself (its subject, or its entry by id or e-mail) or, with the admin group,
   * anyone; an anonymous trusted client anyone.
   */
  function target(request: FastifyRequest, find: () => UserRecord | undefined, isOwnSubject: boolean): { user: UserRecord; groups: readonly string[] } {
    if (request.anonymousLookup === true) {
      const user = find();
      if (user === undefined) throw notFound('user');
      return { user, groups: user.tokenGroups };
    }
    const caller = request.caller!;
    let own = caller.resolution.user;
    if (own === undefined && isOwnSubject && !('conflict' in caller.resolution && caller.resolution.conflict !== undefined) && provisioner.matches(caller.groups)) {
      own = directory.resolveSubject(sightingOf(caller.token), { linkByEmail: options.linkByEmail, create: true }).user;
    }
    if (isOwnSubject) {
      if (own === undefined) throw notFound('user');
      return { user: provisioner.apply(directory.observe(own.id, sightingOf(caller.token)), caller.groups, 'lookup'), groups: caller.groups };
    }
    let user: UserRecord | undefined;
    try {
      user = find();
    } catch (error) {
      // Whether a name matches several entries is not for a caller who may not look them up.
      if (!caller.isAdmin) throw new AuthError('FORBIDDEN', 'a token may look up only its own user unless it carries the admin group');
      throw error;
    }
    if (user !== undefined && own !== undefined && user.id === own.id) {
      return { user: provisioner.apply(directory.observe(own.id, sightingOf(caller.token)), caller.groups, 'lookup'), groups: caller.groups };
    }
    if (!caller.isAdmin) throw new AuthError('FORBIDDEN', 'a token may look up only its own user unless it carries the admin group');
    if (user === undefined) throw notFound('user');
    return { user, groups: user.tokenGroups };
  }

  const answer = (request: FastifyRequest, user: UserRecord, groups: readonly string[]) => {
    const attributes = referenceAttributes(compat, user, groups);
    request.auditDetail = { ...request.auditDetail, target: user.id, attributes, ...(request.anonymousLookup === true ? { unauthenticated: true } : {}) };
    return { id: user.id, attributes, active: user.active };
  };

  app.get<{ Params: { user: string } }>(
    '/users/lookup/:user',
    {
      config: { auth: 'lookup', audit: 'lookup' },
      schema: {
        summary: "A user's attribute strings, in the reference's format (compat: reference)",
        description:
          '`{user}` is an e-mail address (as the reference), a directory id, or the caller\'s own subject. Attributes are ' +
          "`data_name='value'` per user attribute (names mapped by compat.attributeNames; unmapped names unchanged, null-mapped left out), " +
          'then `G:and` for every group, then `G:or` for every group. Needs the user\'s own token or one with the admin group, unless ' +
          'compat.unauthenticatedLookup lets a trusted client in without one.',
        tags: ['self'],
        security: bearer,
        params: param('user', 'An e-mail address, a directory id, or the caller\'s subject'),
        response: { 200: referenceLookup, ...lookupErrors },
      },
    },
    async (request) => {
      const name = request.params.user;
      request.auditDetail = { target: name };
      const find = () => directory.getUser(name) ?? single(directory, directory.idsByEmail(name), 'the e-mail address');
      const isOwnSubject = request.caller !== undefined && name === request.caller.subject;
      const { user, groups } = target(request, find, isOwnSubject);
      return answer(request, user, groups);
    },
  );

  app.get<{ Params: { sub: string } }>(
    '/users/retrieve/:sub',
    {
      config: { auth: 'lookup', audit: 'lookup' },
      schema: {
        summary: "A user's attribute strings by the token subject, in the reference's format (compat: reference)",
        description: 'As `/users/lookup/{user}`, the user named by the subject (`sub`) its entry is linked to.',
        tags: ['self'],
        security: bearer,
        params: param('sub', 'The subject of the user\'s token'),
        response: { 200: referenceLookup, ...lookupErrors },
      },
    },
    async (request) => {
      const sub = request.params.sub;
      request.auditDetail = { target: sub };
      const find = () => single(directory, directory.idsBySubject(sub), 'the subject');
      const isOwnSubject = request.caller !== undefined && sub === request.caller.subject;
      const { user, groups } = target(request, find, isOwnSubject);
      return answer(request, user, groups);
    },
  );

  app.get(
    '/user-info/self',
    {
      config: { auth: 'user', audit: 'user-info' },
      schema: {
        summary: "The caller's entry in the reference's user-info shape (compat: reference)",
        description: 'User-side attribute names. An identity without a directory entry gets 404 (use /whoami to be recorded).',
        tags: ['self'],
        security: bearer,
        response: { 200: userInfo, ...authErrors, 404: { ...errorReply, description: 'No directory entry for this identity' } },
      },
    },
    async (request) => {
      const caller = request.caller!;
      const user = caller.resolution.user;
      if (user === undefined) throw notFound('user');
      request.auditDetail = { target: user.id };
      return {
        username: user.name ?? user.username ?? user.email ?? user.id,
        active: user.active,
        email: user.email,
        userId: user.id,
        attributes: displayAttributes(user.attributes),
        groups: effectiveGroups(user, caller.groups),
      };
    },
  );

  app.get(
    '/countries',
    {
      config: { auth: 'user' },
      schema: {
        summary: 'ISO 3166-1 countries: name, alpha-2 and alpha-3 codes (compat: reference)',
        tags: ['self'],
        security: bearer,
        response: {
          200: { type: 'array', items: { type: 'object', properties: { name: str, alpha2: str, alpha3: str }, required: ['name', 'alpha2', 'alpha3'] } },
          ...authErrors,
        },
      },
    },
    async () => countryList,
  );

  app.get<{ Params: { name: string }; Querystring: { isUserAttribute?: string } }>(
    '/hierarchies/lookup/:name',
    {
      config: { auth: 'public' },
      schema: {
        summary: "The tiers of a hierarchy by its data-side name, in the reference's shape (compat: reference)",
        description:
          'Public, as ianode\'s own hierarchy lookup. `{name}` is the data-side attribute name (`classification`); with ' +
          '`?isUserAttribute=true` the user-side name (`clearance`).',
        tags: ['self'],
        params: param('name', 'The data-side attribute name (or the user-side one with isUserAttribute=true)'),
        querystring: { type: 'object', properties: { isUserAttribute: { type: 'string', description: 'true: {name} is the user-side name' } } },
        response: { 200: referenceHierarchy, 404: { ...errorReply, description: 'Unknown hierarchy' }, 503: errorReply },
      },
    },
    async (request) => {
      const name = request.params.name;
      const byUserName = request.query.isUserAttribute?.toLowerCase() === 'true';
      const userName = byUserName ? name : userNameOf(compat, name);
      const found = userName === undefined ? undefined : directory.getHierarchy(userName);
      if (found === undefined || userName === undefined) throw notFound(`hierarchy ${JSON.stringify(name)}`);
      return { uuid: hierarchyUuid(found.name), name: dataNameOf(compat, userName), tiers: found.tiers, readonly: false };
    },
  );
}
