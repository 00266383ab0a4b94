/**
 * The attribute client reads both lookup formats (issue 17, item 6). Reference answers are
 * transcribed from the reference's own tests and documents: ianode-access's user lookup tests and
 * OpenAPI examples (`AttributesToStrings`, `Hierarchy`), and RDF-ABAC's remote attribute store
 * tests (`TestAttributeStoreRemote`: `["v"]` is the boolean `v`, `["v>1"]` a syntax error, a
 * hierarchy answer with `tiers`).
 */
import { describe, expect, it } from 'vitest';
import { parseAttributeValue } from '@ianode/abac';
import { AuthError, createAttributeClient, identityKey, looksLikeReference, readAttributes, readReferenceAttributes as readWith, UnreadableAttribute, type AttributeFormat } from '../src/index.js';

/** The parser the graph server injects: `@ianode/abac`'s, legacy fallback on (as the reference). */
const parse = (text: string) => parseAttributeValue(text, { legacy: true });
const readReferenceAttributes = (strings: readonly string[]) => readWith(strings, parse);


/** ianode-access read.test.js: the lookup of its first test user (by e-mail and by external id). */
const REFERENCE_LOOKUP = [
  "permitted_nationalities='GBR'",
  "classification='O'",
  "permitted_organisations='Integration Architecture'",
  'urn:ndtp:groups:developers:and',
  'urn:ndtp:groups:csuite:and',
  'urn:ndtp:groups:developers:or',
  'urn:ndtp:groups:csuite:or',
];

/** ianode-access Attributes.js, the OpenAPI example `AttributesToStrings`. */
const REFERENCE_EXAMPLE = [
  "permitted_nationalities='GBR'",
  "classification='OS'",
  "permitted_organisations='Org1'",
  'urn:ndtp:groups:G1:and',
  'urn:ndtp:groups:G2:and',
  'urn:ndtp:groups:G3:or',
  'urn:ndtp:groups:G4:or',
];

describe('reading reference attribute strings', () => {
  it("the reference's lookup: quotes removed, every G:and / G:or kept and also read as the group G", () => {
    expect(readReferenceAttributes(REFERENCE_LOOKUP)).toEqual([
      'permitted_nationalities=GBR',
      'classification=O',
      'permitted_organisations=Integration Architecture',
      'urn:ndtp:groups:developers:and',
      'urn:ndtp:groups:developers',
      'urn:ndtp:groups:csuite:and',
      'urn:ndtp:groups:csuite',
      'urn:ndtp:groups:developers:or',
      'urn:ndtp:groups:csuite:or',
    ]);
    expect(readReferenceAttributes(REFERENCE_EXAMPLE)).toEqual([
      'permitted_nationalities=GBR', 'classification=OS', 'permitted_organisations=Org1',
      'urn:ndtp:groups:G1:and', 'urn:ndtp:groups:G1', 'urn:ndtp:groups:G2:and', 'urn:ndtp:groups:G2',
      'urn:ndtp:groups:G3:or', 'urn:ndtp:groups:G3', 'urn:ndtp:groups:G4:or', 'urn:ndtp:groups:G4',
    ]);
  });

  it('values as the label language reads them: escapes decoded, a quoted = kept in the value', () => {
    expect(readReferenceAttributes(["org='O\\'Brien \\\\ Co'", "x='a=b'", '"n"="v"', 'user@host'])).toEqual(["org=O'Brien \\ Co", 'x=a=b', 'n=v', 'user@host']);
  });

  it('unreadable strings throw (RDF-ABAC: AttributeSyntaxError for "v>1"); never dropped or changed', () => {
    for (const text of ['v>1', 'a b', 'a=b=c', 'a & b', '(a)', 'a != b', "x='open", '', '*', '!']) {
      expect(() => readReferenceAttributes([text]), text).toThrow(UnreadableAttribute);
    }
    // A name AttributeSet cannot hold: refused rather than split into another attribute.
    expect(() => readReferenceAttributes(["'a=b'"])).toThrow(UnreadableAttribute);
    expect(() => readReferenceAttributes(["''='x'"])).toThrow(UnreadableAttribute);
  });

  it('auto: reference when every value is quoted (or only paired G:and / G:or groups); else ianode, taken as it is', () => {
    expect(looksLikeReference(REFERENCE_LOOKUP)).toBe(true);
    expect(looksLikeReference(REFERENCE_EXAMPLE)).toBe(true);
    expect(looksLikeReference(['ianode_read:and', 'ianode_read:or'])).toBe(true);
    expect(looksLikeReference(['clearance=S', 'nationality=GBR', 'ianode_read'])).toBe(false);
    expect(looksLikeReference(["classification='S'", 'nationality=GBR'])).toBe(false);
    expect(looksLikeReference(['ianode_read:and'])).toBe(false);
    expect(looksLikeReference(['ianode_read'])).toBe(false);
    expect(looksLikeReference([])).toBe(false);
    expect(readAttributes(['clearance=S', "note=it's", 'ianode_read'], 'auto', parse)).toEqual(['clearance=S', "note=it's", 'ianode_read']);
    expect(readAttributes(REFERENCE_LOOKUP, 'auto', parse)).toEqual(readReferenceAttributes(REFERENCE_LOOKUP));
    // Without a parser a reference answer is unreadable (fail closed), an ianode one is read.
    expect(() => readAttributes(REFERENCE_LOOKUP, 'auto', undefined)).toThrow(UnreadableAttribute);
    expect(readAttributes(['clearance=S'], 'auto', undefined)).toEqual(['clearance=S']);
  });

  it('a configured format is not second-guessed: ianode keeps quotes (less access, never more); reference reads ianode strings the same', () => {
    expect(readAttributes(REFERENCE_LOOKUP, 'ianode', parse)).toEqual(REFERENCE_LOOKUP);
    expect(readAttributes(['clearance=S', 'ianode_read'], 'reference', parse)).toEqual(['clearance=S', 'ianode_read']);
  });
});

