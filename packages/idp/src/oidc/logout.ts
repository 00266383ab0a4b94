/**
 * `GET /logout` (Cognito: `client_id` + `logout_uri`; OIDC RP-initiated logout:
 * `post_logout_redirect_uri`). The IdP keeps no browser session, so there is nothing to clear;
 * the target must be one of the client's registered LogoutURLs, or a plain page is shown.
 */
import type { FastifyInstance } from 'fastify';
import type { IdpContext } from '../context.js';
import { findClient } from '../model/clients.js';
import { redirectTo } from './authorize-request.js';
import { messagePage, sendHtml } from './html.js';

const str = { type: 'string', maxLength: 16_384 } as const;
const logoutQuery = {
  type: 'object',
  properties: { client_id: str, logout_uri: str, post_logout_redirect_uri: str, state: str, id_token_hint: str },
} as const;

interface LogoutQuery {
  client_id?: string;
  logout_uri?: string;
  post_logout_redirect_uri?: string;
  state?: string;
}

export async function logoutRoutes(app: FastifyInstance, ctx: IdpContext): Promise<void> {
  app.get<{ Querystring: LogoutQuery }>('/logout', { schema: { querystring: logoutQuery } }, async (request, reply) => {
    const q = request.query;
    const target = q.logout_uri ?? q.post_logout_redirect_uri;
    if (!target) return sendHtml(reply, 200, messagePage('Signed out', 'You are signed out. You can close this window.'));
    const client = q.client_id ? findClient(ctx.db, q.client_id) : undefined;
    if (!client || !client.config.LogoutURLs.includes(target))
      return sendHtml(reply, 400, messagePage('Sign-out request not valid', 'The sign-out address is not registered for this application.'));
    return reply.redirect(q.state ? redirectTo(target, { state: q.state }) : target, 302);
  });
}
