import type { UserRecord } from './types.js';

/**
 * The attribute strings the graph server evaluates labels against (SPEC §6): `name=value` for each
 * value of each user attribute, then one boolean attribute per group (the groups of the token, then
 * directory memberships). An inactive user has none. A group name holding `=` is skipped: it would
 * read as `name=value` and could forge an attribute.
 */
export function dataAttributes(user: UserRecord, tokenGroups: readonly string[]): string[] {
  if (!user.active) return [];
  // A Set keeps the first-seen order: the attributes in order, each once.
  const out = new Set<string>();
  const add = (attribute: string) => out.add(attribute);
  for (const [name, values] of Object.entries(user.attributes)) {
    for (const value of values) add(`${name}=${value}`);
  }
  for (const group of effectiveGroups(user, tokenGroups)) add(group);
  return [...out];
}

/** Token groups followed by directory memberships, without duplicates or names holding `=`. */
export function effectiveGroups(user: UserRecord, tokenGroups: readonly string[]): string[] {
  const groups: string[] = [];
  for (const group of [...tokenGroups, ...user.groups]) {
    if (group !== '' && !group.includes('=') && !groups.includes(group)) groups.push(group);
  }
  return groups;
}

/** Attribute values for display: one value as a string, several as a list (SPEC §6 `whoami`). */
export function displayAttributes(attributes: Record<string, string[]>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(attributes).map(([name, values]) => [name, values.length === 1 ? values[0]! : [...values]]));
}