// ---------------------------------------------------------------------------------------------
// the client over HTTP answers (injected fetch)

const BASE = 'http://access.test:8091';
const who = (sub: string) => ({ identity: identityKey('http://idp.test/pool', sub), subject: sub });

function client(routes: Record<string, [number, unknown]>, format?: AttributeFormat) {
  const fetch: typeof globalThis.fetch = async (input) => {
    const route = routes[String(input)];
    if (route === undefined) return new Response('{"code":404,"message":"User not found"}', { status: 404 });
    return new Response(typeof route[1] === 'string' ? route[1] : JSON.stringify(route[1]), { status: route[0] });
  };
  return createAttributeClient({ baseUrl: BASE, fetch, parseAttributeValue: parse, ...(format === undefined ? {} : { format }) });
}

describe('createAttributeClient over a reference access service', () => {
  const lookup = `${BASE}/users/lookup/alice`;
  const classification = `${BASE}/hierarchies/lookup/classification`;
  const hierarchy = { uuid: '64d25a470a97a540165757da', name: 'classification', tiers: ['O', 'OS', 'S', 'TS'], readonly: true };

  it('resolves the reference lookup and its hierarchy `{uuid, name, tiers, readonly}`, by default (auto) and configured', async () => {
    for (const format of [undefined, 'reference'] as const) {
      const c = client({ [lookup]: [200, { id: '6564acddf66ddafd4a2fd645', attributes: REFERENCE_EXAMPLE }], [classification]: [200, hierarchy] }, format);
      const resolved = await c.resolve('tok', who('alice'));
      expect(resolved.status).toBe('known');
      expect(resolved.attributes).toEqual(readReferenceAttributes(REFERENCE_EXAMPLE));
      expect(resolved.hierarchies.get('classification')).toEqual(['O', 'OS', 'S', 'TS']);
    }
  });

  it("reads RDF-ABAC's other hierarchy field, levels", async () => {
    const c = client({ [`${BASE}/hierarchies/lookup/a`]: [200, { levels: ['v', 'w'] }] });
    expect(await c.hierarchy('a')).toEqual(['v', 'w']);
  });

  it('the inactive answer of the reference (`attributes: []`) is a known user with nothing; 404 is unknown', async () => {
    const c = client({ [lookup]: [200, { id: '64ddcccccccccccccccbe13b', attributes: [] }] }, 'reference');
    expect(await c.resolve('tok', who('alice'))).toMatchObject({ status: 'known', attributes: [] });
    expect(await c.resolve('tok', who('bob'))).toMatchObject({ status: 'unknown', attributes: [] });
  });

  it('fails closed (ATTRIBUTES_UNAVAILABLE, 503) on an answer it cannot read: a syntax error, a non-string entry, no list', async () => {
    const answers: unknown[] = [{ attributes: ['v>1'] }, { attributes: [0] }, { attributes: 'v' }, { k: 'v' }, 'text'];
    for (const answer of answers) {
      const c = client({ [lookup]: [200, answer] }, 'reference');
      const error = await c.resolve('tok', who('alice')).catch((e: unknown) => e);
      expect(error, JSON.stringify(answer)).toBeInstanceOf(AuthError);
      expect((error as AuthError).code).toBe('ATTRIBUTES_UNAVAILABLE');
    }
    const hierarchyless = client({ [lookup]: [200, { attributes: ["classification='S'"] }], [classification]: [200, { uuid: 'x', name: 'classification' }] });
    expect(((await hierarchyless.resolve('tok', who('alice')).catch((e: unknown) => e)) as AuthError).code).toBe('ATTRIBUTES_UNAVAILABLE');
  });

  it('without a parser the client reads ianode answers only (default ianode); asking for reference then is refused at creation', () => {
    expect(() => createAttributeClient({ baseUrl: BASE, format: 'reference' })).toThrow(/needs parseAttributeValue/);
    expect(() => createAttributeClient({ baseUrl: BASE, format: 'auto' })).toThrow(/needs parseAttributeValue/);
    expect(() => createAttributeClient({ baseUrl: BASE })).not.toThrow();
  });

  it('ianode answers are unchanged under auto', async () => {
    const c = client({ [lookup]: [200, { id: 'alice', attributes: ['clearance=S', 'ianode_read'], active: true }] });
    expect(await c.attributesFor('tok', who('alice'))).toEqual(['clearance=S', 'ianode_read']);
  });
});
