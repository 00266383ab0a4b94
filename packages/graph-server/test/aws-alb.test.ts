/**
 * `JWKS_URL=aws:<region>` (issue 17 item 8): tokens of an AWS Application Load Balancer in the
 * `x-amzn-oidc-data` header, ES256, the key of the header's `kid` fetched as PEM from the region's
 * key server and cached. The key server here is a real HTTP server on loopback serving the PEM of
 * a key pair the test makes (the server's `awsKeyUrl` option points at it, as only tests can).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { awsAlbKeyUrl, awsRegionOf } from '@ianode/auth';
import { createGraphServer, type GraphServer } from '../src/index.js';
import { accessStub, CLIENT, ISSUER, makeKey, sign as signRs256 } from './helpers.js';

const ARN = 'arn:aws:elasticloadbalancing:eu-west-2:123456789012:loadbalancer/app/ianode/50dc6c495c0c9188';
const KID = '7c9a2f4e-1b7d-4c1e-9a55-2f0c3d4e5f60';

let keyServer: Server;
let keyBase: string;
const pems = new Map<string, string>();
const asked: string[] = [];
let down = false;
let privateKey: CryptoKey;
let otherKey: CryptoKey;
let access: Awaited<ReturnType<typeof accessStub>>;
let server: GraphServer;
let base: string;
const now = Date.now();

async function albToken(claims: Record<string, unknown>, header: Record<string, unknown> = {}, key: CryptoKey = privateKey): Promise<string> {
  const exp = Math.floor(now / 1000) + 120;
  return new SignJWT({ sub: 'alice-sub', email: 'alice@test', iss: ISSUER, exp, ...claims })
    .setProtectedHeader({ typ: 'JWT', alg: 'ES256', kid: KID, signer: ARN, client: CLIENT, iss: ISSUER, exp, ...header })
    .sign(key);
}

async function ask(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const r = await fetch(`${base}/ds/query?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`, { headers: { accept: 'application/sparql-results+json', ...headers } });
  return { status: r.status, body: await r.text() };
}

beforeAll(async () => {
  const signing = await generateKeyPair('ES256', { extractable: true });
  privateKey = signing.privateKey;
  const publicKey = signing.publicKey;
  otherKey = (await generateKeyPair('ES256', { extractable: true })).privateKey;
  pems.set(KID, await exportSPKI(publicKey));
  keyServer = createServer((req, res) => {
    const kid = (req.url ?? '/').slice(1);
    asked.push(kid);
    if (down) {
      res.writeHead(503).end('down');
      return;
    }
    const pem = pems.get(kid);
    if (pem === undefined) res.writeHead(404).end('no such key');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(pem);
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  keyBase = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
  access = await accessStub({ 'alice-sub': ['ianode_read', 'ianode_admin'] });
  server = await createGraphServer(
    { security: { jwksUrl: 'aws:eu-west-2', albSigners: [ARN], openIdProviderUrl: ISSUER, userAttributesUrl: access.url, clientIds: [CLIENT] }, dataset: { defaultLabel: '*' } },
    { logger: false, jwksCooldownMs: 30_000, now: () => now, awsKeyUrl: (_region, kid) => `${keyBase}/${kid}` },
  );
  base = await server.listen({ port: 0 });
  const load = await fetch(`${base}/ds/upload`, { method: 'POST', headers: { 'x-amzn-oidc-data': await albToken({}), 'content-type': 'text/turtle' }, body: '<http://e/s> <http://e/p> "v" .' });
  expect(load.status, await load.text()).toBe(200);
});

afterAll(async () => {
  await server.close();
  await access.close();
  await new Promise<void>((resolve) => keyServer.close(() => resolve()));
});

describe('JWKS_URL=aws:<region>', () => {
  it('accepts an ALB token in x-amzn-oidc-data, with the padding ALBs write, and caches the key', async () => {
    const before = asked.length;
    const token = await albToken({});
    const [h, p, s] = token.split('.');
    expect((await ask({ 'x-amzn-oidc-data': token })).body).toContain('true');
    // ALBs pad their base64url segments with '='.
    const padded = `${h}.${p}.${s}${'='.repeat((4 - (s!.length % 4)) % 4)}`;
    expect((await ask({ 'x-amzn-oidc-data': padded })).status).toBe(200);
    expect(asked.length).toBe(before); // the key was fetched by the upload in beforeAll, once
  });

  it('reads the token from x-amzn-oidc-data only (by default in this form)', async () => {
    const r = await ask({ authorization: `Bearer ${await albToken({})}` });
    expect(r.status).toBe(401);
    expect(r.body).toContain('MISSING_TOKEN');
  });

  it('refuses a token of another load balancer (signer), another client, or without signer', async () => {
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, { signer: ARN.replace('ianode', 'other') }) })).status).toBe(401);
    const client = await ask({ 'x-amzn-oidc-data': await albToken({}, { client: 'someone-else' }) });
    expect(client.status).toBe(401);
    expect(client.body).toContain('client_id is not a client accepted here');
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, { signer: undefined }) })).status).toBe(401);
  });

  it('refuses a token signed by another key under the same kid, an expired one, another issuer, another algorithm', async () => {
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, {}, otherKey) })).status).toBe(401);
    expect((await ask({ 'x-amzn-oidc-data': await albToken({ exp: Math.floor(now / 1000) - 600 }) })).body).toContain('token expired');
    expect((await ask({ 'x-amzn-oidc-data': await albToken({ iss: 'https://elsewhere' }) })).body).toContain('token issuer not accepted here');
    const rsa = await makeKey(KID);
    expect((await ask({ 'x-amzn-oidc-data': await signRs256(rsa, { sub: 'alice-sub' }) })).status).toBe(401);
  });

  it('a kid that is not a safe path segment is refused without a fetch; an unknown kid is fetched once per cool-down', async () => {
    const before = asked.length;
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, { kid: '../../etc/passwd' }) })).status).toBe(401);
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, { kid: 'a/b' }) })).status).toBe(401);
    expect(asked.length).toBe(before);
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, { kid: 'unknown-kid' }) })).status).toBe(401);
    expect((await ask({ 'x-amzn-oidc-data': await albToken({}, { kid: 'unknown-kid' }) })).status).toBe(401);
    expect(asked.filter((k) => k === 'unknown-kid')).toHaveLength(1);
  });

  it('the key server down: 503 for a key not cached yet, never a pass', async () => {
    down = true;
    try {
      const pair = await generateKeyPair('ES256', { extractable: true });
      pems.set('second-kid', await exportSPKI(pair.publicKey));
      const token = await albToken({}, { kid: 'second-kid' }, pair.privateKey);
      expect((await ask({ 'x-amzn-oidc-data': token })).status).toBe(503);
      down = false;
      expect((await ask({ 'x-amzn-oidc-data': token })).status).toBe(200);
    } finally {
      down = false;
    }
  });
});

describe('aws:<region> helpers', () => {
  it('validates the region and builds the key URL as the reference does', () => {
    expect(awsRegionOf('aws:eu-west-2')).toBe('eu-west-2');
    expect(awsRegionOf('AWS:us-gov-west-1')).toBe('us-gov-west-1');
    for (const bad of ['aws:', 'aws:eu-west-2.evil.com', 'aws:eu west 2', 'aws:../x']) expect(() => awsRegionOf(bad)).toThrow(/not an AWS region name/);
    expect(awsAlbKeyUrl('eu-west-2', KID)).toBe(`https://public-keys.auth.elb.eu-west-2.amazonaws.com/${KID}`);
    expect(awsAlbKeyUrl('us-gov-west-1', KID)).toBe(`https://s3-us-gov-west-1.amazonaws.com/aws-elb-public-keys-prod-us-gov-west-1/${KID}`);
  });
});
