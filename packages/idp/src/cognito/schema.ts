/**
 * JSON Schema pieces for the Cognito request shapes (constraints from the Cognito API reference),
 * compiled by Fastify at route registration. Unknown members are allowed, as the AWS SDKs may send
 * members this IdP does not model.
 */
export type Schema = Record<string, unknown>;

export const str = (minLength = 1, maxLength = 2048, pattern?: string): Schema => ({
  type: 'string',
  minLength,
  maxLength,
  ...(pattern ? { pattern } : {}),
});
export const int = (minimum: number, maximum: number): Schema => ({ type: 'integer', minimum, maximum });
export const bool: Schema = { type: 'boolean' };
export const arr = (items: Schema, maxItems = 100): Schema => ({ type: 'array', items, maxItems });
export const strMap = (maxLength = 2048): Schema => ({
  type: 'object',
  additionalProperties: { type: 'string', maxLength },
});
export const enumOf = (...values: string[]): Schema => ({ type: 'string', enum: values });

export function obj(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required };
}

export const UserPoolId = str(1, 55, '^[\\w-]+_[0-9a-zA-Z]+$');
export const ClientId = str(1, 128, '^[\\w+]+$');
export const ClientSecret = str(1, 64, '^[\\w+]+$');
export const Username = str(1, 128, '^[\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+$');
export const Password = str(1, 256);
export const SecretHash = str(1, 128);
export const ConfirmationCode = str(1, 2048, '^[\\S]+$');
export const GroupName = str(1, 128, '^[\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+$');
export const Limit = int(0, 60);
export const NextToken = str(1, 2048);
export const Token = str(1, 16_384);
export const AttributeList = arr(obj({ Name: str(1, 32), Value: { type: 'string', maxLength: 2048 } }, ['Name']), 100);
