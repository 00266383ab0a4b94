/**
 * The two formats of an access service's lookup answer (`{ attributes: [...] }`), read into the
 * attribute strings `@ianode/abac`'s `AttributeSet` takes (`name` or `name=value`, raw text):
 *
 * - `ianode` (SPEC §6): the strings are already that: `clearance=S`, `ianode_read`.
 * - `reference` (the reference access service, ianode-access, read by RDF-ABAC's remote attribute
 *   store): each string is an attribute-value in the label language, `name` or `name=value`, with
 *   either side a word or a quoted string: `classification='S'`, `permitted_nationalities='GBR'`.
 *   The quotes are removed (escapes decoded) as RDF-ABAC's parser does. A string that does not parse
 *   is read, as RDF-ABAC's legacy fallback reads it, as one attribute name when it holds none of
 *   `= space , ( ) < > { } ! *` (nor a tab or line break); any other is unreadable. The reference
 *   writes each group `G` of a user as the two booleans `G:and` and `G:or` (its labels use
 *   `G1:and & G2:and` for "all of" and `(G3:or | G4:or)` for "any of"); RDF-ABAC holds them as
 *   booleans with those names. They are kept as such AND read as the group `G` itself, the boolean
 *   ianode's own access service answers for a group, so labels of either vocabulary hold.
 * - `auto` (default): per answer, `reference` when it reads as one (below), else `ianode`.
 *
 * The reading is written here, over `@ianode/abac`'s label parser (an attribute-value is a label of
 * one term), because no library reads RDF-ABAC attribute values; labels are parsed by the same
 * code, so quoting and escapes agree.
 */
import { LabelSyntaxError, parseLabel, type LabelExpr } from '@ianode/abac';

export type AttributeFormat = 'ianode' | 'reference' | 'auto';

export const ATTRIBUTE_FORMATS: readonly AttributeFormat[] = ['ianode', 'reference', 'auto'];

/** An answer string the configured format cannot read (the request then fails closed, 503). */
export class UnreadableAttribute extends Error {}

const LEGACY_FORBIDDEN = /[= ,()<>{}!*\t\n]/;
const GROUP_FORM = /^(.+):(and|or)$/s;

/** One reference attribute-value as `[name, value]` (`value` undefined for a bare name). */
export function parseReferenceAttribute(text: string): [string, string | undefined] {
  const parsed = strictParse(text);
  if (parsed !== undefined) return parsed;
  if (text === '' || LEGACY_FORBIDDEN.test(text)) throw new UnreadableAttribute(`${JSON.stringify(text)} is not an attribute or attribute=value`);
  return [text, undefined];
}

function strictParse(text: string): [string, string | undefined] | undefined {
  // An attribute-value is a label of one term: `name` or `name=value` (not parenthesised).
  if (text.trimStart().startsWith('(')) return undefined;
  let expr: LabelExpr;
  try {
    expr = parseLabel(text);
  } catch (error) {
    if (error instanceof LabelSyntaxError) return undefined;
    throw error;
  }
  if (expr.type === 'attr') return [expr.name, undefined];
  if (expr.type === 'compare' && expr.op === '=') return [expr.name, expr.value];
  return undefined;
}

/**
 * The attribute strings of a reference answer: quotes removed, each `G:and` / `G:or` also read as
 * `G`. Throws `UnreadableAttribute` for a string it cannot read, or a name `AttributeSet` cannot hold
 * (empty, or holding `=`): an attribute is never silently dropped or changed.
 */
export function readReferenceAttributes(strings: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (attribute: string) => {
    if (!seen.has(attribute)) {
      seen.add(attribute);
      out.push(attribute);
    }
  };
  for (const text of strings) {
    const [name, value] = parseReferenceAttribute(text);
    if (name === '' || name.includes('=')) throw new UnreadableAttribute(`${JSON.stringify(text)}: an attribute name must be non-empty and hold no "="`);
    if (value !== undefined) {
      add(`${name}=${value}`);
      continue;
    }
    add(name);
    const group = GROUP_FORM.exec(name);
    if (group) add(group[1]!);
  }
  return out;
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
export function readAttributes(strings: readonly string[], format: AttributeFormat): string[] {
  if (format === 'reference' || (format === 'auto' && looksLikeReference(strings))) return readReferenceAttributes(strings);
  return [...strings];
}
