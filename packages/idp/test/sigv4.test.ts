import { describe, expect, it } from 'vitest';
import { signRequestV4, verifySignatureV4 } from '../src/crypto/sigv4.js';
import { IdpError } from '../src/errors.js';

const creds = { accessKeyId: 'AKIATESTTESTTEST0001', secretAccessKey: 'secret/with+chars=' };
const now = Date.UTC(2024, 0, 2, 3, 4, 5);
const body = '{"MaxResults":10}';
const baseHeaders = {
  'content-type': 'application/x-amz-json-1.1',
  'x-amz-target': 'AWSCognitoIdentityProviderService.ListUserPools',
  host: '127.0.0.1:9229',
};

function sign(overrides: Partial<{ region: string; service: string; secret: string; now: number }> = {}) {
  return signRequestV4(
    { method: 'POST', url: '/', headers: baseHeaders, body },
    {
      accessKeyId: creds.accessKeyId,
      secretAccessKey: overrides.secret ?? creds.secretAccessKey,
      region: overrides.region ?? 'us-east-1',
      service: overrides.service ?? 'cognito-idp',
      now: overrides.now ?? now,
    },
  );
}

function verify(headers: Record<string, string>, opts: { body?: string; url?: string; at?: number } = {}) {
  verifySignatureV4(
    { method: 'POST', url: opts.url ?? '/', headers, body: Buffer.from(opts.body ?? body) },
    { ...creds, region: 'us-east-1', service: 'cognito-idp', now: opts.at ?? now, maxSkewMs: 15 * 60_000 },
  );
}

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof IdpError ? err.code : String(err);
  }
}

describe('SigV4 verification', () => {
  it('accepts a correctly signed request for the configured region and service only', () => {
    expect(codeOf(() => verify(sign()))).toBeUndefined();
    // Correctly signed with the right key, but scoped to another region or service: refused.
    expect(codeOf(() => verify(sign({ region: 'eu-west-2' })))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify(sign({ service: 'iam' })))).toBe('InvalidSignatureException');
    let message = '';
    try {
      verify(sign({ region: 'eu-west-2' }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("'us-east-1'");
  });

  it('reproduces the signature of the AWS SigV4 documentation example (known answer)', () => {
    const example = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
    const request = {
      method: 'GET',
      url: '/?Action=ListUsers&Version=2010-05-08',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', host: 'iam.amazonaws.com' },
      body: '',
    };
    const at = Date.UTC(2015, 7, 30, 12, 36, 0);
    const h = signRequestV4(request, { ...example, region: 'us-east-1', service: 'iam', now: at });
    expect(h.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, ' +
        'Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
    );
    // ... and the verifier accepts exactly that (with the target header rule relaxed only by signing it too).
    const withTarget = signRequestV4(
      { ...request, headers: { ...request.headers, 'x-amz-target': 'X.Y' } },
      { ...example, region: 'us-east-1', service: 'iam', now: at },
    );
    expect(() =>
      verifySignatureV4(
        { method: 'GET', url: request.url, headers: withTarget, body: Buffer.alloc(0) },
        { ...example, region: 'us-east-1', service: 'iam', now: at, maxSkewMs: 60_000 },
      ),
    ).not.toThrow();
  });

  it('refuses a missing signature or an unknown key as UnrecognizedClientException', () => {
    expect(codeOf(() => verify(baseHeaders))).toBe('UnrecognizedClientException');
    const h = sign();
    expect(codeOf(() => verify({ ...h, authorization: h.authorization!.replace('AKIATESTTESTTEST0001', 'AKIAOTHEROTHEROTHER1') }))).toBe(
      'UnrecognizedClientException',
    );
  });

  it('refuses a wrong secret, a changed body, target or path as InvalidSignatureException', () => {
    expect(codeOf(() => verify(sign({ secret: 'wrong' })))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify(sign(), { body: '{"MaxResults":60}' }))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify({ ...sign(), 'x-amz-target': 'AWSCognitoIdentityProviderService.DeleteUserPool' }))).toBe(
      'InvalidSignatureException',
    );
    expect(codeOf(() => verify(sign(), { url: '/other' }))).toBe('InvalidSignatureException');
  });

  it('refuses another service and a request outside the allowed clock skew', () => {
    expect(codeOf(() => verify(sign({ service: 's3' })))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify(sign(), { at: now + 16 * 60_000 }))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify(sign(), { at: now - 16 * 60_000 }))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify(sign(), { at: now + 14 * 60_000 }))).toBeUndefined();
  });

  it('requires host, x-amz-date and x-amz-target to be signed', () => {
    const unsignedTarget = signRequestV4(
      { method: 'POST', url: '/', headers: { host: baseHeaders.host }, body },
      { ...creds, region: 'us-east-1', service: 'cognito-idp', now },
    );
    expect(codeOf(() => verify({ ...unsignedTarget, 'x-amz-target': baseHeaders['x-amz-target'] }))).toBe('InvalidSignatureException');
  });

  it('checks a declared x-amz-content-sha256 against the body', () => {
    expect(codeOf(() => verify({ ...sign(), 'x-amz-content-sha256': '0'.repeat(64) }))).toBe('InvalidSignatureException');
  });

  it('refuses a malformed Authorization header', () => {
    expect(codeOf(() => verify({ ...sign(), authorization: 'AWS4-HMAC-SHA256 garbage' }))).toBe('InvalidSignatureException');
    expect(codeOf(() => verify({ ...sign(), authorization: 'Basic abc' }))).toBe('InvalidSignatureException');
  });
});
