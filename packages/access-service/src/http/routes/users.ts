import type { FastifyInstance } from 'fastify';
import { displayAttributes } from '../../directory/data-attributes.js';
import type { Directory } from '../../directory/directory.js';
import type { NewUser, UserPatch, UserRecord } from '../../directory/types.js';
import { invalid } from '../../errors.js';
import { adminErrors, bearer, errorReply, listQuery, newUser, param, user, userPatch } from '../schemas.js';

/** A user as the admin API shows it. */
export function userView(record: UserRecord) {
  return { ...record, attributes: displayAttributes(record.attributes) };
}

const idParam = param('id', 'The user id (the user name from the token)');
const notFoundReply = { 404: { ...errorReply, description: 'Unknown user' } };

/** Admin API over users (SPEC §6). */
export function registerUserRoutes(app: FastifyInstance, directory: Directory): void {
  app.get<{ Querystring: { limit?: string; offset?: string; active?: 'true' | 'false' } }>(
    '/users',
    {
      config: { auth: 'admin', audit: 'user.list' },
      schema: {
        summary: 'List users',
        tags: ['admin'],
        security: bearer,
        querystring: listQuery,
        response: {
          200: { type: 'object', properties: { users: { type: 'array', items: user }, total: { type: 'integer' } }, required: ['users', 'total'] },
          ...adminErrors,
          400: errorReply,
        },
      },
    },
    async (request) => {
      const limit = request.query.limit === undefined ? 100 : Number(request.query.limit);
      if (limit < 1 || limit > 1000) throw invalid('limit must be between 1 and 1000');
      const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
      const active = request.query.active === undefined ? undefined : request.query.active === 'true';
      const { users, total } = directory.listUsers({ limit, offset, ...(active === undefined ? {} : { active }) });
      return { users: users.map(userView), total };
    },
  );

  app.post<{ Body: NewUser }>(
    '/users',
    {
      config: { auth: 'admin', audit: 'user.create' },
      schema: {
        summary: 'Create a user',
        description: 'Attributes must be defined (POST /attributes) and their values allowed; groups must exist. Active unless `active: false`.',
        tags: ['admin'],
        security: bearer,
        body: newUser,
        response: { 201: user, ...adminErrors, 400: errorReply, 409: { ...errorReply, description: 'The user exists' } },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.body.id, attributes: request.body.attributes, groups: request.body.groups, active: request.body.active };
      const created = directory.createUser(request.body);
      return reply.code(201).header('location', `/users/${encodeURIComponent(created.id)}`).send(userView(created));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/users/:id',
    {
      config: { auth: 'admin', audit: 'user.get' },
      schema: { summary: 'Get a user', tags: ['admin'], security: bearer, params: idParam, response: { 200: user, ...adminErrors, ...notFoundReply } },
    },
    async (request) => {
      request.auditDetail = { target: request.params.id };
      return userView(directory.requireUser(request.params.id));
    },
  );

  app.patch<{ Params: { id: string }; Body: UserPatch }>(
    '/users/:id',
    {
      config: { auth: 'admin', audit: 'user.update' },
      schema: {
        summary: 'Change a user',
        description:
          'Body e.g. `{ "attributes": { "clearance": "S" }, "active": true }`. Named attributes are replaced (null or [] removes one); ' +
          'others stay. `groups` replaces the directory memberships. All or nothing.',
        tags: ['admin'],
        security: bearer,
        params: idParam,
        body: userPatch,
        response: { 200: user, ...adminErrors, 400: errorReply, ...notFoundReply },
      },
    },
    async (request) => {
      request.auditDetail = { target: request.params.id, changes: request.body };
      return userView(directory.updateUser(request.params.id, request.body));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/users/:id',
    {
      config: { auth: 'admin', audit: 'user.delete' },
      schema: {
        summary: 'Delete a user',
        tags: ['admin'],
        security: bearer,
        params: idParam,
        response: { 204: { type: 'null', description: 'Deleted' }, ...adminErrors, ...notFoundReply },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.params.id };
      directory.deleteUser(request.params.id);
      return reply.code(204).send();
    },
  );

  app.put<{ Params: { id: string }; Body: { issuer: string; subject: string } }>(
    '/users/:id/subject',
    {
      config: { auth: 'admin', audit: 'user.link' },
      schema: {
        summary: 'Link a user to a token identity (iss, sub)',
        description: 'The entry then belongs to tokens with this issuer and subject, whatever their e-mail address. 409 when either side is linked elsewhere.',
        tags: ['admin'],
        security: bearer,
        params: idParam,
        body: {
          type: 'object',
          properties: { issuer: { type: 'string', minLength: 1 }, subject: { type: 'string', minLength: 1 } },
          required: ['issuer', 'subject'],
          additionalProperties: false,
        },
        response: { 200: user, ...adminErrors, 400: errorReply, ...notFoundReply, 409: { ...errorReply, description: 'Linked elsewhere' } },
      },
    },
    async (request) => {
      request.auditDetail = { target: request.params.id, issuer: request.body.issuer, subject: request.body.subject };
      return userView(directory.linkSubject(request.params.id, request.body.issuer, request.body.subject));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/users/:id/subject',
    {
      config: { auth: 'admin', audit: 'user.unlink' },
      schema: {
        summary: "Remove a user's token identity link",
        tags: ['admin'],
        security: bearer,
        params: idParam,
        response: { 200: user, ...adminErrors, ...notFoundReply },
      },
    },
    async (request) => {
      request.auditDetail = { target: request.params.id };
      return userView(directory.unlinkSubject(request.params.id));
    },
  );
}
