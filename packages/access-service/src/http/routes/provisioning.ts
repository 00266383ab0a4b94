import { AuthError, bearerToken, mapClaims, toAuthError } from '@ianode/auth';
import type { FastifyInstance } from 'fastify';
import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Directory } from '../../directory/directory.js';
import type { Sighting } from '../../directory/types.js';
import { conflict } from '../../errors.js';
import { DEFAULT_NOTIFICATION_AUDIENCE, type NotificationSettings, type Provisioner } from '../../provisioning.js';
import { errorReply } from '../schemas.js';

export interface NotificationOptions {
  settings: NotificationSettings;
  /** The IdP's issuer (`OPENID_PROVIDER_URL`): the notification token's `iss`. */
  issuer: string;
  /** The IdP's key set: the user-token verifier's own cache (`TokenVerifier.keys`), not a second one. */
  keys: JWTVerifyGetKey;
  linkByEmail: boolean;
  /** The groups claim the rules are matched against (`GROUPS_KEY`), as for user tokens. */
  groupsClaim: string;
  now?: (() => number) | undefined;
}

/**
 * `POST /provisioning/user-created` (src/provisioning.ts): the IdP says a user was created. The
 * bearer token is a JWT the IdP signed with the pool's key: `iss` the IdP's issuer, `aud` the
 * configured audience, `token_use: user_created`, not older than `maxAgeSeconds`, and each `jti`
 * only once (a replay is refused). The token carries the user (`sub`, profile, groups); the body is
 * not read. No shared secret exists, so none can leak into a log.
 */
export function registerProvisioningRoutes(app: FastifyInstance, directory: Directory, provisioner: Provisioner, options: NotificationOptions): void {
  const audience = options.settings.audience ?? DEFAULT_NOTIFICATION_AUDIENCE;
  const maxAge = options.settings.maxAgeSeconds ?? 120;
  const { keys } = options;
  const now = options.now ?? Date.now;
  /** jti -> expiry (ms) of notification tokens already used. */
  const used = new Map<string, number>();

  app.post(
    '/provisioning/user-created',
    {
      config: { audit: 'user-created' },
      schema: {
        summary: 'The identity provider notifies the creation of a user',
        description:
          'Authorization: Bearer <JWT signed by the IdP with its pool key; aud = the configured audience; token_use = user_created>. ' +
          'The user is recorded (linked to its (iss, sub)); a provisioning rule matching its groups activates it.',
        tags: ['provisioning'],
        response: {
          200: {
            type: 'object',
            properties: { userId: { type: 'string' }, active: { type: 'boolean' }, recorded: { type: 'boolean' } },
          },
          401: errorReply,
          409: errorReply,
        },
      },
    },
    async (request) => {
      const token = bearerToken(request.headers.authorization);
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience,
          algorithms: ['RS256'],
          maxTokenAge: maxAge,
          requiredClaims: ['sub', 'iat', 'exp', 'jti'],
          currentDate: new Date(now()),
        }));
      } catch (error) {
        // The user tokens' mapping: an unreachable key set is 503, anything else a 401 naming why.
        const mapped = toAuthError(error);
        if (mapped.code !== 'INVALID_TOKEN') throw mapped;
        throw new AuthError('INVALID_TOKEN', `not a valid user-creation notification: ${mapped.message}`, { reason: mapped.reason, cause: error });
      }
      if (claims.token_use !== 'user_created') throw new AuthError('INVALID_TOKEN', 'not a user-creation notification (token_use must be user_created)');
      const t = now();
      for (const [jti, exp] of used) if (exp <= t) used.delete(jti);
      if (used.has(claims.jti!)) throw new AuthError('INVALID_TOKEN', 'this notification was used already');
      used.set(claims.jti!, claims.exp! * 1000);
      const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
      // Groups read as the user tokens' are (auth's mapClaims, the configured claim), so a rule's group matches alike.
      const { groups } = mapClaims(claims, { userClaims: ['sub'], groupsClaim: options.groupsClaim });
      const sighting: Sighting = {
        issuer: claims.iss!,
        subject: claims.sub!,
        emailVerified: claims.email_verified === true,
        groups,
        username: text(claims['cognito:username']),
        email: text(claims.email),
        name: text(claims.name),
      };
      const resolution = directory.resolveSubject(sighting, { linkByEmail: options.linkByEmail, create: true });
      if (resolution.user === undefined) {
        request.auditDetail = { conflict: resolution.conflict ?? 'no entry' };
        throw conflict(`the user cannot be recorded: ${resolution.conflict ?? 'no entry'}`);
      }
      const user = provisioner.apply(resolution.user, groups, 'notification');
      request.auditDetail = { target: user.id, subject: sighting.subject, active: user.active, ...(resolution.created ? { recorded: true } : {}) };
      return { userId: user.id, active: user.active, recorded: resolution.created };
    },
  );
}
