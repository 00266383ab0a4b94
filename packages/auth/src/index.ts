export {
  AuthError,
  DEFAULT_REALM,
  authChallenge,
  authErrorStatus,
  invalidToken,
  invalidTokenMessage,
  type AuthErrorCode,
  type AuthErrorOptions,
  type InvalidTokenReason,
} from './errors.js';
export { bearerToken, MAX_TOKEN_LENGTH, tokenFromHeaders, type RequestHeaders, type TokenSource } from './bearer.js';
export { DEFAULT_GROUPS_CLAIM, DEFAULT_USER_CLAIMS, mapClaims, type ClaimMapping, type MappedClaims } from './claims.js';
export { redact, redactAuthorization, redactCredentials, redactUrl, requestLogFields } from './redact.js';
export { JwksCache, type JwksCacheOptions, type KeySet } from './jwks.js';
export {
  DEFAULT_ALGORITHMS,
  createTokenVerifier,
  identityKey,
  toAuthError,
  type TokenUse,
  type TokenVerifier,
  type TokenVerifierOptions,
  type VerifiedToken,
} from './verifier.js';
export {
  ATTRIBUTE_FORMATS, looksLikeReference, readAttributes, readReferenceAttributes, UnreadableAttribute, type AttributeFormat, type AttributeValueParser,
} from './attribute-format.js';
export { createAttributeClient, type AttributeClient, type AttributeClientOptions, type DirectoryStatus, type Resolved, type Subject } from './attribute-client.js';
export { createRevocationList, type RevocationList, type RevocationListOptions } from './revocation.js';
export { AWS_JWKS_PREFIX, awsAlbKeyUrl, awsRegionOf, createAlbTokenVerifier, type AlbTokenVerifierOptions } from './aws-alb.js';
