/**
 * A small `--name value` / `--name=value` / `--flag` command line parser. Counts accept k/M/G
 * suffixes through parseCount.
 */

/**
 * @param {string[]} argv
 * @param {Record<string, string | number | boolean>} defaults also the set of known options
 * @returns {Record<string, string | number | boolean>}
 */
export function parseArgs(argv, defaults) {
  /** @type {Record<string, string | number | boolean>} */
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    if (!arg.startsWith('--')) throw new TypeError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!(name in defaults)) throw new TypeError(`unknown option --${name} (known: ${Object.keys(defaults).join(', ')})`);
    if (eq >= 0) out[name] = arg.slice(eq + 1);
    else if (typeof defaults[name] === 'boolean') out[name] = true;
    else if (i + 1 < argv.length) out[name] = /** @type {string} */ (argv[++i]);
    else throw new TypeError(`--${name} needs a value`);
  }
  return out;
}

/**
 * "1000000", "1e6", "1M", "100k" -> number.
 * @param {string | number | boolean} value
 * @returns {number}
 */
export function parseCount(value) {
  const m = /^(\d+(?:\.\d+)?(?:e\d+)?)([kKmMgG]?)$/.exec(String(value));
  if (!m) throw new TypeError(`not a count: ${value}`);
  const mult = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[/** @type {string} */ (m[2]).toLowerCase()] ?? 1;
  const n = Math.round(Number(m[1]) * mult);
  if (!Number.isSafeInteger(n)) throw new TypeError(`not a count: ${value}`);
  return n;
}
