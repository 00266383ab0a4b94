/** A Storage seen through a key prefix (GraphiQL's tabs and history, per user). */
/** `base` with every key under `prefix`: `clear`, `key` and `length` see only those keys. */
export function userStorage(base: Storage, prefix: string): Storage {
  const keys = () => Array.from({ length: base.length }, (_, i) => base.key(i)).filter((k): k is string => k !== null && k.startsWith(prefix));
  return {
    getItem: (key) => base.getItem(prefix + key),
    setItem: (key, value) => base.setItem(prefix + key, value),
    removeItem: (key) => base.removeItem(prefix + key),
    clear: () => keys().forEach((k) => base.removeItem(k)),
    key: (index) => keys()[index]?.slice(prefix.length) ?? null,
    get length() {
      return keys().length;
    },
  };
}
