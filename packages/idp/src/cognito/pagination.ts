/** Key-based pagination tokens (stable while items are added or removed between pages). */
import { invalidParameter } from '../errors.js';

export interface Page<T> {
  items: T[];
  next?: string;
}

/** `items` must be sorted by `keyOf`. `limit` 0 or absent means `defaultLimit`. */
export function paginate<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  limit: number | undefined,
  token: string | undefined,
  defaultLimit = 60,
): Page<T> {
  let start = 0;
  if (token !== undefined) {
    let after: string;
    try {
      after = Buffer.from(token, 'base64url').toString('utf8');
      if (!after.startsWith('k:')) throw new Error('not a token');
    } catch {
      throw invalidParameter('Invalid pagination token.');
    }
    const key = after.slice(2);
    start = items.findIndex((item) => keyOf(item) > key);
    if (start < 0) start = items.length;
  }
  const size = limit && limit > 0 ? limit : defaultLimit;
  const page = items.slice(start, start + size);
  const last = page[page.length - 1];
  const more = start + size < items.length && last !== undefined;
  return { items: page, ...(more ? { next: Buffer.from(`k:${keyOf(last)}`).toString('base64url') } : {}) };
}
