/**
 * JSON schemas of the routes: Fastify compiles them into request validators and reply serialisers
 * at registration, and @fastify/swagger turns the same objects into `/openapi.json`. Reply schemas
 * list every field a reply may carry; anything else is dropped on the way out.
 */

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const strList = { type: 'array', items: str } as const;
const nullableStrList = { type: ['array', 'null'], items: str } as const;

const boundedStr = { type: 'string', minLength: 1, maxLength: 256 } as const;
const inputProfile = { type: ['string', 'null'], maxLength: 256 } as const;
const inputList = { type: 'array', items: boundedStr, maxItems: 100 } as const;

export const errorReply = {
  type: 'object',
  description: 'An error a client can act on',
  properties: { code: str, message: str },
  required: ['code', 'message'],
} as const;

/** Error replies every authenticated route may give. */
export const authErrors = {
  401: { ...errorReply, description: 'No token (MISSING_TOKEN) or a bad one (INVALID_TOKEN); see WWW-Authenticate' },
  503: { ...errorReply, description: 'Token keys (JWKS_UNAVAILABLE) or the database (STORAGE_UNAVAILABLE) unavailable' },
} as const;

export const adminErrors = {
  ...authErrors,
  403: { ...errorReply, description: 'The caller is not in the admin group (FORBIDDEN)' },
} as const;

export const bearer = [{ bearerAuth: [] }];

const attributeMap = {
  type: 'object',
  description: 'Attribute name → value (one value) or values (several)',
  additionalProperties: { anyOf: [str, strList] },
} as const;

export const user = {
  type: 'object',
  properties: {
    id: str,
    username: nullableStr,
    email: nullableStr,
    name: nullableStr,
    active: { type: 'boolean' },
    attributes: attributeMap,
    groups: { ...strList, description: 'Directory group memberships' },
    tokenGroups: { ...strList, description: "Groups of the user's token at their last whoami or lookup" },
    subject: {
      description: 'The token identity (iss, sub) this entry belongs to; null while unlinked',
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: { issuer: str, subject: str, linkedBy: { type: 'string', enum: ['sighting', 'email', 'admin'] }, linkedAt: str },
          required: ['issuer', 'subject', 'linkedBy', 'linkedAt'],
        },
      ],
    },
    tokenGroupsSeenAt: nullableStr,
    lastSeenAt: nullableStr,
    createdAt: str,
    updatedAt: str,
  },
  required: ['id', 'username', 'email', 'name', 'active', 'attributes', 'groups', 'tokenGroups', 'createdAt', 'updatedAt'],
} as const;

export const whoami = {
  type: 'object',
  properties: {
    userId: str,
    issuer: { ...str, description: 'The token issuer (iss): with subject, the identity' },
    subject: { ...str, description: 'The token subject (sub)' },
    username: nullableStr,
    email: nullableStr,
    name: nullableStr,
    active: { type: 'boolean' },
    groups: strList,
    attributes: attributeMap,
    dataAttributes: { ...strList, description: 'What the graph server evaluates labels against' },
  },
  required: ['userId', 'issuer', 'subject', 'username', 'email', 'name', 'active', 'groups', 'attributes', 'dataAttributes'],
} as const;

export const lookup = {
  type: 'object',
  properties: { id: str, attributes: strList, active: { type: 'boolean', description: 'Whether the entry is active (an inactive one has no attributes)' } },
  required: ['id', 'attributes'],
} as const;

export const hierarchy = {
  type: 'object',
  properties: { name: str, tiers: { ...strList, description: 'Least to most privileged' } },
  required: ['name', 'tiers'],
} as const;

export const group = {
  type: 'object',
  properties: { name: str, description: nullableStr, members: strList, createdAt: str },
  required: ['name', 'description', 'members', 'createdAt'],
} as const;

export const definition = {
  type: 'object',
  properties: {
    name: str,
    description: nullableStr,
    values: { ...nullableStrList, description: 'Allowed values; null: any (or the hierarchy tiers)' },
    hierarchy: { ...nullableStrList, description: 'Tiers of the hierarchy of the same name, if any' },
  },
  required: ['name', 'description', 'values', 'hierarchy'],
} as const;

const inputAttributes = {
  type: 'object',
  description: 'Attribute name → a value or a list of values',
  additionalProperties: { anyOf: [boundedStr, inputList] },
  maxProperties: 100,
} as const;

export const newUser = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: boundedStr,
    username: inputProfile,
    email: inputProfile,
    name: inputProfile,
    active: { type: 'boolean', default: true },
    attributes: inputAttributes,
    groups: inputList,
  },
  required: ['id'],
} as const;

export const userPatch = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    username: inputProfile,
    email: inputProfile,
    name: inputProfile,
    active: { type: 'boolean' },
    attributes: {
      type: 'object',
      description: 'Attribute name → value(s); null or [] removes the attribute; unnamed attributes stay',
      additionalProperties: { anyOf: [boundedStr, inputList, { type: 'null' }] },
      maxProperties: 100,
    },
    groups: { ...inputList, description: 'Replaces the directory group memberships' },
  },
} as const;

export const newGroup = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 128 }, description: inputProfile },
  required: ['name'],
} as const;

export const hierarchyBody = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string', description: 'If given, must equal the name in the path' }, tiers: { ...inputList, minItems: 1 } },
  required: ['tiers'],
} as const;

export const newDefinition = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    description: inputProfile,
    values: { type: ['array', 'null'], items: boundedStr, maxItems: 100, minItems: 1 },
    hierarchy: { type: ['array', 'null'], items: boundedStr, maxItems: 100, minItems: 1 },
  },
  required: ['name'],
} as const;

export const param = (name: string, description: string) =>
  ({ type: 'object', properties: { [name]: { type: 'string', minLength: 1, description } }, required: [name] }) as const;

export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: 'Page size, 1 to 1000 (default 100)' },
    offset: { type: 'string', pattern: '^[0-9]{1,9}$', description: 'Users to skip (default 0)' },
    active: { type: 'string', enum: ['true', 'false'], description: 'Only active or only inactive users' },
  },
} as const;
