/**
 * `GET|POST /oauth2/userInfo` with `Authorization: Bearer <access token>`: the IdP verifies the token
 * itself (`tokens/verify.ts`) and returns the claims its scopes allow (OIDC Core §5.4).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdpContext } from '../context.js';
import { IdpError } from '../errors.js';
import { attributeClaims } from '../tokens/claims.js';
import { API_SCOPE } from '../tokens/issue.js';
import { verifyAccessToken } from '../tokens/verify.js';

const SCOPE_CLAIMS: Record<string, readonly string[]> = {
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
};

export function userInfoClaims(scopes: readonly string[], sub: string, username: string, attributes: Record<string, string>) {
  const all = attributeClaims(attributes);
  const out: Record<string, string | number | boolean> = { sub, username };
  const everything = scopes.includes(API_SCOPE);
  for (const [name, value] of Object.entries(all)) {
    const byScope = Object.entries(SCOPE_CLAIMS).find(([, names]) => names.includes(name))?.[0];
    if (everything || (byScope ? scopes.includes(byScope) : scopes.includes('profile'))) out[name] = value;
  }
  return out;
}

function invalidToken(reply: FastifyReply, description: string): FastifyReply {
  return reply
    .code(401)
    .header('www-authenticate', `Bearer realm="ianode-idp", error="invalid_token", error_description="${description.replace(/"/g, "'")}"`)
    .header('cache-control', 'no-store')
    .send({ error: 'invalid_token', error_description: description });
}

export async function userInfoRoutes(app: FastifyInstance, ctx: IdpContext): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization ?? '';
    const m = /^bearer\s+(\S+)\s*$/i.exec(header);
    if (!m?.[1])
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="ianode-idp"')
        .send({ error: 'invalid_request', error_description: 'An access token is required.' });
    try {
      const { claims, user } = await verifyAccessToken(ctx, m[1]);
      const scopes = String(claims.scope ?? '').split(' ');
      if (!scopes.includes('openid') && !scopes.includes(API_SCOPE)) return invalidToken(reply, 'The token lacks the openid scope.');
      return reply.header('cache-control', 'no-store').send(userInfoClaims(scopes, user.sub, user.username, user.attributes));
    } catch (err) {
      if (err instanceof IdpError && err.status < 500) {
        request.log.info({ code: err.code, reason: err.cause instanceof Error ? err.cause.message : err.cause }, 'userInfo refused');
        return invalidToken(reply, err.message);
      }
      throw err;
    }
  };
  app.get('/oauth2/userInfo', handler);
  app.post('/oauth2/userInfo', handler);
}
