import type { FastifyInstance } from 'fastify';
import type { Directory } from '../../directory/directory.js';
import type { NewGroup } from '../../directory/types.js';
import { adminErrors, bearer, errorReply, group, newGroup, param } from '../schemas.js';

/** Admin API over groups (SPEC §6). */
export function registerGroupRoutes(app: FastifyInstance, directory: Directory): void {
  app.get(
    '/groups',
    {
      config: { auth: 'admin', audit: 'group.list' },
      schema: {
        summary: 'List groups with their directory members',
        tags: ['admin'],
        security: bearer,
        response: { 200: { type: 'object', properties: { groups: { type: 'array', items: group } }, required: ['groups'] }, ...adminErrors },
      },
    },
    async () => ({ groups: directory.listGroups() }),
  );

  app.post<{ Body: NewGroup }>(
    '/groups',
    {
      config: { auth: 'admin', audit: 'group.create' },
      schema: {
        summary: 'Create a group',
        description: 'A group name is a label word; members of a group get a boolean attribute of its name.',
        tags: ['admin'],
        security: bearer,
        body: newGroup,
        response: { 201: group, ...adminErrors, 400: errorReply, 409: { ...errorReply, description: 'The group exists' } },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.body.name };
      const created = directory.createGroup(request.body);
      return reply.code(201).send(created);
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/groups/:name',
    {
      config: { auth: 'admin', audit: 'group.delete' },
      schema: {
        summary: 'Delete a group and its directory memberships',
        tags: ['admin'],
        security: bearer,
        params: param('name', 'The group name'),
        response: { 204: { type: 'null', description: 'Deleted' }, ...adminErrors, 404: { ...errorReply, description: 'Unknown group' } },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.params.name };
      directory.deleteGroup(request.params.name);
      return reply.code(204).send();
    },
  );
}
