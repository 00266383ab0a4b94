/**
 * What a name and a value may be. Attribute and group names are words of the label language
 * (SPEC §3: a letter, digit or `_` first and last, `. - + :` also inside), so a label can name them
 * without quotes and `name=value` strings split unambiguously. Values are any text without control
 * characters.
 */
import { invalid } from '../errors.js';

const WORD = /^[\p{L}\p{Nd}_](?:[\p{L}\p{M}\p{Nd}_.:+-]*[\p{L}\p{M}\p{Nd}_])?$/u;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export const MAX_NAME = 128;
export const MAX_VALUE = 256;
export const MAX_USER_ID = 256;
export const MAX_VALUES = 100;

/** True when `name` may name an attribute or a group. */
export function isWord(name: string): boolean {
  return name.length <= MAX_NAME && WORD.test(name);
}

export function checkName(kind: 'attribute' | 'group' | 'hierarchy', name: string): string {
  if (!isWord(name)) {
    throw invalid(`${kind} name ${JSON.stringify(name)} is not a word (letters, digits, _ and inside also . - + :; at most ${MAX_NAME} characters)`);
  }
  return name;
}

export function checkValue(attribute: string, value: string): string {
  if (value === '' || value.length > MAX_VALUE || CONTROL.test(value) || value.trim() !== value) {
    throw invalid(`value ${JSON.stringify(value)} of ${attribute} must be 1 to ${MAX_VALUE} characters without control characters or surrounding spaces`);
  }
  return value;
}

export function checkUserId(id: string): string {
  if (id === '' || id.length > MAX_USER_ID || CONTROL.test(id) || id.trim() !== id) {
    throw invalid(`user id ${JSON.stringify(id)} must be 1 to ${MAX_USER_ID} characters without control characters or surrounding spaces`);
  }
  return id;
}

/** A list of distinct values; `what` names it in messages. */
export function checkValueList(what: string, values: readonly string[], allowEmpty = false): string[] {
  if (!allowEmpty && values.length === 0) throw invalid(`${what} must not be empty`);
  if (values.length > MAX_VALUES) throw invalid(`${what} may hold at most ${MAX_VALUES} values`);
  const seen = new Set<string>();
  for (const value of values) {
    checkValue(what, value);
    if (seen.has(value)) throw invalid(`${what} lists ${JSON.stringify(value)} twice`);
    seen.add(value);
  }
  return [...values];
}
