/**
 * The console (docs/console.md): a single page served by the graph server at `/`, hash routes for
 * its pages. Loads /console/config.json, completes a sign-in that returns here, then shows the page.
 */
import './style.css';
import { useConfig } from './api.js';
import { completeSignIn, freshSession, signIn, signOut } from './auth.js';
import { loadConfig, type ConsoleConfig } from './config.js';
import type { PageContext, PageRender } from './context.js';
import { h } from './dom.js';
import { renderAdmin } from './pages/admin.js';
import { renderMe } from './pages/me.js';
import { renderSparql } from './pages/sparql.js';
import { renderUpload } from './pages/upload.js';

const renderGraphql: PageRender = async (root, ctx) => (await import('./pages/graphql.js')).renderGraphql(root, ctx);

const PAGES: Array<{ route: string; title: string; render: PageRender; when?: (c: ConsoleConfig) => boolean }> = [
  { route: 'me', title: 'Who am I', render: renderMe },
  { route: 'sparql', title: 'SPARQL', render: renderSparql },
  { route: 'graphql', title: 'GraphQL', render: renderGraphql, when: (c) => c.graphql },
  { route: 'upload', title: 'Upload', render: renderUpload },
  { route: 'admin', title: 'Admin', render: renderAdmin },
];

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const who = document.getElementById('who')!;
let cleanup: (() => void) | undefined;

function routeOf(hash: string): string {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return PAGES.some((p) => p.route === name) ? name : 'me';
}

async function show(config: ConsoleConfig): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  const session = config.mode === 'secure' ? await freshSession(config) : undefined;
  const route = routeOf(window.location.hash);
  const pages = PAGES.filter((p) => p.when?.(config) ?? true);
  nav.replaceChildren(...pages.map((p) => h('a', { href: `#/${p.route}`, 'aria-current': p.route === route ? 'page' : undefined, 'data-route': p.route }, p.title)));
  if (config.mode === 'open') {
    who.replaceChildren(h('span', { class: 'warn' }, 'open mode: no sign-in, every triple visible'));
  } else if (session === undefined) {
    who.replaceChildren(h('button', { type: 'button', id: 'sign-in', onclick: () => void signIn(config, `#/${route}`).catch(fail) }, 'Sign in'));
  } else {
    who.replaceChildren(
      h('span', { id: 'signed-in-as' }, session.name ?? session.email ?? session.sub),
      h('button', { type: 'button', id: 'sign-out', onclick: () => void signOut(config) }, 'Sign out'),
    );
  }
  main.replaceChildren();
  const page = pages.find((p) => p.route === route)!;
  document.title = `${page.title} · ianode console`;
  if (config.mode === 'secure' && session === undefined) {
    main.append(
      h('h1', {}, page.title),
      h('p', { id: 'signed-out' }, 'You are not signed in. The console shows each person their own view of the data: sign in to see yours.'),
      h('button', { type: 'button', class: 'primary', onclick: () => void signIn(config, `#/${route}`).catch(fail) }, 'Sign in'),
    );
    return;
  }
  const ctx: PageContext = { config, session, userKey: session?.sub ?? 'open' };
  const section = h('section', { 'data-page': route });
  main.append(section);
  const done = await page.render(section, ctx);
  if (typeof done === 'function') cleanup = done;
}

function fail(error: unknown): void {
  main.replaceChildren(h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error)));
}

async function start(): Promise<void> {
  const config = await loadConfig();
  useConfig(config);
  if (config.mode === 'secure') {
    const back = await completeSignIn(config);
    if (back !== undefined) window.history.replaceState(null, '', `${window.location.pathname}${back}`);
  }
  window.addEventListener('hashchange', () => void show(config).catch(fail));
  await show(config);
}

start().catch(fail);
