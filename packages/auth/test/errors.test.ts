import { describe, expect, it } from 'vitest';
import { AuthError, authChallenge, authErrorStatus, bearerToken, invalidToken, mapClaims, redact, redactAuthorization, redactUrl } from '../src/index.js';

describe('authErrorStatus', () => {
  // Every code of AuthErrorCode, each with a representative error.
  const codes = ['MISSING_TOKEN', 'INVALID_TOKEN', 'FORBIDDEN', 'JWKS_UNAVAILABLE', 'ATTRIBUTES_UNAVAILABLE', 'REVOCATION_UNAVAILABLE'] as const;

  it('fails closed: a token problem is the client\'s 401/403 with a challenge, an unreachable dependency a 503 without one', () => {
    for (const code of codes) {
      const status = authErrorStatus(code);
      const challenge = authChallenge(new AuthError(code, 'x'));
      if (code.endsWith('_UNAVAILABLE')) {
        // The caller's token may be fine: no challenge tells it to drop the token, and no data.
        expect({ code, status, challenge }).toEqual({ code, status: 503, challenge: undefined });
      } else {
        expect({ code, status: status === 401 || status === 403 }).toEqual({ code, status: true });
        expect(challenge, code).toMatch(/^Bearer realm="ianode"/);
      }
    }
    // Who the caller is (401) is told apart from what the caller may do (403).
    expect(authErrorStatus('FORBIDDEN')).toBe(403);
    expect(authErrorStatus('INVALID_TOKEN')).toBe(401);
  });
});

describe('authChallenge', () => {
  it('names the realm, and invalid_token for a bad token', () => {
    expect(authChallenge(new AuthError('MISSING_TOKEN', 'x'))).toBe('Bearer realm="ianode"');
    expect(authChallenge(invalidToken('expired'))).toBe('Bearer realm="ianode", error="invalid_token", error_description="token expired: fetch a new one"');
    expect(authChallenge(new AuthError('FORBIDDEN', 'admin "group" needed'))).toContain('error="insufficient_scope"');
    expect(authChallenge(new AuthError('FORBIDDEN', 'admin "group" needed'))).not.toMatch(/"group"/);
    expect(authChallenge(new AuthError('JWKS_UNAVAILABLE', 'x'))).toBeUndefined();
  });
});

describe('bearerToken', () => {
  it('takes the token of any case of the scheme', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer   abc.def.ghi ')).toBe('abc.def.ghi');
    expect(bearerToken(['BeArEr abc'])).toBe('abc');
  });

  it('tells missing from malformed', () => {
    expect(() => bearerToken(undefined)).toThrow(expect.objectContaining({ code: 'MISSING_TOKEN' }));
    expect(() => bearerToken('Basic abc')).toThrow(expect.objectContaining({ code: 'MISSING_TOKEN' }));
    expect(() => bearerToken('Bearer')).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    expect(() => bearerToken('Bearer a b')).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    expect(() => bearerToken(['Bearer a', 'Bearer b'])).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
  });
});

describe('redact', () => {
  it('never shows the token but correlates it', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const shown = redact(token);
    expect(shown).not.toContain('eyJ');
    expect(shown).toBe(redact(token));
    expect(shown).not.toBe(redact(`${token}x`));
    expect(redact(undefined)).toBe('<none>');
    const line = redactAuthorization(`authorization: Bearer ${token}`);
    expect(line).not.toContain(token);
    expect(line).toContain(shown);
  });
});

describe('mapClaims', () => {
  it('maps directly', () => {
    expect(mapClaims({ sub: 's', 'cognito:groups': ['a'] })).toEqual({ user: 's', groups: ['a'] });
    expect(() => mapClaims({})).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN', reason: 'no_user_claim' }));
  });
});

describe('redactUrl', () => {
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
  it('redacts credential parameters and JWT-shaped text, keeping the rest readable', () => {
    const logged = redactUrl(`/ds/query?query=SELECT%20*&access_token=${jwt}&code=abc123&Refresh_Token=r1&password=hunter2&x=${jwt}`);
    expect(logged).not.toContain(jwt);
    expect(logged).not.toContain('c2lnbmF0dXJl');
    for (const secret of ['abc123', 'r1', 'hunter2']) expect(logged).not.toContain(`=${secret}`);
    expect(logged).toContain('/ds/query?query=SELECT%20*&access_token=[redacted]&code=[redacted]');
    expect(logged).toMatch(/x=<token sha256:[0-9a-f]{12} len=\d+>/);
    expect(redactUrl(`/whoami/${jwt}`)).not.toContain(jwt);
    expect(redactUrl('/ds?default')).toBe('/ds?default');
    expect(redactUrl(undefined)).toBe('');
  });
});
