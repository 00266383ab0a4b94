/** `GET /<pool>/.well-known/jwks.json` and `/<pool>/.well-known/openid-configuration` (SPEC §7). */
import type { FastifyInstance } from 'fastify';
import type { IdpContext } from '../context.js';
import { SIGNING_ALG } from '../keys/key-store.js';
import { findPool } from '../model/pools.js';
import { revocationList } from '../model/revocations.js';
import { OAUTH_SCOPES } from '../cognito/ops/user-pool-clients.js';

const PoolParams = {
  type: 'object',
  properties: { poolId: { type: 'string', maxLength: 55 } },
  required: ['poolId'],
} as const;

const notFoundSchema = { type: 'object', properties: { error: { type: 'string' }, message: { type: 'string' } } };

const jwksSchema = {
  type: 'object',
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          kty: { type: 'string' },
          kid: { type: 'string' },
          use: { type: 'string' },
          alg: { type: 'string' },
          n: { type: 'string' },
          e: { type: 'string' },
        },
        required: ['kty', 'kid', 'use', 'alg', 'n', 'e'],
      },
    },
  },
  required: ['keys'],
};

export const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'at_hash',
  'jti',
  'origin_jti',
  'event_id',
  'token_use',
  'cognito:username',
  'cognito:groups',
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'name',
  'given_name',
  'family_name',
  'preferred_username',
];

export function discoveryDocument(ctx: IdpContext, poolId: string): Record<string, unknown> {
  const base = ctx.publicUrl();
  return {
    issuer: ctx.issuer(poolId),
    authorization_endpoint: `${base}/oauth2/authorize`,
    token_endpoint: `${base}/oauth2/token`,
    userinfo_endpoint: `${base}/oauth2/userInfo`,
    end_session_endpoint: `${base}/logout`,
    revocation_endpoint: `${base}/oauth2/revoke`,
    jwks_uri: `${ctx.issuer(poolId)}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: OAUTH_SCOPES,
    claims_supported: CLAIMS_SUPPORTED,
    code_challenge_methods_supported: ['S256'],
    request_parameter_supported: false,
    claims_parameter_supported: false,
  };
}

export async function discoveryRoutes(app: FastifyInstance, ctx: IdpContext): Promise<void> {
  const unknownPool = (poolId: string) => ({ error: 'not_found', message: `User pool ${poolId} does not exist.` });

  app.get<{ Params: { poolId: string } }>(
    '/:poolId/.well-known/jwks.json',
    { schema: { params: PoolParams, response: { 200: jwksSchema, 404: notFoundSchema } } },
    async (request, reply) => {
      const { poolId } = request.params;
      if (!findPool(ctx.db, poolId)) return reply.code(404).send(unknownPool(poolId));
      return reply.header('cache-control', 'public, max-age=300').send({ keys: ctx.keys.jwks(poolId) });
    },
  );

  app.get<{ Params: { poolId: string } }>(
    '/:poolId/.well-known/openid-configuration',
    { schema: { params: PoolParams, response: { 404: notFoundSchema } } },
    async (request, reply) => {
      const { poolId } = request.params;
      if (!findPool(ctx.db, poolId)) return reply.code(404).send(unknownPool(poolId));
      return reply.header('cache-control', 'public, max-age=300').send(discoveryDocument(ctx, poolId));
    },
  );

  // Revoked subjects and sessions (issue 13), hashed: a relying party polls this to refuse tokens
  // of signed-out, disabled or deleted users before they expire. Not cached by intermediaries.
  app.get<{ Params: { poolId: string } }>(
    '/:poolId/revocations',
    { schema: { params: PoolParams, response: { 404: notFoundSchema } } },
    async (request, reply) => {
      const { poolId } = request.params;
      if (!findPool(ctx.db, poolId)) return reply.code(404).send(unknownPool(poolId));
      return reply.header('cache-control', 'no-store').send({ issuer: ctx.issuer(poolId), ...revocationList(ctx.db, poolId, ctx.now()) });
    },
  );
}
