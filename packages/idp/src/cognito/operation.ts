/** What one Cognito API operation is: its target, whether it is an admin call, its body schema, its handler. */
import type { FastifyRequest } from 'fastify';
import type { IdpContext } from '../context.js';
import type { Schema } from './schema.js';

export const COGNITO_PREFIX = 'AWSCognitoIdentityProviderService';

export interface Operation {
  /** The full `X-Amz-Target` value. */
  readonly target: string;
  /** Admin and management operations need an AWS SigV4 signature by the admin key. */
  readonly admin: boolean;
  readonly body: Schema;
  handle(ctx: IdpContext, body: never, request: FastifyRequest): Promise<object> | object;
}

/** Declares a Cognito operation; `B` is the body type the schema guarantees. */
export function operation<B>(
  name: string,
  admin: boolean,
  body: Schema,
  handle: (ctx: IdpContext, body: B, request: FastifyRequest) => Promise<object> | object,
  prefix = COGNITO_PREFIX,
): Operation {
  return { target: `${prefix}.${name}`, admin, body, handle: handle as Operation['handle'] };
}
