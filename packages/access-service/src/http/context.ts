import type { VerifiedToken } from '@ianode/auth';
import type { Resolution } from '../directory/types.js';

/**
 * Who may call a route. `lookup`: as `user`, except that a request WITHOUT a token from a trusted
 * client address is let in anonymously when `compat.unauthenticatedLookup` is on (src/compat.ts).
 */
export type RouteAuth = 'public' | 'user' | 'admin' | 'lookup';

/** The authenticated caller of a request. */
export interface Caller {
  /** Display name from the token (logs only; never a key). */
  user: string;
  /** The token identity. */
  issuer: string;
  subject: string;
  groups: string[];
  isAdmin: boolean;
  token: VerifiedToken;
  /** The caller's directory entry as resolved when the request arrived (no entry is created then). */
  resolution: Resolution;
}

/** Extra fields of a request's audit line, set by the handler. */
export interface AuditDetail {
  target?: string;
  [field: string]: unknown;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (default public). */
    auth?: RouteAuth;
    /** Name of the audit event the route writes (no audit line when absent). */
    audit?: string;
  }
  interface FastifyRequest {
    caller?: Caller;
    /** True when a `lookup` route was let in without a token (compat.unauthenticatedLookup). */
    anonymousLookup?: boolean;
    auditDetail?: AuditDetail;
  }
}
