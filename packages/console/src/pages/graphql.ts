/**
 * GraphQL: GraphiQL (editor with completion and validation, schema documentation, history) over
 * `/{ds}/graphql`, sending the session's ID token. Loaded as a chunk of its own when opened; its
 * Monaco editor workers are bundled (graphiql/setup-workers/vite), nothing is fetched from a CDN.
 */
import { GraphiQL } from 'graphiql';
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { bearer } from '../api.js';
import type { PageRender } from '../context.js';
import { h } from '../dom.js';
import { userStorage } from '../storage.js';

const DEFAULT_QUERY = '# Ctrl-Space completes; the Docs button shows the schema.\n{\n  node(uri: "http://example/person4321") {\n    id\n    properties { predicate value }\n  }\n}\n';

export const renderGraphql: PageRender = (root, ctx) => {
  const url = `/${ctx.config.dataset}/graphql`;
  const fetcher = async (params: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
    const token = await bearer();
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(params), credentials: 'omit' });
    const text = await response.text();
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { errors: [{ message: `${response.status} ${response.statusText}: ${text.slice(0, 300)}` }] };
    }
  };
  const host = h('div', { class: 'graphiql', id: 'graphiql' });
  root.append(h('h1', { class: 'sr-only' }, 'GraphQL'), host);
  const reactRoot = createRoot(host);
  reactRoot.render(createElement(GraphiQL, { fetcher, defaultQuery: DEFAULT_QUERY, storage: userStorage(localStorage, `ianode.console.graphiql.${ctx.userKey}.`) }));
  return () => reactRoot.unmount();
};
