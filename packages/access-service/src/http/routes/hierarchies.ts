import type { FastifyInstance } from 'fastify';
import type { Directory } from '../../directory/directory.js';
import { invalid, notFound } from '../../errors.js';
import { adminErrors, bearer, errorReply, hierarchy, hierarchyBody, param } from '../schemas.js';

const nameParam = param('name', 'The hierarchy name (the attribute it orders)');
const notFoundReply = { 404: { ...errorReply, description: 'Unknown hierarchy' } };

/** `GET /hierarchies/lookup/{name}` and the admin API over hierarchies (SPEC §6). */
export function registerHierarchyRoutes(app: FastifyInstance, directory: Directory, options: { lookup?: boolean } = {}): void {
  // Under compat: reference the lookup is src/http/routes/compat.ts's.
  if (options.lookup !== false) app.get<{ Params: { name: string } }>(
    '/hierarchies/lookup/:name',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'The tiers of a hierarchy, least to most privileged',
        description: 'Public: tier names are not user data, and the graph server may ask before any user does.',
        tags: ['self'],
        params: nameParam,
        response: { 200: hierarchy, ...notFoundReply, 503: errorReply },
      },
    },
    async (request) => {
      const found = directory.getHierarchy(request.params.name);
      if (found === undefined) throw notFound(`hierarchy ${JSON.stringify(request.params.name)}`);
      return found;
    },
  );

  app.get(
    '/hierarchies',
    {
      config: { auth: 'admin', audit: 'hierarchy.list' },
      schema: {
        summary: 'List hierarchies',
        tags: ['admin'],
        security: bearer,
        response: { 200: { type: 'object', properties: { hierarchies: { type: 'array', items: hierarchy } }, required: ['hierarchies'] }, ...adminErrors },
      },
    },
    async () => ({ hierarchies: directory.listHierarchies() }),
  );

  app.get<{ Params: { name: string } }>(
    '/hierarchies/:name',
    {
      config: { auth: 'admin', audit: 'hierarchy.get' },
      schema: { summary: 'Get a hierarchy', tags: ['admin'], security: bearer, params: nameParam, response: { 200: hierarchy, ...adminErrors, ...notFoundReply } },
    },
    async (request) => {
      request.auditDetail = { target: request.params.name };
      const found = directory.getHierarchy(request.params.name);
      if (found === undefined) throw notFound(`hierarchy ${JSON.stringify(request.params.name)}`);
      return found;
    },
  );

  app.put<{ Params: { name: string }; Body: { name?: string; tiers: string[] } }>(
    '/hierarchies/:name',
    {
      config: { auth: 'admin', audit: 'hierarchy.put' },
      schema: {
        summary: 'Create or replace a hierarchy',
        description: 'Body `{ "tiers": ["O", "OS", "S", "TS"] }`, least to most privileged, distinct. 201 when created, 200 when replaced.',
        tags: ['admin'],
        security: bearer,
        params: nameParam,
        body: hierarchyBody,
        response: {
          200: hierarchy,
          201: hierarchy,
          ...adminErrors,
          400: errorReply,
          409: { ...errorReply, description: 'Users hold values the new tiers would not allow' },
        },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.params.name, tiers: request.body.tiers };
      if (request.body.name !== undefined && request.body.name !== request.params.name) {
        throw invalid(`the body names hierarchy ${JSON.stringify(request.body.name)}, the path ${JSON.stringify(request.params.name)}`);
      }
      const { hierarchy: stored, created } = directory.putHierarchy(request.params.name, request.body.tiers);
      return reply.code(created ? 201 : 200).send(stored);
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/hierarchies/:name',
    {
      config: { auth: 'admin', audit: 'hierarchy.delete' },
      schema: {
        summary: 'Delete a hierarchy',
        tags: ['admin'],
        security: bearer,
        params: nameParam,
        response: { 204: { type: 'null', description: 'Deleted' }, ...adminErrors, ...notFoundReply },
      },
    },
    async (request, reply) => {
      request.auditDetail = { target: request.params.name };
      directory.deleteHierarchy(request.params.name);
      return reply.code(204).send();
    },
  );
}
