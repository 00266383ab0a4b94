/**
 * Client authentication at the token and revocation endpoints: `client_secret_basic`,
 * `client_secret_post`, or `none` for clients without a secret (which then rely on PKCE).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { IdpContext } from '../context.js';
import { findClient, type Client } from '../model/clients.js';

export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function authenticateClient(ctx: IdpContext, request: FastifyRequest, form: Record<string, string | undefined>): Client {
  let id = form.client_id;
  let secret = form.client_secret;
  const header = request.headers.authorization;
  if (header?.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials.', 401);
    try {
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw new OAuthError('invalid_client', 'Malformed Basic credentials.', 401);
    }
    if (form.client_id !== undefined && form.client_id !== id)
      throw new OAuthError('invalid_request', 'client_id does not match the Basic credentials.');
  }
  const client = id ? findClient(ctx.db, id) : undefined;
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  if (client.secret !== null && (secret === undefined || !equal(secret, client.secret)))
    throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  return client;
}
