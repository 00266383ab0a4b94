/**
 * Validation of an OAuth authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636). Errors
 * before the client and redirect URI are known are shown as a page (never redirected to an
 * unchecked URI); later errors are redirected back to the client with `error` and `state`.
 */
import type { IdpContext } from '../context.js';
import { findClient, type Client } from '../model/clients.js';
import { findPool, type Pool } from '../model/pools.js';

export interface AuthorizeParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

export interface AuthorizeRequest {
  client: Client;
  pool: Pool;
  redirectUri: string;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge: string;
  /** The parameters to carry through the sign-in form. */
  params: Record<string, string | undefined>;
}

export type AuthorizeCheck =
  | { kind: 'ok'; request: AuthorizeRequest }
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; location: string };

/** The URL back to the client with query parameters added. */
export function redirectTo(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

export const AUTHORIZE_PARAM_NAMES = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
] as const;

export function checkAuthorizeRequest(ctx: IdpContext, p: AuthorizeParams): AuthorizeCheck {
  const client = p.client_id ? findClient(ctx.db, p.client_id) : undefined;
  if (!client) return { kind: 'page', message: 'The application that sent you here is not known (client_id).' };
  if (!p.redirect_uri || !client.config.CallbackURLs.includes(p.redirect_uri))
    return { kind: 'page', message: 'The application sent you here with a redirect_uri it has not registered.' };
  const pool = findPool(ctx.db, client.poolId);
  if (!pool) return { kind: 'page', message: 'The application that sent you here is not known (client_id).' };

  const back = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    location: redirectTo(p.redirect_uri ?? '', { error, error_description: description, state: p.state }),
  });
  if (p.response_type !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported.');
  if (!client.config.AllowedOAuthFlowsUserPoolClient || !client.config.AllowedOAuthFlows.includes('code'))
    return back('unauthorized_client', 'The client may not use the authorization code flow.');
  const scopes = p.scope ? p.scope.split(' ').filter(Boolean) : client.config.AllowedOAuthScopes;
  if (scopes.length === 0 || scopes.some((s) => !client.config.AllowedOAuthScopes.includes(s)))
    return back('invalid_scope', 'A requested scope is not allowed for this client.');
  if (!p.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE).');
  if (p.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256.');
  if (!/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge)) return back('invalid_request', 'code_challenge is malformed.');

  const params: Record<string, string | undefined> = {};
  for (const name of AUTHORIZE_PARAM_NAMES) params[name] = p[name];
  return {
    kind: 'ok',
    request: {
      client,
      pool,
      redirectUri: p.redirect_uri,
      scope: scopes.join(' '),
      state: p.state,
      nonce: p.nonce,
      codeChallenge: p.code_challenge,
      params,
    },
  };
}
