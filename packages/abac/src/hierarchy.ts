/**
 * Attribute value hierarchies (SPEC §3): an ordered list of values of one attribute, least to most
 * privileged, e.g. clearance `O < OS < S < TS`. A user holding a value satisfies `attr=v` for
 * every `v` at or below it.
 */

export class Hierarchy {
  readonly name: string;
  /** Values, least to most privileged. */
  readonly tiers: readonly string[];
  private readonly ranks: ReadonlyMap<string, number>;

  constructor(name: string, tiers: readonly string[]) {
    if (typeof name !== 'string' || name === '') throw new TypeError('Hierarchy: the attribute name must be a non-empty string');
    // As RDF-ABAC's hierarchy syntax (`name: v1, v2`): the name cannot hold ':' or white space.
    if (/[:\s]/u.test(name)) throw new TypeError(`Hierarchy: the attribute name ${JSON.stringify(name)} may not contain ':' or white space`);
    const ranks = new Map<string, number>();
    tiers.forEach((tier, index) => {
      if (typeof tier !== 'string') throw new TypeError(`Hierarchy ${name}: tier ${index} is not a string`);
      if (ranks.has(tier)) throw new TypeError(`Hierarchy ${name}: tier '${tier}' appears twice`);
      ranks.set(tier, index);
    });
    this.name = name;
    this.tiers = Object.freeze([...tiers]);
    this.ranks = ranks;
  }

  /** 0 for the least privileged tier, rising; `undefined` for a value not in the hierarchy. */
  rank(value: string): number | undefined {
    return this.ranks.get(value);
  }

  /** Whether holding `held` grants `required`: both are tiers and `held` is at or above it. */
  grants(held: string, required: string): boolean {
    const need = this.ranks.get(required);
    const have = this.ranks.get(held);
    return need !== undefined && have !== undefined && have >= need;
  }
}

/** Finds the hierarchy of an attribute, if it has one. Supplied by whoever knows (the access service). */
export type HierarchySource = (attributeName: string) => Hierarchy | undefined;

/** A `HierarchySource` over a fixed list of hierarchies (a later one replaces an earlier one of the same name). */
export function createHierarchySource(hierarchies: Iterable<Hierarchy>): HierarchySource {
  const byName = new Map<string, Hierarchy>();
  for (const h of hierarchies) byName.set(h.name, h);
  return (attributeName) => byName.get(attributeName);
}

/**
 * Hierarchies by attribute name from `[name, tiers]` pairs as an attribute service answers them
 * (the graph server's callers, the access service's "who could see it"). A pair Hierarchy refuses
 * (a name RDF-ABAC's syntax cannot hold, a tier twice) is left out: that attribute then matches
 * exact values only — less access, never more.
 */
export function hierarchiesOf(tiers: Iterable<readonly [string, readonly string[]]>): Map<string, Hierarchy> {
  const out = new Map<string, Hierarchy>();
  for (const [name, levels] of tiers) {
    try {
      out.set(name, new Hierarchy(name, levels));
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
  }
  return out;
}
