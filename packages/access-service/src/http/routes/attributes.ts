import type { FastifyInstance } from 'fastify';
import type { Directory } from '../../directory/directory.js';
import type { NewAttributeDefinition } from '../../directory/types.js';
import { notFound } from '../../errors.js';
import { adminErrors, bearer, definition, errorReply, newDefinition, param } from '../schemas.js';

const nameParam = param('name', 'The attribute name');
const notFoundReply = { 404: { ...errorReply, description: 'Unknown attribute' } };

/** Admin API over attribute definitions (SPEC §6). */
export function registerAttributeRoutes(app: FastifyInstance, directory: Directory): void {
  app.get(
    '/attributes',
    {
      config: { auth: 'admin', audit: 'attribute.list' },
      schema: {
        summary: 'List attribute definitions',
        tags: ['admin'],
        security: bearer,
        response: { 200: { type: 'object', properties: { attributes: { type: 'array', items: definition } }, required: ['attributes'] }, ...adminErrors },
      },
    },
    async () => ({ attributes: directory.listDefinitions() }),
  );

  app.post<{ Body: NewAttributeDefinition }>(
    '/attributes',
    {
      config: { auth: 'admin', audit: 'attribute.put' },
      schema: {
        summary: 'Define (or redefine) an attribute',
        description:
          'Body `{ "name", "description"?, "values"?, "hierarchy"? }`. A user value must be among `values` when given, else among the tiers ' +
          'of the hierarchy of the same name when there is one, else anything. `hierarchy` sets (a list) or removes (null) that hierarchy. ' +
          '201 when created, 200 when replaced; 409 when users hold values the new definition would not allow.',
        tags: ['admin'],
        security: bearer,
        body: newDefinition,
        response: { 200: definition, 201: definition, ...adminErrors, 400: errorReply, 409: { ...errorReply, description: 'Values in use would be stranded' } },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.body.name, values: request.body.values, hierarchy: request.body.hierarchy };
      const { definition: stored, created } = directory.putDefinition(request.body);
      return reply.code(created ? 201 : 200).send(stored);
    },
  );

  app.get<{ Params: { name: string } }>(
    '/attributes/:name',
    {
      config: { auth: 'admin', audit: 'attribute.get' },
      schema: { summary: 'Get an attribute definition', tags: ['admin'], security: bearer, params: nameParam, response: { 200: definition, ...adminErrors, ...notFoundReply } },
    },
    async (request) => {
      request.auditDetail = { target: request.params.name };
      const found = directory.getDefinition(request.params.name);
      if (found === undefined) throw notFound(`attribute ${JSON.stringify(request.params.name)}`);
      return found;
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/attributes/:name',
    {
      config: { auth: 'admin', audit: 'attribute.delete' },
      schema: {
        summary: 'Delete an attribute definition no user holds',
        tags: ['admin'],
        security: bearer,
        params: nameParam,
        response: { 204: { type: 'null', description: 'Deleted' }, ...adminErrors, ...notFoundReply, 409: { ...errorReply, description: 'Users hold the attribute' } },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.params.name };
      directory.deleteDefinition(request.params.name);
      return reply.code(204).send();
    },
  );
}
