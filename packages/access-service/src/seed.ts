import { readFileSync } from 'node:fs';
import { parseConfigText } from '@ianode/service';
import type { Directory } from './directory/directory.js';
import type { HierarchyRecord, NewAttributeDefinition, NewGroup, NewUser } from './directory/types.js';
import { AccessError } from './errors.js';

/** A seed file: what the directory should hold at least (YAML or JSON). */
export interface SeedDocument {
  hierarchies?: HierarchyRecord[];
  attributes?: NewAttributeDefinition[];
  groups?: NewGroup[];
  users?: NewUser[];
}

/** What applying a seed did. */
export interface SeedReport {
  created: { hierarchies: string[]; attributes: string[]; groups: string[]; users: string[] };
}

/**
 * Reads a seed file (YAML, or JSON by its `.json` ending) with the services' one `${VAR}` rule
 * (@ianode/service config.ts). Throws `Error` naming the file on a syntax error or an unset variable.
 */
export function readSeedFile(path: string, env: Readonly<Record<string, string | undefined>> = process.env): SeedDocument {
  let document: unknown;
  try {
    document = parseConfigText(readFileSync(path, 'utf8'), { env, format: /\.json$/i.test(path) ? 'json' : 'yaml', source: 'the seed' });
  } catch (cause) {
    throw new Error(`cannot read seed file ${path}: ${(cause as Error).message}`, { cause });
  }
  return checkSeed(document ?? {}, path);
}

function checkSeed(document: unknown, source: string): SeedDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new Error(`seed ${source}: not a mapping`);
  const known = new Set(['hierarchies', 'attributes', 'groups', 'users']);
  for (const [key, value] of Object.entries(document)) {
    if (!known.has(key)) throw new Error(`seed ${source}: unknown section ${JSON.stringify(key)} (expected ${[...known].join(', ')})`);
    if (value !== null && !Array.isArray(value)) throw new Error(`seed ${source}: section ${key} must be a list`);
    for (const entry of (value ?? []) as unknown[]) {
      const idKey = key === 'users' ? 'id' : 'name';
      if (typeof entry !== 'object' || entry === null || typeof (entry as Record<string, unknown>)[idKey] !== 'string') {
        throw new Error(`seed ${source}: every entry of ${key} needs a string ${idKey}`);
      }
    }
  }
  return document as SeedDocument;
}

/**
 * Applies a seed in one transaction: creates every hierarchy, attribute definition, group and user
 * that does not exist yet, and never changes one that does (so edits made through the admin API
 * survive restarts, and applying a seed twice changes nothing). Any invalid entry refuses the whole
 * seed with an `Error` naming it.
 */
export function applySeed(directory: Directory, seed: SeedDocument, source = 'seed'): SeedReport {
  const created: SeedReport['created'] = { hierarchies: [], attributes: [], groups: [], users: [] };
  const at = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      const message = error instanceof AccessError ? error.message : String(error);
      throw new Error(`${source}: ${what}: ${message}`, { cause: error });
    }
  };
  directory.write(() => {
    for (const h of seed.hierarchies ?? []) {
      if (directory.getHierarchy(h.name) !== undefined) continue;
      at(`hierarchy ${h.name}`, () => directory.putHierarchy(h.name, h.tiers ?? []));
      created.hierarchies.push(h.name);
    }
    for (const a of seed.attributes ?? []) {
      if (directory.getDefinition(a.name) !== undefined) continue;
      at(`attribute ${a.name}`, () => directory.putDefinition(a));
      created.attributes.push(a.name);
    }
    for (const g of seed.groups ?? []) {
      if (directory.getGroup(g.name) !== undefined) continue;
      at(`group ${g.name}`, () => directory.createGroup(g));
      created.groups.push(g.name);
    }
    for (const u of seed.users ?? []) {
      if (directory.getUser(u.id) !== undefined) continue;
      at(`user ${u.id}`, () => directory.createUser(u));
      created.users.push(u.id);
    }
  });
  return { created };
}
