/** The small client commands of `ianode`: load, query, token. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SECURITY_LABEL_HEADER } from '@ianode/store';
import { DEMO_CLIENT, DEMO_PASSWORD } from './demo.js';

const EXTENSION_TYPES: Record<string, string> = {
  ttl: 'text/turtle',
  trig: 'application/trig',
  nt: 'application/n-triples',
  nq: 'application/n-quads',
  jsonld: 'application/ld+json',
};

function authHeader(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** `ianode load FILE [--label L]`: POST the file to /ds/upload. */
export async function load(file: string, opts: { url: string; token: string | undefined; label: string | undefined }): Promise<number> {
  const ext = path.extname(file).slice(1).toLowerCase();
  const type = EXTENSION_TYPES[ext];
  if (type === undefined) throw new Error(`cannot tell the RDF format of ${file}: use .ttl, .trig, .nt, .nq or .jsonld`);
  const response = await fetch(`${opts.url.replace(/\/+$/, '')}/upload`, {
    method: 'POST',
    headers: { 'content-type': type, ...authHeader(opts.token), ...(opts.label ? { [SECURITY_LABEL_HEADER]: opts.label } : {}) },
    body: await readFile(file),
  });
  process.stdout.write(`${await response.text()}\n`);
  return response.ok ? 0 : 1;
}

/** `ianode query 'SELECT …'`: POST the query, print the answer. */
export async function query(text: string, opts: { url: string; token: string | undefined; accept: string | undefined }): Promise<number> {
  const response = await fetch(`${opts.url.replace(/\/+$/, '')}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', ...authHeader(opts.token), ...(opts.accept ? { accept: opts.accept } : {}) },
    body: text,
  });
  process.stdout.write(`${await response.text()}\n`);
  return response.ok ? 0 : 1;
}

/** `ianode token [EMAIL]`: InitiateAuth (USER_PASSWORD_AUTH); prints `export IDP_ID_TOKEN=…`. */
export async function token(user: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const idp = (env.IDP_URL ?? 'http://localhost:9229').replace(/\/+$/, '');
  const response = await fetch(`${idp}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: env.CLIENT_ID ?? DEMO_CLIENT,
      AuthParameters: { USERNAME: user, PASSWORD: env.IDP_ADMIN_PASSWORD || DEMO_PASSWORD },
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { AuthenticationResult?: { IdToken?: string }; __type?: string; message?: string };
  const id = body.AuthenticationResult?.IdToken;
  if (!response.ok || id === undefined) {
    process.stderr.write(`ianode token: sign-in of ${user} failed: ${body.__type ?? response.status}: ${body.message ?? ''}\n`);
    return 1;
  }
  process.stdout.write(`export IDP_ID_TOKEN=${id}\n`);
  return 0;
}
