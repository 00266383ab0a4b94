/** Blank node label prefixes: each load gets its own, so blank nodes never merge across loads. */
import { randomBytes } from 'node:crypto';

/** A fresh prefix: `b` + 8 random hex digits + `_`, e.g. `b3f09a1c2_`. */
export function freshBlankNodePrefix(): string {
  return 'b' + randomBytes(4).toString('hex') + '_';
}

// A prefix followed by any label must itself be a valid BLANK_NODE_LABEL, and `prefix + '-' + n`
// (used for anonymous nodes) must never equal `prefix + label`, which holds because no label
// starts with '-'.
const VALID_PREFIX = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

/** The prefix to use for an options object: the given one (checked) or a fresh one. */
export function resolveBlankNodePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return freshBlankNodePrefix();
  if (typeof prefix !== 'string' || !VALID_PREFIX.test(prefix)) {
    throw new TypeError(`blankNodePrefix must be a non-empty run of [A-Za-z0-9_.-] not starting with '-' or '.' nor ending with '.': ${JSON.stringify(prefix)}`);
  }
  return prefix;
}
