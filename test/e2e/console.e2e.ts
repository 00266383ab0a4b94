/**
 * The web console (issue 19, docs/console.md) in Debian's Chromium driven by Playwright, against
 * `npm start`: the console served by the graph server at `/`, sign-in through the IdP's hosted
 * page (authorization code + PKCE), the same SPARQL query answered differently for the
 * administrator and the ordinary user, an upload with a Security-Label checked as typed, the
 * label administration page (and its refusal for a non-administrator, page and API), GraphQL,
 * sign-out. A screenshot of each page goes to test/e2e/artifacts/console/ (git-ignored).
 *
 * Needs the console's build (`npm run build` makes packages/console/dist; npm start here runs
 * with IANODE_SKIP_BUILD=1). Without /usr/bin/chromium the file is skipped, saying so, except in
 * CI (CI=true), where that is a failure. No browser is ever downloaded.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NpmStartNode, root } from './support.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const ADMIN = 'admin@ianode.local';
const USER = 'user@ianode.local';
const PASSWORD = process.env.IDP_ADMIN_PASSWORD || 'Ianode-demo-1';
const ARTIFACTS = path.join(root, 'test/e2e/artifacts/console');
const CONSOLE_INDEX = path.join(root, 'packages/console/dist/index.html');

const ALL_TRIPLES = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o';

function missingBrowserReason(): string {
  return `${CHROMIUM} is absent (install Debian's chromium: apt-get install chromium); the console tests need it`;
}

if (!haveChromium && !inCi) {
  console.warn(`test/e2e/console.e2e.ts skipped: ${missingBrowserReason()}`);
  describe.skip(`console tests skipped: ${missingBrowserReason()}`, () => {
    it('needs Chromium', () => undefined);
  });
} else {
  describe('the web console in Chromium against npm start', () => {
    let node: NpmStartNode;
    let context: BrowserContext | undefined;
    let profile: string | undefined;
    let base = '';
    /** What the browser reported: CSP violations and page errors fail the run at the end. */
    const problems: string[] = [];

    beforeAll(async () => {
      if (!haveChromium) throw new Error(`CI=true: ${missingBrowserReason()} (.ci/run installs it)`);
      if (!existsSync(CONSOLE_INDEX)) throw new Error(`${CONSOLE_INDEX} is missing: run \`npm run build\` first (it builds the console)`);
      mkdirSync(ARTIFACTS, { recursive: true });
      node = new NpmStartNode('e2e-console');
      await node.start();
      // localhost, not 127.0.0.1: the demo client's registered callback URL names it.
      base = `http://localhost:${node.ports.graph}`;
      profile = mkdtempSync(path.join(tmpdir(), 'ianode-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1280, height: 860 },
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
    });

    afterAll(async () => {
      await context?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      await node?.dispose();
    });

    async function newPage(): Promise<Page> {
      const page = await context!.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      return page;
    }

    /** A new tab (its own sessionStorage) signed in as `email` through the IdP's hosted page. */
    async function signedIn(email: string): Promise<Page> {
      const page = await newPage();
      await page.goto(`${base}/`);
      await page.click('#sign-in');
      await page.waitForURL((url) => url.port === String(node.ports.idp));
      await page.fill('#username', email);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL((url) => url.port === String(node.ports.graph)), page.click('button[type="submit"], input[type="submit"]')]);
      await page.waitForSelector('#signed-in-as');
      return page;
    }

    async function shot(page: Page, name: string): Promise<void> {
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    }

    async function runQuery(page: Page, query: string): Promise<void> {
      if (!page.url().includes('#/sparql')) await page.goto(`${base}/#/sparql`);
      await page.waitForSelector('#sparql-editor .cm-content');
      await page.click('#sparql-editor .cm-content');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.press('Delete');
      // insertText: no auto-closed brackets doubling what is typed.
      await page.keyboard.insertText(query);
      await page.keyboard.press('Escape'); // an open completion list
      await page.evaluate(() => {
        const status = document.getElementById('query-status');
        if (status) status.textContent = '';
      });
      await page.click('#run');
      await page.waitForFunction(() => {
        const status = document.getElementById('query-status')?.textContent ?? '';
        return /rows? in|Answer in|Graph result in/.test(status) || document.getElementById('query-error') !== null;
      });
    }

    /** Every row of the results table, all pages, as "s p o" lines. */
    async function allRows(page: Page): Promise<string[]> {
      const rows: string[] = [];
      for (;;) {
        rows.push(...(await page.$$eval('#results-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).join(' ')))));
        const next = await page.$('#next-page');
        if (next === null || (await next.isDisabled())) return rows;
        await next.click();
      }
    }

    it('serves the console at / without a token, with a strict CSP; data routes still need one', async () => {
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(`http://localhost:${node.ports.idp}`);
      const html = await page.text();
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${base}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);
      expect(asset.headers.get('cache-control')).toContain('immutable');

      const config = await fetch(`${base}/console/config.json`);
      expect(config.status).toBe(200);
      expect(await config.json()).toMatchObject({ issuer: `http://localhost:${node.ports.idp}/local_ianode01`, clientId: 'ianodedemoclient0000000001', dataset: 'ds', mode: 'secure' });

      expect((await fetch(`${base}/ds/query?query=${encodeURIComponent('ASK {}')}`)).status).toBe(401);
      const unknown = await fetch(`${base}/no/such/path`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('signed out, the page asks to sign in and shows no data', async () => {
      const page = await newPage();
      await page.goto(`${base}/#/sparql`);
      await page.waitForSelector('#signed-out');
      expect(await page.$('#sparql-editor')).toBeNull();
      await shot(page, '00-signed-out');
      await page.close();
    });

    it('the administrator and the ordinary user sign in, see who they are, run the same query and see different rows', async () => {
      const admin = await signedIn(ADMIN);
      await admin.waitForSelector('#whoami');
      expect(await admin.textContent('#me-email')).toBe(ADMIN);
      expect(await admin.textContent('#me-groups')).toContain('ianode_admin');
      expect(await admin.textContent('#me-attributes')).toContain('clearance');
      await shot(admin, '01-whoami-admin');

      await runQuery(admin, ALL_TRIPLES);
      const adminRows = await allRows(admin);
      await admin.goto(`${base}/#/sparql`); // back to page 1 for the picture
      await runQuery(admin, ALL_TRIPLES);
      await shot(admin, '02-sparql-admin');

      const user = await signedIn(USER);
      await user.waitForSelector('#whoami');
      expect(await user.textContent('#me-email')).toBe(USER);
      expect(await user.textContent('#me-groups')).not.toContain('ianode_admin');
      await shot(user, '03-whoami-user');
      await runQuery(user, ALL_TRIPLES);
      const userRows = await allRows(user);
      await shot(user, '04-sparql-user');

      // The demo data (config/demo-data.trig): the employee with clearance TS sees the codename and
      // the employee number; the contractor with clearance OS sees neither, but both see the phone.
      const has = (rows: string[], text: string) => rows.some((r) => r.includes(text));
      expect(has(adminRows, 'KESTREL')).toBe(true);
      expect(has(adminRows, '9876')).toBe(true);
      expect(has(userRows, 'KESTREL')).toBe(false);
      expect(has(userRows, '9876')).toBe(false);
      expect(has(userRows, '0400 111 333')).toBe(true);
      expect(has(adminRows, '0400 111 333')).toBe(true);
      expect(adminRows.length).toBeGreaterThan(userRows.length);

      // "View as": the administrator picks the user from the directory and gets the user's rows,
      // exactly (the graph server looks the user's attributes up and audits the read).
      await admin.goto(`${base}/#/sparql`);
      await admin.waitForSelector('#view-as option:nth-child(2)', { state: 'attached' });
      const userId = await admin.$$eval('#view-as option', (options, email) => options.find((o) => (o.textContent ?? '').startsWith(`${email} (`))?.getAttribute('value'), USER);
      expect(userId).toBeTruthy();
      await admin.selectOption('#view-as', userId!);
      await runQuery(admin, ALL_TRIPLES);
      expect(await admin.textContent('#query-status')).toContain(`Viewed as ${userId}`);
      const viewedRows = await allRows(admin);
      expect([...viewedRows].sort()).toEqual([...userRows].sort());
      await shot(admin, '04b-sparql-admin-view-as-user');
      // The ordinary user has no such control (the directory is not theirs to list).
      expect(await user.isVisible('#view-as')).toBe(false);

      // The query history is the user's own, kept in the browser.
      expect(await user.textContent('#history')).toContain('SELECT ?s ?p ?o');

      // CONSTRUCT comes back as Turtle.
      await runQuery(user, 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }');
      const turtle = await user.textContent('#turtle');
      expect(turtle).toContain('0400 111 333');
      expect(turtle).not.toContain('KESTREL');
      // …and as a small picture: nodes, and arrows labelled by the predicates.
      expect(await user.$$eval('#graph-picture svg text', (texts) => texts.map((t) => t.textContent))).toEqual(expect.arrayContaining(['person4321', 'phone', '0400 111 333', 'budget']));
      await shot(user, '05-construct-user');
      await admin.close();
      await user.close();
    });

    it('uploads with a Security-Label validated as typed; the label decides who sees the data', async () => {
      const admin = await signedIn(ADMIN);
      await admin.goto(`${base}/#/upload`);
      await admin.waitForSelector('#upload-form');
      await admin.fill('#label', 'employee &&');
      await admin.waitForSelector('#label-check.error');
      expect(await admin.getAttribute('#label', 'aria-invalid')).toBe('true');
      await shot(admin, '06-upload-invalid-label');
      // A malformed label is not sent.
      await admin.fill('#rdf', '<http://example/console-note> <http://example/text> "uploaded from the console" .');
      await admin.selectOption('#format', 'application/n-triples');
      await admin.click('#upload');
      expect(await admin.$('#upload-ok')).toBeNull();

      await admin.fill('#label', 'employee');
      await admin.waitForSelector('#label-check.hint');
      expect(await admin.textContent('#label-check')).toContain('well-formed');
      // Who could see it (administrators): employee admits the administrator, not the contractor.
      await admin.waitForSelector('#label-audience:not([hidden])');
      expect(await admin.textContent('#label-audience')).toBe("Who could see it: 1 of the directory's 2 active users.");
      await admin.click('#upload');
      await admin.waitForSelector('#upload-ok, #upload-error');
      expect(await admin.$('#upload-error')).toBeNull();
      await shot(admin, '07-upload-done');

      const query = 'SELECT ?text WHERE { <http://example/console-note> <http://example/text> ?text }';
      await runQuery(admin, query);
      expect(await allRows(admin)).toEqual(['uploaded from the console']);
      const user = await signedIn(USER);
      await runQuery(user, query);
      expect(await allRows(user)).toEqual([]);
      // The ordinary user may not write at all: the server refuses, the page says so.
      await user.goto(`${base}/#/upload`);
      // …and is not told who holds which attributes: no audience line for them.
      const refused = user.waitForResponse((response) => response.url().endsWith('/labels/audience') && response.request().method() === 'POST');
      await user.fill('#label', 'employee');
      expect((await refused).status()).toBe(403);
      expect(await user.isVisible('#label-audience')).toBe(false);
      await user.fill('#rdf', '<http://example/x> <http://example/y> "z" .');
      await user.selectOption('#format', 'application/n-triples');
      await user.click('#upload');
      await user.waitForSelector('#upload-error');
      expect(await user.textContent('#upload-error')).toMatch(/Refused/);
      await admin.close();
      await user.close();
    });

    it('the administrator sees the label list, a label\'s quads and the directory; the ordinary user cannot reach them, page or API', async () => {
      const admin = await signedIn(ADMIN);
      await admin.goto(`${base}/#/admin`);
      await admin.waitForSelector('#label-stats');
      const labels = await admin.$$eval('#label-stats tbody tr td.label', (tds) => tds.map((td) => td.firstChild?.textContent ?? ''));
      expect(labels).toEqual(expect.arrayContaining(['employee', 'engineer', 'clearance=OS']));
      await admin.click('#label-stats tbody tr:has(td.label:text-is("employee")) button');
      await admin.waitForSelector('#label-quads table');
      expect(await admin.textContent('#label-quads')).toContain('9876');
      // The access service's directory, read-only.
      await admin.waitForSelector('#directory-users, #directory-error');
      expect(await admin.$('#directory-error')).toBeNull();
      expect(await admin.textContent('#directory-users')).toContain(USER);
      expect(await admin.textContent('#directory-hierarchies')).toContain('O < OS < S < TS');
      await shot(admin, '08-admin-labels');

      const user = await signedIn(USER);
      await user.goto(`${base}/#/admin`);
      await user.waitForSelector('#admin-refused');
      expect(await user.$('#label-stats')).toBeNull();
      expect(await user.textContent('#main')).not.toContain('9876');
      await shot(user, '09-admin-refused-user');
      // The API itself, with the user's own token from the page.
      const statuses = await user.evaluate(async () => {
        const session = JSON.parse(sessionStorage.getItem('ianode.console.session') ?? '{}') as { idToken?: string };
        const headers = { authorization: `Bearer ${session.idToken}` };
        return Promise.all(['/ds/labels/stats', '/ds/labels/quads?label=employee'].map(async (p) => (await fetch(p, { headers })).status));
      });
      expect(statuses).toEqual([403, 403]);
      const directory = await user.evaluate(async (access) => {
        const session = JSON.parse(sessionStorage.getItem('ianode.console.session') ?? '{}') as { idToken?: string };
        return (await fetch(`${access}/users`, { headers: { authorization: `Bearer ${session.idToken}` } })).status;
      }, `http://127.0.0.1:${node.ports.access}`);
      expect(directory).toBe(403);
      await admin.close();
      await user.close();
    });

    it('GraphQL: GraphiQL answers as the signed-in user', { timeout: 90_000 }, async () => {
      const user = await signedIn(USER);
      await user.goto(`${base}/#/graphql`);
      await user.waitForSelector('.graphiql-container');
      await user.waitForSelector('.graphiql-execute-button');
      // The editor's text is there once Monaco has loaded; a run asked before GraphiQL is ready
      // (its workers and schema still loading on a busy machine) is dropped, so ask again.
      await user.waitForFunction(() => (document.querySelector('.graphiql-query-editor')?.textContent ?? '').includes('person4321'), undefined, { timeout: 30_000 });
      const answered = () => user.evaluate(() => (document.querySelector('.graphiql-response')?.textContent ?? '').replace(/\u00a0/g, ' ').includes('0400 111 333'));
      try {
        for (let attempt = 0; attempt < 4 && !(await answered()); attempt++) {
          // Only an idle button (a running query's button is "Stop query": a click would cancel it).
          await user.click('.graphiql-execute-button[aria-label^="Execute"]', { timeout: 20_000 });
          await user.waitForFunction(() => (document.querySelector('.graphiql-response')?.textContent ?? '').replace(/\u00a0/g, ' ').includes('0400 111 333'), undefined, { timeout: 10_000 }).catch(() => undefined);
        }
        expect(await answered()).toBe(true);
      } finally {
        await shot(user, '10-graphql-user');
      }
      await user.close();
    });

    it('an expired ID token is renewed with the refresh token; a session that cannot be renewed is signed out', async () => {
      const user = await signedIn(USER);
      const read = () => user.evaluate(() => JSON.parse(sessionStorage.getItem('ianode.console.session') ?? 'null') as { idToken: string; expiresAt: number; refreshToken?: string } | null);
      const before = (await read())!;
      expect(before.refreshToken).toBeTruthy();
      // The page's clock is the browser's: mark the token as expired two minutes ago.
      await user.evaluate(() => {
        const s = JSON.parse(sessionStorage.getItem('ianode.console.session')!) as { expiresAt: number };
        sessionStorage.setItem('ianode.console.session', JSON.stringify({ ...s, expiresAt: Math.floor(Date.now() / 1000) - 120 }));
      });
      await runQuery(user, 'ASK { ?s ?p ?o }');
      expect(await user.textContent('#ask-answer')).toBe('true');
      const after = (await read())!;
      expect(after.idToken).not.toBe(before.idToken);
      expect(after.expiresAt).toBeGreaterThanOrEqual(before.expiresAt);

      // A refresh token the IdP does not know: the session is dropped, the page asks to sign in.
      await user.evaluate(() => {
        const s = JSON.parse(sessionStorage.getItem('ianode.console.session')!) as { expiresAt: number };
        sessionStorage.setItem('ianode.console.session', JSON.stringify({ ...s, refreshToken: 'not-a-refresh-token', expiresAt: Math.floor(Date.now() / 1000) - 120 }));
      });
      await user.reload();
      await user.waitForSelector('#signed-out');
      expect(await read()).toBeNull();
      await user.close();
    });

    it('signs out through the IdP and back to a signed-out console; the old token stops working', async () => {
      const user = await signedIn(USER);
      const token = await user.evaluate(() => (JSON.parse(sessionStorage.getItem('ianode.console.session') ?? '{}') as { idToken: string }).idToken);
      const ask = () => fetch(`${base}/ds/query?query=${encodeURIComponent('ASK {}')}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/sparql-results+json' } });
      expect((await ask()).status).toBe(200);
      await user.click('#sign-out');
      // Through the IdP's end-session endpoint and back: a signed-out console.
      await user.waitForSelector('#sign-in', { timeout: 20_000 });
      expect(new URL(user.url()).port).toBe(String(node.ports.graph));
      expect(await user.evaluate(() => sessionStorage.getItem('ianode.console.session'))).toBeNull();
      // The refresh token was revoked at the IdP: its revocation list reaches the graph server
      // within the poll interval (revocationPollMs, 10 s in config/graph-secure.yaml).
      await expect.poll(async () => (await ask()).status, { timeout: 45_000, interval: 1_000 }).toBe(401);
      await user.close();
    }, 90_000);

    it('the browser reported no CSP violation and no page error', () => {
      expect(problems).toEqual([]);
    });
  });
}
