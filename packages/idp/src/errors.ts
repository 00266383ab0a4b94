import { ServiceError } from '@ianode/service';

/**
 * Errors of the identity provider, with a closed set of codes. Each code is an AWS Cognito error
 * `__type`; `ERROR_STATUS` is the one table that maps a code to its HTTP status.
 */
export type IdpErrorCode =
  | 'NotAuthorizedException'
  | 'UserNotFoundException'
  | 'UsernameExistsException'
  | 'InvalidPasswordException'
  | 'InvalidParameterException'
  | 'ResourceNotFoundException'
  | 'UserNotConfirmedException'
  | 'PasswordResetRequiredException'
  | 'TooManyRequestsException'
  | 'GroupExistsException'
  | 'CodeMismatchException'
  | 'ExpiredCodeException'
  | 'LimitExceededException'
  | 'UnsupportedTokenTypeException'
  | 'UnauthorizedException'
  | 'UnsupportedOperationException'
  | 'UnrecognizedClientException'
  | 'InvalidSignatureException'
  | 'UnknownOperationException'
  | 'SerializationException'
  | 'InternalErrorException';

export const ERROR_STATUS: Readonly<Record<IdpErrorCode, number>> = {
  NotAuthorizedException: 400,
  UserNotFoundException: 400,
  UsernameExistsException: 400,
  InvalidPasswordException: 400,
  InvalidParameterException: 400,
  ResourceNotFoundException: 400,
  UserNotConfirmedException: 400,
  PasswordResetRequiredException: 400,
  TooManyRequestsException: 400,
  GroupExistsException: 400,
  CodeMismatchException: 400,
  ExpiredCodeException: 400,
  LimitExceededException: 400,
  UnsupportedTokenTypeException: 400,
  UnauthorizedException: 400,
  UnsupportedOperationException: 400,
  UnrecognizedClientException: 400,
  InvalidSignatureException: 403,
  UnknownOperationException: 400,
  SerializationException: 400,
  InternalErrorException: 500,
};

export class IdpError extends ServiceError<IdpErrorCode> {
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** The one message for a failed sign-in, whether the user is unknown or the password is wrong. */
export const BAD_CREDENTIALS = 'Incorrect username or password.';

export const notAuthorized = (message = BAD_CREDENTIALS): IdpError =>
  new IdpError('NotAuthorizedException', message);
export const invalidParameter = (message: string): IdpError =>
  new IdpError('InvalidParameterException', message);
export const userNotFound = (): IdpError => new IdpError('UserNotFoundException', 'User does not exist.');
export const poolNotFound = (poolId: string): IdpError =>
  new IdpError('ResourceNotFoundException', `User pool ${poolId} does not exist.`);
