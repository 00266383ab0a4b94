import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRevocationList } from '../src/index.js';
import { refusal } from './fixtures.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const URL_ = 'http://idp.test/pool/revocations';

/** An injected fetch serving a mutable list, or failing when `down`. */
function source() {
  const state = { subjects: [] as Array<{ sub: string; before: number }>, sessions: [] as string[], down: false, calls: 0 };
  const fetch: typeof globalThis.fetch = async () => {
    state.calls += 1;
    if (state.down) throw new TypeError('fetch failed');
    return new Response(JSON.stringify({ generatedAt: 0, subjects: state.subjects, sessions: state.sessions }));
  };
  return { state, fetch };
}

describe('createRevocationList', () => {
  it('refuses tokens of a listed subject issued at or before the revocation, and of a listed session', async () => {
    const { state, fetch } = source();
    state.subjects = [{ sub: sha('alice'), before: 1_000 }];
    state.sessions = [sha('session-9')];
    const list = createRevocationList({ url: URL_, fetch, now: () => 0 });
    expect(await list.isRevoked({ sub: 'alice', iat: 1_000 })).toBe(true);
    expect(await list.isRevoked({ sub: 'alice', iat: 1_001 })).toBe(false);
    expect(await list.isRevoked({ sub: 'alice' })).toBe(true);
    expect(await list.isRevoked({ sub: 'bob', iat: 5, origin_jti: 'session-9' })).toBe(true);
    expect(await list.isRevoked({ sub: 'bob', iat: 5, origin_jti: 'session-1' })).toBe(false);
    expect(state.calls).toBe(1);
  });

  it('fetches again once the list is pollMs old, so a revocation takes effect within pollMs', async () => {
    const { state, fetch } = source();
    const clock = { t: 0 };
    const list = createRevocationList({ url: URL_, fetch, now: () => clock.t, pollMs: 10_000 });
    expect(await list.isRevoked({ sub: 'alice', iat: 1 })).toBe(false);
    state.subjects = [{ sub: sha('alice'), before: 2 }];
    clock.t = 9_999;
    expect(await list.isRevoked({ sub: 'alice', iat: 1 })).toBe(false);
    clock.t = 10_000;
    expect(await list.isRevoked({ sub: 'alice', iat: 1 })).toBe(true);
    expect(state.calls).toBe(2);
  });

  it('serves a list it cannot refresh until maxStaleMs, then fails closed with REVOCATION_UNAVAILABLE', async () => {
    const { state, fetch } = source();
    const clock = { t: 0 };
    const list = createRevocationList({ url: URL_, fetch, now: () => clock.t, pollMs: 10_000, maxStaleMs: 30_000 });
    expect(await list.isRevoked({ sub: 'alice', iat: 1 })).toBe(false);
    state.down = true;
    clock.t = 29_999;
    expect(await list.isRevoked({ sub: 'alice', iat: 1 })).toBe(false);
    clock.t = 30_000;
    const error = await refusal(list.isRevoked({ sub: 'alice', iat: 1 }));
    expect(error.code).toBe('REVOCATION_UNAVAILABLE');
    state.down = false;
    expect(await list.isRevoked({ sub: 'alice', iat: 1 })).toBe(false);
  });

  it('never had a list: the first failure is REVOCATION_UNAVAILABLE; a malformed list too', async () => {
    const { state, fetch } = source();
    state.down = true;
    expect((await refusal(createRevocationList({ url: URL_, fetch }).isRevoked({ sub: 'a', iat: 1 }))).code).toBe('REVOCATION_UNAVAILABLE');
    const bad: typeof globalThis.fetch = async () => new Response(JSON.stringify({ subjects: [{ sub: 'x' }], sessions: [] }));
    expect((await refusal(createRevocationList({ url: URL_, fetch: bad }).isRevoked({ sub: 'a', iat: 1 }))).code).toBe('REVOCATION_UNAVAILABLE');
  });
});
