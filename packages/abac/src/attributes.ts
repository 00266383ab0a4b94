/**
 * A user's attributes (SPEC §3): strings `name` (the boolean `true`) or `name=value`, split at the
 * first `=`. One name may hold several values. Strings are taken exactly as given (no trimming):
 * `name=true` is the same as `name`, and `name=false` holds the value `false`.
 */
import { TRUE } from './words.js';

export class AttributeSet {
  private readonly byName: ReadonlyMap<string, ReadonlySet<string>>;

  private constructor(byName: Map<string, Set<string>>) {
    this.byName = byName;
  }

  /** The empty set (an anonymous caller). */
  static readonly EMPTY: AttributeSet = new AttributeSet(new Map());

  /** Build from strings such as `['engineer', 'clearance=S']`. An empty name throws `TypeError`. */
  static from(attributes: Iterable<string>): AttributeSet {
    const byName = new Map<string, Set<string>>();
    for (const attribute of attributes) {
      if (typeof attribute !== 'string') throw new TypeError('AttributeSet.from: every attribute must be a string');
      const eq = attribute.indexOf('=');
      const name = eq < 0 ? attribute : attribute.slice(0, eq);
      const value = eq < 0 ? TRUE : attribute.slice(eq + 1);
      if (name === '') throw new TypeError(`AttributeSet.from: attribute '${attribute}' has an empty name`);
      let values = byName.get(name);
      if (!values) byName.set(name, (values = new Set()));
      values.add(value);
    }
    return new AttributeSet(byName);
  }

  /** The values held for `name`, or `undefined` when none. */
  values(name: string): ReadonlySet<string> | undefined {
    return this.byName.get(name);
  }

  /** Whether any value is held for `name`. */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Whether exactly `value` is held for `name` (no hierarchy). */
  hasValue(name: string, value: string): boolean {
    return this.byName.get(name)?.has(value) ?? false;
  }

  /** The attribute names held. */
  names(): IterableIterator<string> {
    return this.byName.keys();
  }

  /** The attributes as strings again; `name=true` comes back as `name`. */
  toStrings(): string[] {
    const out: string[] = [];
    for (const [name, values] of this.byName) {
      for (const value of values) out.push(value === TRUE ? name : `${name}=${value}`);
    }
    return out;
  }
}
