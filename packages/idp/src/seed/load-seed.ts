/** Reads a seed file: YAML (`.yaml`/`.yml`) or JSON, then environment substitution and checks. */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { checkSeed, SeedError, substituteEnv, type SeedDocument } from './seed-schema.js';

export function parseSeed(text: string, format: 'yaml' | 'json', env: Record<string, string | undefined> = process.env): SeedDocument {
  let raw: unknown;
  try {
    raw = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new SeedError(`seed is not valid ${format.toUpperCase()}: ${(err as Error).message}`);
  }
  return checkSeed(substituteEnv(raw, env));
}

export async function loadSeedFile(path: string, env: Record<string, string | undefined> = process.env): Promise<SeedDocument> {
  const text = await readFile(path, 'utf8');
  return parseSeed(text, /\.json$/i.test(path) ? 'json' : 'yaml', env);
}
