/**
 * Reads a seed file: YAML (`.yaml`/`.yml`) or JSON, with the services' one `${VAR}` rule
 * (@ianode/service config.ts: substituted after parsing, inside values only), then checks.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError, parseConfigText, type Env } from '@ianode/service';
import { checkSeed, SeedError, type SeedDocument } from './seed-schema.js';

export function parseSeed(text: string, format: 'yaml' | 'json', env: Env = process.env): SeedDocument {
  let raw: unknown;
  try {
    raw = parseConfigText(text, { env, format, source: 'seed' });
  } catch (err) {
    if (err instanceof ConfigError) throw new SeedError(err.path === '' ? err.message : `seed.${err.message}`);
    throw err;
  }
  return checkSeed(raw);
}

export async function loadSeedFile(path: string, env: Env = process.env): Promise<SeedDocument> {
  const text = await readFile(path, 'utf8');
  return parseSeed(text, /\.json$/i.test(path) ? 'json' : 'yaml', env);
}
