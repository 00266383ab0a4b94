import type { FastifyInstance } from 'fastify';
import type { Directory } from '../../directory/directory.js';
import { AccessError } from '../../errors.js';
import { errorReply } from '../schemas.js';

/** `GET /health` and `GET /openapi.json`. */
export function registerMetaRoutes(app: FastifyInstance, directory: Directory): void {
  app.get(
    '/health',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'Liveness: the service runs and its database answers',
        description: 'Does not call the identity provider: a JWKS outage shows as 503 on authenticated routes, not here.',
        tags: ['meta'],
        response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, required: ['status'] }, 503: errorReply },
      },
    },
    async () => {
      try {
        directory.ping();
      } catch (cause) {
        throw new AccessError('STORAGE_UNAVAILABLE', 'the directory database does not answer', { cause });
      }
      return { status: 'ok' as const };
    },
  );

  app.get(
    '/openapi.json',
    {
      config: { auth: 'public' },
      schema: { summary: 'This OpenAPI document', tags: ['meta'], response: { 200: { type: 'object', additionalProperties: true } } },
    },
    async () => app.swagger(),
  );
}
