/**
 * What the console needs to know, served by the graph server as `GET /console/config.json`
 * (packages/graph-server/src/routes/console.ts; docs/console.md "Configuration"). The type is the
 * server's (`@ianode/graph-server/console-config`, a types-only module), so the two cannot drift.
 */
import type { ConsoleClientConfig } from '@ianode/graph-server/console-config';

export type ConsoleConfig = ConsoleClientConfig;

/** Checks the shape of a config document; throws naming the first bad field. */
export function parseConfig(value: unknown): ConsoleConfig {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('console config: not a JSON object');
  const v = value as Record<string, unknown>;
  const text = (key: string): string => {
    const x = v[key];
    if (typeof x !== 'string') throw new Error(`console config: ${key} must be a string`);
    return x;
  };
  const flag = (key: string): boolean => {
    const x = v[key];
    if (typeof x !== 'boolean') throw new Error(`console config: ${key} must be true or false`);
    return x;
  };
  const mode = text('mode');
  if (mode !== 'secure' && mode !== 'open') throw new Error('console config: mode must be "secure" or "open"');
  return {
    issuer: text('issuer'),
    clientId: text('clientId'),
    accessServiceUrl: text('accessServiceUrl'),
    dataset: text('dataset'),
    labelsLegacy: flag('labelsLegacy'),
    graphql: flag('graphql'),
    mode,
  };
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch('/console/config.json', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET /console/config.json: ${response.status}`);
  return parseConfig(await response.json());
}
