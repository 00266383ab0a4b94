/** The one `${VAR}` rule (src/config.ts) and the environment helpers. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, envFlag, envList, envValue, parseConfigText, readConfigFile, substituteEnv, substituteEnvDeep } from '../src/index.js';

describe('substituteEnv (one value)', () => {
  it('replaces ${NAME} and ${NAME:-default}', () => {
    expect(substituteEnv('${A}/x/${B:-two}', { A: 'one' })).toBe('one/x/two');
    expect(substituteEnv('${B:-}', {})).toBe('');
    expect(substituteEnv('${B:-a b: c}', {})).toBe('a b: c');
  });

  it('counts a set but empty variable as unset', () => {
    expect(substituteEnv('${A:-fallback}', { A: '' })).toBe('fallback');
    expect(() => substituteEnv('${A}', { A: '' })).toThrow(ConfigError);
  });

  it('refuses an unset variable without a default, naming it and the place', () => {
    const attempt = () => substituteEnv('x ${JWKS_URL} y', {}, 'security.jwksUrl');
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^security\.jwksUrl: \$\{JWKS_URL\} names the environment variable JWKS_URL, which is not set/);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).path).toBe('security.jwksUrl');
      expect(error).toBeInstanceOf(TypeError);
    }
  });

  it('$${ is a literal ${, and nothing after it is substituted', () => {
    expect(substituteEnv('$${A}', { A: 'one' })).toBe('${A}');
    expect(substituteEnv('$${NOPE} and ${A}', { A: 'one' })).toBe('${NOPE} and one');
  });

  it('leaves what is not a reference alone', () => {
    expect(substituteEnv('$A ${1X} ${} $ {A} cost: $5', { A: 'one' })).toBe('$A ${1X} ${} $ {A} cost: $5');
  });

  it('does not substitute inside a substituted value', () => {
    expect(substituteEnv('${A}', { A: '${B}', B: 'no' })).toBe('${B}');
  });
});

describe('substituteEnvDeep (a parsed document)', () => {
  it('substitutes string values at any depth, never keys, and names the path of a missing one', () => {
    expect(substituteEnvDeep({ '${K}': ['${A}', 3, { b: '${A:-x}' }] }, { A: 'a' })).toEqual({ '${K}': ['a', 3, { b: 'a' }] });
    expect(() => substituteEnvDeep({ pools: [{ name: '${MISSING}' }] }, {})).toThrow(/^pools\[0\]\.name: /);
  });
});

describe('parseConfigText (YAML and JSON files)', () => {
  it('substitutes after parsing, in values only: comments and keys are left alone', () => {
    const text = '# ${NOPE} in a comment\na: ${A}   # ${NOPE} again\n${KEY}: 1\nlist:\n  - ${A:-x}\n  - { b: "${A}" }\n';
    expect(parseConfigText(text, { env: { A: 'one' } })).toEqual({ a: 'one', '${KEY}': 1, list: ['one', { b: 'one' }] });
  });

  it('an environment value never changes the structure', () => {
    const env = { EVIL: 'x\nadmin: true\n- [1, 2]', HASH: 'pass # word' };
    expect(parseConfigText('password: ${EVIL}\nother: ${HASH}\n', { env })).toEqual({ password: env.EVIL, other: env.HASH });
  });

  it('an unquoted value that comes out as a number or true/false is one; a quoted one stays a string', () => {
    const env = { N: '60000', T: 'true', F: '1.5e3', X: '0x1f' };
    const text = 'n: ${N}\nt: ${T}\nf: ${F}\nx: ${X}\nq: "${N}"\ns: \'${T}\'\nmixed: ${N}ms\nd: ${D:-42}\n';
    expect(parseConfigText(text, { env })).toEqual({ n: 60000, t: true, f: 1500, x: 31, q: '60000', s: 'true', mixed: '60000ms', d: 42 });
  });

  it('JSON values stay as written (strings stay strings)', () => {
    expect(parseConfigText('{"a": "${N}", "b": 2, "c": ["${S:-x}"]}', { env: { N: '5' }, format: 'json' })).toEqual({ a: '5', b: 2, c: ['x'] });
  });

  it('names the value of an unset variable, in maps and lists', () => {
    expect(() => parseConfigText('security:\n  jwksUrl: ${JWKS_URL}\n', { env: {} })).toThrow(/^security\.jwksUrl: \$\{JWKS_URL\}/);
    expect(() => parseConfigText('pools:\n  - users:\n      - password: "${PW}"\n', { env: {} })).toThrow(/^pools\[0\]\.users\[0\]\.password: /);
  });

  it('a syntax error names the source', () => {
    expect(() => parseConfigText('a: [', { source: 'graph.yaml' })).toThrow(/^graph\.yaml is not valid YAML/);
    expect(() => parseConfigText('{', { source: 'seed.json', format: 'json' })).toThrow(/^seed\.json is not valid JSON/);
  });

  it('an escaped $${ reads as a literal ${', () => {
    expect(parseConfigText('a: $${HOME}\n', { env: { HOME: '/root' } })).toEqual({ a: '${HOME}' });
  });

  it('readConfigFile picks JSON by the file ending', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ianode-service-config-'));
    try {
      writeFileSync(join(dir, 'c.yaml'), 'port: ${P:-3030}\n');
      writeFileSync(join(dir, 'c.json'), '{"port": "${P:-3030}"}');
      expect(await readConfigFile(join(dir, 'c.yaml'), {})).toEqual({ port: 3030 });
      expect(await readConfigFile(join(dir, 'c.json'), {})).toEqual({ port: '3030' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('environment helpers', () => {
  it('empty counts as unset; lists are trimmed; flags are true only for "true"', () => {
    expect(envValue({ A: '' }, 'A')).toBeUndefined();
    expect(envValue({ A: 'x' }, 'A')).toBe('x');
    expect(envList({ L: ' a, b,,c ' }, 'L')).toEqual(['a', 'b', 'c']);
    expect(envList({}, 'L')).toBeUndefined();
    expect(envFlag({ F: 'true' }, 'F')).toBe(true);
    expect(envFlag({ F: 'yes' }, 'F')).toBe(false);
    expect(envFlag({ F: '' }, 'F')).toBeUndefined();
  });
});
