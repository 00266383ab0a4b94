/**
 * Configuration by schema: each section of the graph server's configuration (config.ts) has one
 * JSON schema, kept next to the code of its section (config.ts, audit.ts, backup.ts,
 * kafka/config.ts). Ajv checks a section against it: every object refuses keys it does not list
 * (`additionalProperties: false`), the defaults are the schema's `default`s (filled in by Ajv), and
 * a refusal names the key's path (`limits.queryTimeoutMS`) and, for an unknown key, the nearest
 * valid one. Checks a schema cannot say (labels that parse, header names, folders) stay in code.
 *
 * A property schema may carry `message`: the text after the path when the value does not fit
 * (`must be a non-negative number`); `{value}` in it is replaced by the value given, as JSON.
 */
import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ useDefaults: true, allErrors: false, verbose: true, strict: true, allowUnionTypes: true });
ajv.addKeyword({ keyword: 'message', schemaType: 'string' });

/** A JSON schema (draft 2020-12 subset Ajv compiles) with the `message` annotation. */
export type Schema = SchemaObject;

const compiled = new WeakMap<Schema, ValidateFunction>();

/** A copy of `value` without `undefined` members (a TypeScript caller's way of leaving a key out;
 * a file cannot say it), so checking and filling in defaults never touch the caller's objects. */
export function plainCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => plainCopy(item)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, plainCopy(v)])) as T;
  }
  return value;
}

/**
 * Checks `value` (changed in place: Ajv fills in the defaults; pass a `plainCopy`) against
 * `schema`; throws a `TypeError` naming the path below `where` (`''` = the top of the file).
 */
export function checkSection(schema: Schema, value: unknown, where: string): void {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return;
  throw new TypeError(describeError(validate.errors ?? [], where));
}

/** Deep-freezes plain objects and arrays (the resolved configuration is read, never changed). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** `where` + an Ajv instance path: `/datasets/1/kafka` → `datasets[1].kafka`. */
function pathOf(where: string, instancePath: string): string {
  let out = where;
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(segment) ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  }
  return out;
}

function describeError(errors: ErrorObject[], where: string): string {
  // An unknown key is the likeliest mistake (a typo); inside an anyOf its branch's error is the one that matters.
  const unknown = errors.find((error) => error.keyword === 'additionalProperties');
  if (unknown !== undefined) {
    const key = String((unknown.params as { additionalProperty: string }).additionalProperty);
    const parent = pathOf(where, unknown.instancePath);
    const known = Object.keys((unknown.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const at = (name: string) => (parent === '' ? name : `${parent}.${name}`);
    const nearest = nearestKey(key, known);
    const hint = nearest === undefined ? '' : `did you mean ${at(nearest)}? `;
    return `${at(key)}: unknown key ${JSON.stringify(key)}; ${hint}(${parent === '' ? 'the configuration' : parent} takes ${known.join(', ')})`;
  }
  // The outermost error whose schema says what is expected (an anyOf's own, after its branches').
  const described = [...errors].reverse().find((error) => typeof (error.parentSchema as { message?: unknown } | undefined)?.message === 'string');
  const error = described ?? errors[0];
  if (error === undefined) return `${where || 'the configuration'} is not valid`;
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    const path = pathOf(where, error.instancePath);
    return `${path === '' ? missing : `${path}.${missing}`} is required`;
  }
  const path = pathOf(where, error.instancePath) || 'the configuration';
  const message = (error.parentSchema as { message?: string } | undefined)?.message;
  if (message === undefined) return `${path} ${error.message ?? 'is not valid'}`;
  return `${path} ${message.replace('{value}', JSON.stringify(error.data) ?? 'undefined')}`;
}

/** The known key nearest to `key` by edit distance (case differences count half). */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance where a substitution that only changes case costs 0.5. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const x = a[i - 1]!;
      const y = b[j - 1]!;
      const substitution = x === y ? 0 : x.toLowerCase() === y.toLowerCase() ? 0.5 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
