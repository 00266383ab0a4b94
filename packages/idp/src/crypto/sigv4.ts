/**
 * Verification of AWS Signature Version 4 (header form) for the admin operations:
 * canonical request → string to sign → HMAC chain (`AWS4`+secret, date, region, service,
 * `aws4_request`) → signature, compared in constant time. The credential scope must name the
 * configured region and service (`cognito-idp`), as Cognito requires of its own endpoint: a
 * signature made for another region or service is not one made for this IdP.
 * `host`, `x-amz-date` and `x-amz-target` must be among the signed headers, so a captured
 * request cannot be replayed against another operation or host; the body is bound by its hash.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { IdpError } from '../errors.js';

export interface SignedRequest {
  method: string;
  /** Path and query as received (`/`, `/x?a=b`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface VerifyOptions {
  accessKeyId: string;
  secretAccessKey: string;
  /** The region the credential scope must name (the IdP's configured region). */
  region: string;
  service: string;
  now: number;
  maxSkewMs: number;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const REQUIRED_SIGNED = ['host', 'x-amz-date', 'x-amz-target'];

const unrecognized = (message = 'The security token included in the request is invalid.') =>
  new IdpError('UnrecognizedClientException', message);
const badSignature = (message: string) => new IdpError('InvalidSignatureException', message);

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it (unreserved: A-Z a-z 0-9 - _ . ~). */
const encode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

interface Authorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  terminator: string;
  signedHeaders: string[];
  signature: string;
}

function parseAuthorization(value: string): Authorization {
  if (!value.startsWith(`${ALGORITHM} `)) throw badSignature(`Unsupported signing algorithm; only ${ALGORITHM} is accepted.`);
  const fields = new Map<string, string>();
  for (const part of value.slice(ALGORITHM.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential')?.split('/');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || credential.length !== 5 || !signedHeaders || !signature)
    throw badSignature('Authorization header requires Credential, SignedHeaders and Signature.');
  const [accessKeyId = '', date = '', region = '', service = '', terminator = ''] = credential;
  return { accessKeyId, date, region, service, terminator, signedHeaders: signedHeaders.split(';'), signature };
}

/** Canonical URI as the AWS SDKs build it for services other than S3 (each segment encoded again). */
function canonicalUri(path: string): string {
  return path.split('/').map(encode).join('/') || '/';
}

function canonicalQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .filter((p) => p.length > 0)
    .map((p) => {
      const eq = p.indexOf('=');
      const k = decodeURIComponent((eq < 0 ? p : p.slice(0, eq)).replace(/\+/g, ' '));
      const v = eq < 0 ? '' : decodeURIComponent(p.slice(eq + 1).replace(/\+/g, ' '));
      return [encode(k), encode(v)] as const;
    })
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

const headerValue = (v: string | string[] | undefined): string =>
  (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');

/** `YYYYMMDDTHHMMSSZ` → milliseconds, or NaN. */
function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

const isoBasic = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** Task 1-3 of SigV4: canonical request → string to sign → HMAC chain → signature bytes. */
function computeSignature(p: {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  signedHeaders: readonly string[];
  payloadHash: string;
  amzDate: string;
  region: string;
  service: string;
  secretAccessKey: string;
}): Buffer {
  const q = p.url.indexOf('?');
  const canonicalRequest = [
    p.method.toUpperCase(),
    canonicalUri(q < 0 ? p.url : p.url.slice(0, q)),
    canonicalQuery(q < 0 ? '' : p.url.slice(q + 1)),
    p.signedHeaders.map((h) => `${h}:${headerValue(p.headers[h])}\n`).join(''),
    p.signedHeaders.join(';'),
    p.payloadHash,
  ].join('\n');
  const date = p.amzDate.slice(0, 8);
  const scope = `${date}/${p.region}/${p.service}/aws4_request`;
  const stringToSign = [ALGORITHM, p.amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${p.secretAccessKey}`, date);
  for (const part of [p.region, p.service, 'aws4_request']) key = hmac(key, part);
  return hmac(key, stringToSign);
}

/** Throws `UnrecognizedClientException` or `InvalidSignatureException` unless the request is signed by the key. */
export function verifySignatureV4(req: SignedRequest, opts: VerifyOptions): void {
  const authorization = headerValue(req.headers.authorization);
  if (!authorization) throw unrecognized('Missing Authentication Token: admin operations need an AWS Signature V4 signed request.');
  const auth = parseAuthorization(authorization);
  if (auth.accessKeyId !== opts.accessKeyId) throw unrecognized();
  if (auth.terminator !== 'aws4_request') throw badSignature("Credential should be scoped with a valid terminator: 'aws4_request'.");
  if (auth.region !== opts.region) throw badSignature(`Credential should be scoped to a valid region: '${opts.region}'.`);
  if (auth.service !== opts.service) throw badSignature(`Credential should be scoped to correct service: '${opts.service}'.`);

  const signed = auth.signedHeaders;
  if (signed.join(';') !== [...signed].sort().join(';') || signed.some((h) => h !== h.toLowerCase()))
    throw badSignature('SignedHeaders must be lower case and sorted.');
  for (const h of REQUIRED_SIGNED) {
    if (!signed.includes(h)) throw badSignature(`'${h}' must be a signed header.`);
  }
  const amzDate = headerValue(req.headers['x-amz-date']);
  const at = parseAmzDate(amzDate);
  if (Number.isNaN(at)) throw badSignature('X-Amz-Date must be in the form YYYYMMDDTHHMMSSZ.');
  if (amzDate.slice(0, 8) !== auth.date) throw badSignature('Credential date does not match X-Amz-Date.');
  if (Math.abs(opts.now - at) > opts.maxSkewMs)
    throw badSignature(
      `Signature expired: ${amzDate} is now earlier than ${isoBasic(opts.now - opts.maxSkewMs)} or later than ${isoBasic(opts.now + opts.maxSkewMs)}.`,
    );

  const bodyHash = sha256(req.body);
  const declared = headerValue(req.headers['x-amz-content-sha256']);
  if (declared && declared !== bodyHash) throw badSignature('The provided x-amz-content-sha256 header does not match the body.');

  const expected = computeSignature({
    method: req.method,
    url: req.url,
    headers: req.headers,
    signedHeaders: signed,
    payloadHash: declared || bodyHash,
    amzDate,
    region: auth.region,
    service: auth.service,
    secretAccessKey: opts.secretAccessKey,
  });
  const given = /^[0-9a-f]{64}$/.test(auth.signature) ? Buffer.from(auth.signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw badSignature(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
}

/** Signs a request the way the AWS SDKs do (used by tests and by tools of this repository). */
export function signRequestV4(
  req: { method: string; url: string; headers: Record<string, string>; body: string },
  creds: { accessKeyId: string; secretAccessKey: string; region: string; service: string; now: number },
): Record<string, string> {
  const amzDate = isoBasic(creds.now);
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = { ...lowerKeys(req.headers), 'x-amz-date': amzDate };
  const signed = Object.keys(headers).sort();
  const signature = computeSignature({
    method: req.method,
    url: req.url,
    headers,
    signedHeaders: signed,
    payloadHash: sha256(req.body),
    amzDate,
    region: creds.region,
    service: creds.service,
    secretAccessKey: creds.secretAccessKey,
  }).toString('hex');
  const scope = `${date}/${creds.region}/${creds.service}/aws4_request`;
  return {
    ...headers,
    authorization: `${ALGORITHM} Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}`,
  };
}

const lowerKeys = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
