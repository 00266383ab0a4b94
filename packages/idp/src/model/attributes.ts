/**
 * User attributes: the standard OIDC attributes Cognito knows plus the pool's declared `custom:*`
 * attributes. Values are strings, as in the Cognito API; `*_verified` are "true"/"false".
 */
import { invalidParameter } from '../errors.js';
import type { AttributeDataType, Pool } from './pools.js';

export interface AttributeType {
  Name: string;
  Value?: string;
}

export const STANDARD_ATTRIBUTES: Readonly<Record<string, AttributeDataType>> = {
  sub: 'String',
  name: 'String',
  given_name: 'String',
  family_name: 'String',
  middle_name: 'String',
  nickname: 'String',
  preferred_username: 'String',
  profile: 'String',
  picture: 'String',
  website: 'String',
  email: 'String',
  email_verified: 'Boolean',
  gender: 'String',
  birthdate: 'String',
  zoneinfo: 'String',
  locale: 'String',
  phone_number: 'String',
  phone_number_verified: 'Boolean',
  address: 'String',
  updated_at: 'Number',
};

const EMAIL = /^[^\s@]+@[^\s@]+$/;

function typeOf(pool: Pool, name: string): AttributeDataType | undefined {
  if (name.startsWith('custom:')) {
    return pool.config.CustomAttributes.find((a) => `custom:${a.Name}` === name)?.AttributeDataType;
  }
  return STANDARD_ATTRIBUTES[name];
}

/**
 * Checks a list of attributes against the pool's schema and returns them as a record. `sub` cannot
 * be written; unknown and undeclared custom attributes are refused as Cognito does.
 */
export function checkAttributes(pool: Pool, list: readonly AttributeType[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { Name, Value = '' } of list) {
    const type = typeOf(pool, Name);
    if (!type) throw invalidParameter(`Attributes did not conform to the schema: ${Name}: Attribute does not exist in the schema.`);
    if (Name === 'sub') throw invalidParameter('Cannot modify the non-mutable attribute sub');
    if (Value.length > 2048) throw invalidParameter(`Attribute value for ${Name} must not exceed 2048 characters.`);
    if (type === 'Boolean' && Value !== 'true' && Value !== 'false')
      throw invalidParameter(`Attribute value for ${Name} must be "true" or "false".`);
    if (type === 'Number' && Value !== '' && !Number.isFinite(Number(Value)))
      throw invalidParameter(`Attribute value for ${Name} must be a number.`);
    if (Name === 'email' && Value !== '' && !EMAIL.test(Value)) throw invalidParameter('Invalid email address format.');
    out[Name] = Value;
  }
  return out;
}

/** The AWS `AttributeListType` of a user: `sub` first, then the stored attributes by name. */
export function toAttributeList(sub: string, attributes: Record<string, string>): AttributeType[] {
  return [
    { Name: 'sub', Value: sub },
    ...Object.keys(attributes)
      .sort()
      .map((Name) => ({ Name, Value: attributes[Name] ?? '' })),
  ];
}
