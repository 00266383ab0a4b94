/**
 * Label administration (issue 18): `GET /ds/labels/stats`, `GET /ds/labels/quads`,
 * `POST /ds/labels/relabel` — admin permission only, over the caller's view, relabel in one
 * transaction through the write boundary.
 */
import { describe, expect, it } from 'vitest';
import { LABELS_ADMIN_DIRECTORY, LABELS_ADMIN_EX as EX, LABELS_ADMIN_TRIG } from '@ianode/testkit';
import { useSecureServer } from './helpers.js';

// Every test starts from the same six quads (`reset`), so each passes alone and in any order.
const fx = useSecureServer(LABELS_ADMIN_DIRECTORY, { data: LABELS_ADMIN_TRIG, reset: true });

function call(path: string, who: string | undefined, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  return fetch(`${fx.base}${path}`, { method: init.method ?? 'GET', headers: { ...(who ? { authorization: `Bearer ${fx.tokens[who]}` } : {}), ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) });
}

function relabel(who: string, body: unknown): Promise<Response> {
  return call('/ds/labels/relabel', who, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function stats(who: string): Promise<Record<string, number>> {
  const r = await call('/ds/labels/stats', who);
  expect(r.status).toBe(200);
  const body = (await r.json()) as { labels: { label: string; quads: number }[]; quads: number; defaultLabel: string };
  expect(body.defaultLabel).toBe('*');
  const out = Object.fromEntries(body.labels.map((l) => [l.label, l.quads]));
  expect(body.quads).toBe(Object.values(out).reduce((a, b) => a + b, 0));
  return out;
}

async function sees(who: string, s: string, p: string, o: string): Promise<boolean> {
  const r = await call(`/ds/query?query=${encodeURIComponent(`ASK { <${s}> <${p}> <${o}> }`)}`, who, { headers: { accept: 'application/sparql-results+json' } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { boolean: boolean }).boolean;
}

describe('label administration', () => {
  it('refuses non-administrators (403) and callers without a token (401), changing nothing', async () => {
    expect((await call('/ds/labels/stats', 'u1')).status).toBe(403);
    expect((await call('/ds/labels/quads?label=manager', 'u2')).status).toBe(403);
    expect((await relabel('u1', { pattern: {}, to: 'manager' })).status).toBe(403);
    expect((await call('/ds/labels/stats', undefined)).status).toBe(401);
    expect(await stats('loader')).toEqual({ '*': 3, engineer: 1, manager: 2 });
  });

  it('counts the labels in use over the caller\'s view, exactly', async () => {
    expect(await stats('loader')).toEqual({ '*': 3, engineer: 1, manager: 2 });
    // The administrator without `engineer` sees neither the quad nor its label.
    expect(await stats('admin')).toEqual({ '*': 3, manager: 2 });
  });

  it('lists the quads carrying a label (N-Quads by default, JSON on request, limit)', async () => {
    const r = await call('/ds/labels/quads?label=manager', 'loader');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/n-quads/);
    expect((await r.text()).trim().split('\n').sort()).toEqual([
      `<${EX}Alice> <${EX}knows> <${EX}Bob> .`,
      `<${EX}Bob> <${EX}knows> <${EX}Alice> .`,
    ]);
    const j = await call('/ds/labels/quads?label=engineer&limit=5', 'loader', { headers: { accept: 'application/json' } });
    expect(await j.json()).toEqual({ label: 'engineer', quads: [{ s: `<${EX}Carol>`, p: `<${EX}name>`, o: '"Carol"', g: `<${EX}g>` }], truncated: false });
    const d = await call('/ds/labels/quads?label=*&limit=2', 'loader', { headers: { accept: 'application/json' } });
    const dj = (await d.json()) as { quads: unknown[]; truncated: boolean };
    expect(dj.quads).toHaveLength(2);
    expect(dj.truncated).toBe(true);
    // Over the caller's view: nothing for a label the administrator cannot see.
    const hidden = await call('/ds/labels/quads?label=engineer', 'admin');
    expect(await hidden.text()).toBe('');
    expect((await call('/ds/labels/quads', 'loader')).status).toBe(400);
    expect((await call('/ds/labels/quads?label=manager&limit=0', 'loader')).status).toBe(400);
  });

  it('refuses a bad relabel request with 400 naming the field, storing nothing', async () => {
    for (const [body, field] of [
      [{ pattern: {} }, 'to'],
      [{ pattern: { x: '<a>' }, to: 'manager' }, 'pattern position'],
      [{ pattern: { s: 'not a term' }, to: 'manager' }, 'pattern.s'],
      [{ pattern: { s: '_:b1' }, to: 'manager' }, 'blank nodes'],
      [{ pattern: {}, to: 'manager', extra: 1 }, 'unknown field'],
    ] as const) {
      const r = await relabel('loader', body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { message: string }).message).toContain(field);
    }
    const text = await call('/ds/labels/relabel', 'loader', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
    expect(await stats('loader')).toEqual({ '*': 3, engineer: 1, manager: 2 });
  });

  it('relabels every visible matching quad in one transaction: what a second user sees changes', async () => {
    expect(await sees('u1', `${EX}Alice`, `${EX}knows`, `${EX}Bob`)).toBe(true);
    expect(await sees('u2', `${EX}Alice`, `${EX}knows`, `${EX}Bob`)).toBe(false);
    const r = await relabel('loader', { pattern: { p: `<${EX}knows>` }, from: 'manager', to: 'engineer' });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { matched: number; relabelled: number; unchanged: number; labels: { label: string; quads: number }[]; txId: number };
    expect(body).toMatchObject({ matched: 2, relabelled: 2, unchanged: 0, labels: [{ label: 'engineer', quads: 2 }] });
    expect(body.txId).toBeGreaterThan(0);
    expect(await sees('u1', `${EX}Alice`, `${EX}knows`, `${EX}Bob`)).toBe(false);
    expect(await sees('u2', `${EX}Alice`, `${EX}knows`, `${EX}Bob`)).toBe(true);
    expect(await stats('loader')).toEqual({ '*': 3, engineer: 3 });
  });

  it('leaves a quad the administrator cannot see untouched', async () => {
    // Who knows whom relabelled engineer first: three engineer quads, three default-label ones.
    expect((await relabel('loader', { pattern: { p: `<${EX}knows>` }, from: 'manager', to: 'engineer' })).status).toBe(200);
    expect(await stats('loader')).toEqual({ '*': 3, engineer: 3 });
    // `admin` holds manager, not engineer: the three engineer quads are not in its view.
    const r = await relabel('admin', { pattern: {}, to: 'manager' });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ matched: 3, relabelled: 3, labels: [{ label: 'manager', quads: 3 }] });
    expect(await stats('loader')).toEqual({ engineer: 3, manager: 3 });
    const engineer = await call('/ds/labels/quads?label=engineer', 'loader');
    expect((await engineer.text()).trim().split('\n').sort()).toEqual([
      `<${EX}Alice> <${EX}knows> <${EX}Bob> .`,
      `<${EX}Bob> <${EX}knows> <${EX}Alice> .`,
      `<${EX}Carol> <${EX}name> "Carol" <${EX}g> .`,
    ]);
  });

  it('refuses a target label the administrator could not read (the write boundary\'s rule)', async () => {
    const r = await relabel('admin', { pattern: { s: `<${EX}Alice>` }, to: 'engineer' });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe('LABEL_NOT_VISIBLE_TO_WRITER');
    expect(await stats('loader')).toEqual({ '*': 3, engineer: 1, manager: 2 });
  });
});
