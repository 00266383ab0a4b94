/**
 * GraphQL in the newcomer's walk-through (SPEC §5, §9 step 5), against `npm start` spawned with a
 * temp data folder and free ports: tokens through idp-local/fetch_id_token.sh, then the SPEC §5
 * example for the demo ordinary user (exact) and the demo admin (a different, correct answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NpmStartNode } from './support.js';

const node = new NpmStartNode('e2e-graphql');
const ports = node.ports;
const bash = (script: string): string => node.bash(script);
const tokens: Record<string, string> = {};

async function graphql(token: string | undefined, query: string, accept = 'application/json'): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`http://localhost:${ports.graph}/ds/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

const EXAMPLE = '{ node(uri: "http://example/person4321") { id properties { predicate value } } }';
const EXACT = '{"data":{"node":{"id":"http://example/person4321","properties":[{"predicate":"http://example/phone","value":"0400 111 333"}]}}}';

beforeAll(async () => {
  await node.start();
  for (const who of ['ADMIN_USER_EMAIL', 'USER_EMAIL']) {
    tokens[who] = bash(`source idp-local/fetch_id_token.sh "$${who}" >&2 && printf '%s' "$IDP_ID_TOKEN"`);
  }
});

afterAll(async () => {
  await node.dispose();
});

describe('npm start, then GraphQL at /ds/graphql', () => {
  it('without a token: 401, no data', async () => {
    const r = await graphql(undefined, EXAMPLE);
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('0400');
  });

  it('the SPEC §5 example returns exactly the SPEC answer for the demo ordinary user', async () => {
    const r = await graphql(tokens.USER_EMAIL, EXAMPLE);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(r.text).toBe(EXACT);
    const strict = await graphql(tokens.USER_EMAIL, EXAMPLE, 'application/graphql-response+json');
    expect(strict.type).toBe('application/graphql-response+json; charset=utf-8');
    expect(strict.text).toBe(EXACT);
  });

  it('the admin and the ordinary user get different, correct answers from the demo data', async () => {
    const q = '{ project: node(uri: "http://example/project1") { properties { predicate value } } person: node(uri: "http://example/person9876") { properties { value datatype } } }';
    const values = (text: string) => {
      const data = (JSON.parse(text) as { data: { project: { properties: Array<{ value: string }> } | null; person: { properties: Array<{ value: string }> } | null } }).data;
      return { project: data.project?.properties.map((p) => p.value).sort() ?? null, person: data.person?.properties ?? null };
    };
    expect(values((await graphql(tokens.ADMIN_USER_EMAIL, q)).text)).toEqual({
      project: ['250000', 'Bridge survey', 'KESTREL'],
      person: [{ value: '9876', datatype: 'http://www.w3.org/2001/XMLSchema#integer' }],
    });
    expect(values((await graphql(tokens.USER_EMAIL, q)).text)).toEqual({ project: ['250000', 'Bridge survey'], person: null });
  });

  it('the SPEC §5 example: once the admin adds an employee-only triple, the admin sees it and the user still gets the exact SPEC answer', async () => {
    // In the demo data the admin's answer equals the user's (the phone is labelled `*`, the empId
    // `!`), so give :person4321 a triple only employees may see.
    const stored = await fetch(`http://localhost:${ports.graph}/ds/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.ADMIN_USER_EMAIL}`, 'content-type': 'text/turtle', 'security-label': 'employee' },
      body: '<http://example/person4321> <http://example/email> "p4321@example.org" .',
    });
    expect(stored.status).toBe(200);
    const admin = JSON.parse((await graphql(tokens.ADMIN_USER_EMAIL, EXAMPLE)).text) as { data: { node: { id: string; properties: Array<{ predicate: string; value: string }> } } };
    expect(admin.data.node.id).toBe('http://example/person4321');
    expect(admin.data.node.properties).toEqual(
      expect.arrayContaining([
        { predicate: 'http://example/phone', value: '0400 111 333' },
        { predicate: 'http://example/email', value: 'p4321@example.org' },
      ]),
    );
    expect(admin.data.node.properties).toHaveLength(2);
    expect((await graphql(tokens.USER_EMAIL, EXAMPLE)).text).toBe(EXACT);
  });

  it('a browser gets the query page (with the token, as every dataset route)', async () => {
    const r = await fetch(`http://localhost:${ports.graph}/ds/graphql`, { headers: { accept: 'text/html', authorization: `Bearer ${tokens.USER_EMAIL}` } });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('<textarea id="query"');
  });
});
