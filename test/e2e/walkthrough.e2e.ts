/**
 * What a newcomer does (README, SPEC §9), against `npm start` spawned with a temp data folder and
 * free ports: tokens through idp-local/fetch_id_token.sh (sourced in bash), whoami, JWKS, upload
 * without and with a token, the same query for two users, and the SPEC §3 reference example.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequestV4 } from '@ianode/idp';
import { NpmStartNode } from './support.js';

const node = new NpmStartNode('e2e');
const ports = node.ports;
const bash = (script: string): string => node.bash(script);
const tokens: Record<string, string> = {};

async function sparql(token: string, query: string): Promise<Array<Record<string, { value: string }>>> {
  const response = await fetch(`http://localhost:${ports.graph}/ds`, {
    method: 'POST',
    headers: { authorization: `bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { results: { bindings: Array<Record<string, { value: string }>> } };
  return body.results.bindings;
}

const triples = (rows: Array<Record<string, { value: string }>>) => rows.map((r) => `${r.s!.value} ${r.p!.value} ${r.o!.value}`).sort();

beforeAll(async () => {
  await node.start();
});

afterAll(async () => {
  await node.dispose();
});

describe('npm start, then SPEC §9', () => {
  it('prints the exports a newcomer needs', () => {
    for (const name of ['USER_POOL_ID', 'CLIENT_ID', 'IDP_ADMIN_PASSWORD', 'ADMIN_USER_EMAIL', 'USER_EMAIL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      expect(node.exportsText).toMatch(new RegExp(`^export ${name}=\\S+`, 'm'));
    }
  });

  it('1. issues ID tokens through fetch_id_token.sh for both demo users', () => {
    for (const who of ['ADMIN_USER_EMAIL', 'USER_EMAIL']) {
      const out = bash(`source idp-local/fetch_id_token.sh "$${who}" >&2 && printf '%s' "$IDP_ID_TOKEN"`);
      expect(out.split('.')).toHaveLength(3);
      tokens[who] = out;
    }
  });

  it('2. whoami shows identity, groups and attributes', () => {
    const out = bash(`source idp-local/fetch_id_token.sh "$ADMIN_USER_EMAIL" >/dev/null && curl -sS -H "Authorization: bearer $IDP_ID_TOKEN" localhost:${ports.access}/whoami`);
    const me = JSON.parse(out) as { email: string; groups: string[]; dataAttributes: string[] };
    expect(me.email).toBe('admin@ianode.local');
    expect(me.groups).toContain('ianode_admin');
    expect(me.dataAttributes).toEqual(expect.arrayContaining(['engineer=true', 'employee=true', 'clearance=TS']));
  });

  it('3. the JWKS is JSON with the keys', () => {
    const out = bash(`curl -sS localhost:${ports.idp}/$USER_POOL_ID/.well-known/jwks.json`);
    const jwks = JSON.parse(out) as { keys: Array<{ kty: string; kid: string; alg: string }> };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' });
  });

  it('4. upload without a token is 401; with the admin token it is stored', async () => {
    const body = '<http://example/e2e> <http://example/title> "uploaded by the admin" .';
    const anonymous = await fetch(`http://localhost:${ports.graph}/ds/upload`, { method: 'POST', headers: { 'content-type': 'text/turtle' }, body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer realm="ianode"');
    const stored = await fetch(`http://localhost:${ports.graph}/ds/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.ADMIN_USER_EMAIL}`, 'content-type': 'text/turtle', 'security-label': 'employee' },
      body,
    });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({ quads: 1, triples: 1 });
    const ordinary = await fetch(`http://localhost:${ports.graph}/ds/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.USER_EMAIL}`, 'content-type': 'text/turtle' },
      body: '<http://example/x> <http://example/y> "z" .',
    });
    expect(ordinary.status).toBe(403);
  });

  it('5. the same SPARQL query gives the admin and the ordinary user different, exact views', async () => {
    const q = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }';
    const ex = 'http://example/';
    expect(triples(await sparql(tokens.ADMIN_USER_EMAIL!, q))).toEqual(
      [
        `${ex}e2e ${ex}title uploaded by the admin`,
        `${ex}person4321 ${ex}phone 0400 111 333`,
        `${ex}person9876 ${ex}empId 9876`,
        `${ex}project1 ${ex}budget 250000`,
        `${ex}project1 ${ex}codename KESTREL`,
        `${ex}project1 ${ex}name Bridge survey`,
      ].sort(),
    );
    expect(triples(await sparql(tokens.USER_EMAIL!, q))).toEqual(
      [`${ex}person4321 ${ex}phone 0400 111 333`, `${ex}project1 ${ex}budget 250000`, `${ex}project1 ${ex}name Bridge survey`].sort(),
    );
  });

  it('SPEC §3 reference example through /ds/upload: the unlabelled triple is refused (no one could read it), then contractor sees 1 triple, employee 2', async () => {
    const labels = `GRAPH authz:labels {
  [ authz:pattern ':person4321 :phone "0400 111 333"' ; authz:label "*" ] .
  [ authz:pattern ':person9876 :empId 9876' ; authz:label "employee" ] .
}`;
    const prefixes = `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <http://example/ref/>
`;
    const upload = (body: string) =>
      fetch(`http://localhost:${ports.graph}/ds/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.ADMIN_USER_EMAIL}`, 'content-type': 'text/trig' },
        body,
      });
    const q = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(STRSTARTS(STR(?s), "http://example/ref/")) }';
    // As in SPEC §3, :person4321 :empId 4321 has no label: it would take the default `!`, which
    // no one, its writer included, can read; the write is refused and nothing is stored.
    const refused = await upload(`${prefixes}:person4321 :phone "0400 111 333" ; :empId 4321 .\n:person9876 :empId 9876 .\n${labels}`);
    expect(refused.status).toBe(400);
    const error = (await refused.json()) as { code: string; message: string };
    expect(error.code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
    expect(error.message).toMatch(/"!" \(the dataset's default label[^)]*\) on 1 quad\b/);
    expect(triples(await sparql(tokens.ADMIN_USER_EMAIL!, q))).toEqual([]);
    const response = await upload(`${prefixes}:person4321 :phone "0400 111 333" .\n:person9876 :empId 9876 .\n${labels}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ quads: 2, labelEntries: 2, inserted: 2, labels: [{ label: '*', quads: 1 }, { label: 'employee', quads: 1 }] });
    const contractor = triples(await sparql(tokens.USER_EMAIL!, q));
    const employee = triples(await sparql(tokens.ADMIN_USER_EMAIL!, q));
    expect(contractor).toEqual(['http://example/ref/person4321 http://example/ref/phone 0400 111 333']);
    expect(employee).toEqual(['http://example/ref/person4321 http://example/ref/phone 0400 111 333', 'http://example/ref/person9876 http://example/ref/empId 9876']);
  });

  it('writes as the README shows: update and GSP PUT by the admin (labelled), 403 for the user, who sees neither', async () => {
    const g = `localhost:${ports.graph}`;
    const out = bash(`source idp-local/fetch_id_token.sh "$ADMIN_USER_EMAIL" >/dev/null
curl -sS -o /dev/null -w '%{http_code}\\n' -H "Authorization: bearer $IDP_ID_TOKEN" -H 'Security-Label: employee' ${g}/ds/update \\
     --data-urlencode 'update=INSERT DATA { <http://example/x> <http://example/y> "z" }'
curl -sS -o /dev/null -w '%{http_code}\\n' -X PUT -H "Authorization: bearer $IDP_ID_TOKEN" -H 'Security-Label: employee' -H 'Content-Type: text/turtle' \\
     '${g}/ds/data?graph=http://example/g1' --data '<http://example/a> <http://example/b> "in g1" .'
curl -sS -H "Authorization: bearer $IDP_ID_TOKEN" -H 'Accept: application/n-triples' '${g}/ds/data?graph=http://example/g1'`);
    const [update, put, ...body] = out.trim().split('\n');
    expect(update).toBe('200');
    expect(put).toBe('201');
    expect(body.join('\n').trim()).toBe('<http://example/a> <http://example/b> "in g1" .');
    const user = bash(`source idp-local/fetch_id_token.sh "$USER_EMAIL" >/dev/null
curl -sS -o /dev/null -w '%{http_code}\\n' -H "Authorization: bearer $IDP_ID_TOKEN" ${g}/ds/update --data-urlencode 'update=INSERT DATA { <http://example/u> <http://example/v> "w" }'
curl -sS -o /dev/null -w '%{http_code}\\n' -X PUT -H "Authorization: bearer $IDP_ID_TOKEN" -H 'Content-Type: text/turtle' '${g}/ds/data?graph=http://example/g2' --data '<http://example/u> <http://example/v> "w" .'`);
    expect(user.trim().split('\n')).toEqual(['403', '403']);
    const q = 'SELECT ?s ?p ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } FILTER(?s IN (<http://example/x>, <http://example/a>, <http://example/u>)) }';
    expect(triples(await sparql(tokens.ADMIN_USER_EMAIL!, q))).toEqual(['http://example/a http://example/b in g1', 'http://example/x http://example/y z']);
    expect(await sparql(tokens.USER_EMAIL!, q)).toEqual([]);
  });

  it('files at rest: every folder below the data folder is 0700 and every file 0600', () => {
    const entries = node.filesAtRest();
    // The three services' folders and their files are all there, none readable by others.
    expect(entries.map((e) => e.slice(5))).toEqual(expect.arrayContaining(['./', 'idp/', 'access/', 'ds/', 'ianode-admin.json']));
    expect(entries.filter((e) => e.endsWith('/') ? !e.startsWith('0700 ') : !e.startsWith('0600 '))).toEqual([]);
  });

  it('issue 14: three processes; a frozen or killed graph server leaves sign-in working, and the graph server comes back', async () => {
    const running = [...node.output.matchAll(/^ianode: (idp|access|graph) running \(pid (\d+)\)$/gm)];
    const pids = Object.fromEntries(running.map((m) => [m[1]!, Number(m[2])]));
    expect(Object.keys(pids).sort()).toEqual(['access', 'graph', 'idp']);
    expect(new Set(Object.values(pids)).size).toBe(3);
    // The graph server keeps its memory-return setting as a process of its own.
    expect(readFileSync(`/proc/${pids.graph}/environ`, 'latin1').split('\0')).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    // A frozen graph server (what a pathological query did to the one shared event loop): sign-in
    // and the IdP's health still answer. In one process this would hang until the test timed out.
    process.kill(pids.graph!, 'SIGSTOP');
    try {
      const token = bash(`source idp-local/fetch_id_token.sh "$USER_EMAIL" >&2 && printf '%s' "$IDP_ID_TOKEN"`);
      expect(token.split('.')).toHaveLength(3);
      expect((await fetch(`http://localhost:${ports.idp}/health`)).status).toBe(200);
    } finally {
      process.kill(pids.graph!, 'SIGCONT');
    }
    // A crashed graph server: the IdP answers meanwhile, and a new graph server serves the same data.
    process.kill(pids.graph!, 'SIGKILL');
    expect((await fetch(`http://localhost:${ports.idp}/health`)).status).toBe(200);
    const again = /^ianode: graph running again \(pid (\d+)\)$/m;
    await expect.poll(() => again.test(node.output), { timeout: 45_000, interval: 200 }).toBe(true);
    expect(node.output).toMatch(/^ianode: graph stopped \(killed by SIGKILL\); restarting in 1000 ms/m);
    expect(Number(again.exec(node.output)![1])).not.toBe(pids.graph);
    const q = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(STRSTARTS(STR(?s), "http://example/ref/")) }';
    expect(triples(await sparql(tokens.USER_EMAIL!, q))).toEqual(['http://example/ref/person4321 http://example/ref/phone 0400 111 333']);
  });

  it('a user created in the IdP with group ianode_read reads at once, no access-service step (issue 15, config/access-demo.yaml)', async () => {
    const idp = `http://localhost:${ports.idp}`;
    const secret = bash('printf %s "$AWS_SECRET_ACCESS_KEY"');
    const keyId = bash('printf %s "$AWS_ACCESS_KEY_ID"');
    const pool = bash('printf %s "$USER_POOL_ID"');
    const cognito = async (operation: string, body: Record<string, unknown>): Promise<Response> => {
      const payload = JSON.stringify({ UserPoolId: pool, ...body });
      const headers = signRequestV4(
        { method: 'POST', url: '/', headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${operation}`, host: `localhost:${ports.idp}` }, body: payload },
        { accessKeyId: keyId, secretAccessKey: secret, region: 'us-east-1', service: 'cognito-idp', now: Date.now() },
      );
      return fetch(`${idp}/`, { method: 'POST', headers, body: payload });
    };
    const email = 'new.reader@example.org';
    expect((await cognito('AdminCreateUser', { Username: email, UserAttributes: [{ Name: 'email', Value: email }, { Name: 'email_verified', Value: 'true' }], MessageAction: 'SUPPRESS' })).status).toBe(200);
    expect((await cognito('AdminSetUserPassword', { Username: email, Password: 'Ianode-demo-1x', Permanent: true })).status).toBe(200);
    expect((await cognito('AdminAddUserToGroup', { Username: email, GroupName: 'ianode_read' })).status).toBe(200);
    const out = bash(`IDP_ADMIN_PASSWORD='Ianode-demo-1x' source idp-local/fetch_id_token.sh ${email} >&2 && printf '%s' "$IDP_ID_TOKEN"`);
    const q = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(STRSTARTS(STR(?s), "http://example/ref/")) }';
    // Data labelled `*` is what a reader with no other attribute sees.
    expect(triples(await sparql(out, q))).toEqual(['http://example/ref/person4321 http://example/ref/phone 0400 111 333']);
    const me = JSON.parse(bash(`curl -sS -H "Authorization: bearer ${out}" localhost:${ports.access}/whoami`)) as { active: boolean; groups: string[] };
    expect(me).toMatchObject({ active: true, groups: ['ianode_read'] });
  });

  it('a second npm start reuses the data (no second demo load, same admin key)', async () => {
    const count = async (): Promise<number> => {
      const res = await fetch(`http://localhost:${ports.graph}/ds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.ADMIN_USER_EMAIL}`, 'content-type': 'application/sparql-query' },
        body: 'SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }',
      });
      const body = (await res.json()) as { results: { bindings: Array<{ n: { value: string } }> } };
      return Number(body.results.bindings[0]!.n.value);
    };
    const quads = await count();
    // The demo data, the uploads and the writes of the tests above: every acknowledged write.
    expect(quads).toBe(10);
    const before = node.exportsText;
    await node.stop();
    await node.start();
    expect(node.output).not.toContain('demo data loaded');
    expect(node.exportsText).toBe(before);
    expect(await count()).toBe(quads);
  });
});
