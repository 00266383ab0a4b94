/** One or several values of an attribute, as clients write them. */
export type AttributeValues = string | string[];

/** A user as the directory holds it. */
export interface UserRecord {
  /** The user name from the token (first present of the configured claims, e.g. the email). */
  id: string;
  username: string | null;
  email: string | null;
  name: string | null;
  /** Inactive users resolve to no data attributes. */
  active: boolean;
  /** When an administrator made the entry inactive (provisioning rules never reactivate it); null otherwise. */
  deactivatedAt: string | null;
  /** What last activated the entry: `admin`, or `rule:<group>` (a provisioning rule); null when unknown. */
  activatedBy: string | null;
  /** Attribute name → values (in the order given). */
  attributes: Record<string, string[]>;
  /** Directory group memberships (set through the admin API). */
  groups: string[];
  /** Groups of the user's own token at their last whoami or lookup. */
  tokenGroups: string[];
  /** The token identity (iss, sub) this entry belongs to; `null` while unlinked. */
  subject: SubjectLink | null;
  tokenGroupsSeenAt: string | null;
  lastSeenAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewUser {
  id: string;
  username?: string | null;
  email?: string | null;
  name?: string | null;
  /** Default true for users created by an administrator. */
  active?: boolean;
  attributes?: Record<string, AttributeValues>;
  groups?: string[];
}

/** A change to a user: absent fields stay; an attribute set to `null` or `[]` is removed. */
export interface UserPatch {
  username?: string | null;
  email?: string | null;
  name?: string | null;
  active?: boolean;
  attributes?: Record<string, AttributeValues | null>;
  /** Replaces the directory group memberships. */
  groups?: string[];
}

/** What a verified token says about a user the service sees. */
export interface Sighting {
  /** `iss` and `sub`: the identity. */
  issuer: string;
  subject: string;
  /** `email_verified === true` in the token (only then may the address link a directory entry). */
  emailVerified?: boolean;
  groups: readonly string[];
  username?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
}

/** How a directory entry is tied to a token identity. */
export interface SubjectLink {
  issuer: string;
  subject: string;
  /** `sighting`: created for an unknown subject; `email`: claimed by a verified address; `admin`: set through the API. */
  linkedBy: 'sighting' | 'email' | 'admin';
  linkedAt: string;
}

/** The directory entry of a token identity, or why there is none. */
export type Resolution =
  | { user: UserRecord; created: boolean; linkedBy?: 'email' }
  | { user: undefined; created: false; conflict?: string };

export interface GroupRecord {
  name: string;
  description: string | null;
  members: string[];
  createdAt: string;
}

export interface NewGroup {
  name: string;
  description?: string | null;
}

export interface HierarchyRecord {
  name: string;
  /** Least to most privileged. */
  tiers: string[];
}

/**
 * An attribute definition. A user may hold an attribute only if it is defined; its values must be
 * among `values` when given, else among the tiers of the hierarchy of the same name when there is
 * one, else anything.
 */
export interface AttributeDefinition {
  name: string;
  description: string | null;
  values: string[] | null;
  /** The tiers of the hierarchy named like the attribute, if any. */
  hierarchy: string[] | null;
}

export interface NewAttributeDefinition {
  name: string;
  description?: string | null;
  values?: string[] | null;
  /** Sets (a list) or removes (`null`) the hierarchy of the same name; absent leaves it. */
  hierarchy?: string[] | null;
}

export interface ListOptions {
  limit?: number;
  offset?: number;
  active?: boolean;
}
