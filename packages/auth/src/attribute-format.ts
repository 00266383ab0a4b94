/**
 * The two formats of an access service's lookup answer (`{ attributes: [...] }`), read into the
 * attribute strings `@ianode/abac`'s `AttributeSet` takes (`name` or `name=value`, raw text):
 *
 * - `ianode` (SPEC §6): the strings are already that: `clearance=S`, `ianode_read`.
 * - `reference` (the reference access service, ianode-access, read by RDF-ABAC's remote attribute
 *   store): each string is an attribute-value in the label language, `name` or `name=value`, with
 *   either side a word or a quoted string: `classification='S'`, `permitted_nationalities='GBR'`.
 *   The quotes are removed (escapes decoded) as RDF-ABAC's parser does, legacy fallback included
 *   (the injected parser); a string it cannot read makes the answer unreadable. The reference
 *   writes each group `G` of a user as the two booleans `G:and` and `G:or` (its labels use
 *   `G1:and & G2:and` for "all of" and `(G3:or | G4:or)` for "any of"); RDF-ABAC holds them as
 *   booleans with those names. They are kept as such AND read as the group `G` itself, the boolean
 *   ianode's own access service answers for a group, so labels of either vocabulary hold.
 * - `auto` (default): per answer, `reference` when it reads as one (below), else `ianode`.
 *
 * Parsing one attribute-value is the label language's business: the caller passes `@ianode/abac`'s
 * `parseAttributeValue` (legacy on) as `parse`, so this package stays free of the label language.
 */

export type AttributeFormat = 'ianode' | 'reference' | 'auto';

export const ATTRIBUTE_FORMATS: readonly AttributeFormat[] = ['ianode', 'reference', 'auto'];

/**
 * Reads one reference attribute-value as `[name, value]` (`value` undefined for a bare name);
 * throws for one it cannot read. `@ianode/abac`'s `parseAttributeValue(text, { legacy: true })`.
 */
export type AttributeValueParser = (text: string) => [string, string | undefined];

/** An answer string the configured format cannot read (the request then fails closed, 503). */
export class UnreadableAttribute extends Error {}

const GROUP_FORM = /^(.+):(and|or)$/s;

/**
 * The attribute strings of a reference answer: quotes removed, each `G:and` / `G:or` also read as
 * `G`. Throws `UnreadableAttribute` for a string it cannot read, or a name `AttributeSet` cannot hold
 * (empty, or holding `=`): an attribute is never silently dropped or changed.
 */
export function readReferenceAttributes(strings: readonly string[], parse: AttributeValueParser): string[] {
  // A Set keeps the first-seen order: the attributes in order, each once.
  const out = new Set<string>();
  const add = (attribute: string) => out.add(attribute);
  for (const text of strings) {
    let name: string;
    let value: string | undefined;
    try {
      [name, value] = parse(text);
    } catch (cause) {
      throw new UnreadableAttribute(`${JSON.stringify(text)} is not an attribute or attribute=value: ${(cause as Error).message}`, { cause });
    }
    if (name === '' || name.includes('=')) throw new UnreadableAttribute(`${JSON.stringify(text)}: an attribute name must be non-empty and hold no "="`);
    if (value !== undefined) {
      add(`${name}=${value}`);
      continue;
    }
    add(name);
    const group = GROUP_FORM.exec(name);
    if (group) add(group[1]!);
  }
  return [...out];
}

/**
 * Whether an answer is in the reference's format (`auto`). The reference quotes every value and
 * ianode never does, so: every `name=value` has a quoted value, and either there is one such value
 * or (an answer of groups only) every bare name is a `G:and` / `G:or` with its partner present (the
 * reference writes both for each group; ianode writes a group as `G`). Anything else is ianode's.
 */
export function looksLikeReference(strings: readonly string[]): boolean {
  const bare = strings.filter((s) => !s.includes('='));
  const valued = strings.filter((s) => s.includes('='));
  for (const text of valued) {
    const value = text.slice(text.indexOf('=') + 1);
    const quote = value.charAt(0);
    if ((quote !== "'" && quote !== '"') || value.length < 2 || !value.endsWith(quote)) return false;
  }
  if (valued.length > 0) return true;
  if (bare.length === 0) return false;
  const names = new Set(bare);
  return bare.every((text) => {
    const group = GROUP_FORM.exec(text);
    return group !== null && names.has(`${group[1]!}:${group[2] === 'and' ? 'or' : 'and'}`);
  });
}

/** The attribute strings of an answer in `format` (see above). */
export function readAttributes(strings: readonly string[], format: AttributeFormat, parse: AttributeValueParser | undefined): string[] {
  if (format === 'reference' || (format === 'auto' && looksLikeReference(strings))) {
    if (parse === undefined) throw new UnreadableAttribute('a reference-format answer, and no attribute-value parser was given');
    return readReferenceAttributes(strings, parse);
  }
  return [...strings];
}
