/**
 * `POST /labels/audience` (administrators): how many of the directory's users a security label
 * admits — "who could see it" before data is written under it (the web console's upload page).
 * Each active user's attributes are the ones a lookup gives the graph server (`dataAttributes`,
 * with the groups their last token carried), evaluated with the directory's hierarchies by the
 * same evaluator the graph server uses (@ianode/abac). Inactive users see nothing and are not
 * counted as admitted. Administrators only: a count of who holds which attributes is directory
 * information.
 */
import { AttributeSet, hierarchiesOf, LabelEvaluator, LabelSyntaxError, readLabel } from '@ianode/abac';
import type { FastifyInstance } from 'fastify';
import { dataAttributes } from '../../directory/data-attributes.js';
import type { Directory } from '../../directory/directory.js';
import { invalid } from '../../errors.js';
import { adminErrors, bearer, errorReply } from '../schemas.js';

/** At most this many user ids are listed in an answer (the counts are always whole). */
const MAX_LISTED = 1000;

export function registerAudienceRoutes(app: FastifyInstance, directory: Directory): void {
  app.post<{ Body: { label: string; legacy?: boolean } }>(
    '/labels/audience',
    {
      config: { auth: 'admin', audit: 'label.audience' },
      schema: {
        summary: 'Count the users a security label admits',
        description: 'Body `{ "label": "clearance=S && employee", "legacy": true }` (`legacy`: RDF-ABAC\'s one-word fallback, as the graph server\'s `dataset.labels.legacy`; default true). Answer `{ "label", "admitted", "active", "users": [ids] }`.',
        tags: ['admin'],
        security: bearer,
        body: {
          type: 'object',
          required: ['label'],
          additionalProperties: false,
          properties: { label: { type: 'string', maxLength: 65536 }, legacy: { type: 'boolean' } },
        },
        response: {
          200: {
            type: 'object',
            properties: { label: { type: 'string' }, admitted: { type: 'integer' }, active: { type: 'integer' }, users: { type: 'array', items: { type: 'string' } } },
            required: ['label', 'admitted', 'active', 'users'],
          },
          ...adminErrors,
          400: errorReply,
        },
      },
    },
    async (request) => {
      let label: string;
      try {
        label = readLabel(request.body.label, { legacy: request.body.legacy ?? true });
      } catch (error) {
        if (error instanceof LabelSyntaxError || error instanceof TypeError) throw invalid(`label: ${error.message}`);
        throw error;
      }
      request.auditDetail = { label };
      const hierarchies = hierarchiesOf(directory.listHierarchies().map(({ name, tiers }) => [name, tiers] as const));
      const admitted: string[] = [];
      let active = 0;
      for (let offset = 0; ; offset += 1000) {
        const { users } = directory.listUsers({ limit: 1000, offset, active: true });
        for (const user of users) {
          active += 1;
          const evaluator = new LabelEvaluator(AttributeSet.from(dataAttributes(user, user.tokenGroups)), (name) => hierarchies.get(name));
          if (evaluator.isVisible(label)) admitted.push(user.id);
        }
        if (users.length < 1000) break;
      }
      return { label, admitted: admitted.length, active, users: admitted.slice(0, MAX_LISTED) };
    },
  );
}
