/**
 * Conformance with RDF-ABAC's TestShaclABAC (rdf-abac-fuseki): SHACL validation over the caller's
 * view, `POST /ds/shacl?default` with the shapes in the body (config-server-shacl.ttl: default
 * label `*`, attribute-store.ttl). More of `/ds/shacl` in ../../labels-shacl.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuads } from '@ianode/rdf';
import { ok, PERSON_SHAPES, reference, upload, type Reference } from './support.js';

// TestShaclABAC.SHACL_TEST_DATA
const DATA = `PREFIX authz: <http://telicent.io/security#>
PREFIX ex:    <http://example.org/ns#>
PREFIX foaf:  <http://xmlns.com/foaf/0.1/>
ex:Alice
    a              foaf:Person ;
    foaf:givenName "Alice" ;
    foaf:knows     ex:Bob .
ex:Bob
    a              foaf:Person ;
    foaf:givenName "Bob" ;
    foaf:knows     ex:Alice .
GRAPH authz:labels {
    [ authz:pattern '<http://example.org/ns#Alice> <http://xmlns.com/foaf/0.1/knows> <http://example.org/ns#Bob>' ; authz:label "manager" ] .
    [ authz:pattern '<http://example.org/ns#Bob> <http://xmlns.com/foaf/0.1/knows> <http://example.org/ns#Alice>' ; authz:label "manager" ] .
}
`;

const { BAD, GOOD } = PERSON_SHAPES;

describe('TestShaclABAC', () => {
  let ref: Reference;
  let base: string;
  beforeAll(async () => {
    ref = await reference({ users: { u1: ['manager'], u2: ['engineer'] } });
    ({ base } = await ref.start({ defaultLabel: '*' }));
    ok(await upload(base, ref.tokens.u1!, 'application/trig', DATA));
  });
  afterAll(async () => {
    await ref.close();
  });

  const shacl = (user: string | undefined, shapes: string) =>
    fetch(`${base}/ds/shacl?default`, { method: 'POST', headers: { 'content-type': 'text/turtle', ...(user ? { authorization: `Bearer ${ref.tokens[user]}` } : {}) }, body: shapes });
  const conforms = async (r: Response): Promise<boolean> => {
    expect(r.status).toBe(200);
    const { quads } = parseQuads(await r.text(), { format: 'text/turtle' });
    return quads.find((q) => q.predicate.value === 'http://www.w3.org/ns/shacl#conforms')!.object.value === 'true';
  };

  it('[kept difference] givenNoAuthorizationHeader_whenShaclValidate_thenBadRequest: 401 here (400 in the reference)', async () => {
    expect((await shacl(undefined, GOOD)).status).toBe(401);
  });

  it('givenManagerUser_whenShaclValidate_thenViolationReportedForSecurityLabelledData', async () => {
    expect(await conforms(await shacl('u1', BAD))).toBe(false);
  });

  it('givenManagerUser_whenShaclValidate_thenNoViolationForSecurityLabelledData', async () => {
    expect(await conforms(await shacl('u1', GOOD))).toBe(true);
  });

  it('givenEngineerUser_whenShaclValidate_thenNoViolationForVisibleData', async () => {
    expect(await conforms(await shacl('u2', GOOD))).toBe(true);
  });
});
