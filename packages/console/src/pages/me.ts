/** "Who am I": the access service's `/whoami` (identity, groups, attributes). */
import { callJson, describeError } from '../api.js';
import type { PageRender } from '../context.js';
import { h } from '../dom.js';

interface Whoami {
  userId: string;
  issuer: string;
  subject: string;
  username?: string;
  email?: string;
  name?: string;
  active: boolean;
  groups: string[];
  attributes: Record<string, unknown>;
  dataAttributes?: unknown;
}

function list(items: string[], empty: string, id: string): HTMLElement {
  return items.length === 0 ? h('p', { id }, empty) : h('ul', { id, class: 'chips' }, ...items.map((x) => h('li', {}, x)));
}

function value(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

export const renderMe: PageRender = async (root, ctx) => {
  root.append(h('h1', {}, 'Who am I'));
  if (ctx.config.mode === 'open') {
    root.append(h('p', {}, 'The graph server runs in open mode: there is no sign-in, and every caller sees every triple.'));
    return;
  }
  const status = h('p', { role: 'status' }, 'Asking the access service…');
  root.append(status);
  try {
    const me = await callJson<Whoami>(`${ctx.config.accessServiceUrl.replace(/\/$/, '')}/whoami`);
    status.remove();
    const attrs = Object.entries(me.attributes ?? {});
    root.append(
      h('dl', { class: 'facts', id: 'whoami' },
        h('dt', {}, 'Name'), h('dd', { id: 'me-name' }, me.name ?? '—'),
        h('dt', {}, 'E-mail'), h('dd', { id: 'me-email' }, me.email ?? '—'),
        h('dt', {}, 'User'), h('dd', {}, me.userId),
        h('dt', {}, 'Identity'), h('dd', {}, `${me.issuer} · ${me.subject}`),
        h('dt', {}, 'Status'), h('dd', { id: 'me-active' }, me.active ? 'active' : 'inactive: you see no data until an administrator activates you'),
      ),
      h('h2', {}, 'Groups'),
      list(me.groups, 'No groups.', 'me-groups'),
      h('h2', {}, 'Attributes'),
      attrs.length === 0
        ? h('p', { id: 'me-attributes' }, 'No attributes.')
        : h('table', { id: 'me-attributes' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Attribute'), h('th', { scope: 'col' }, 'Value'))),
            h('tbody', {}, ...attrs.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, value(v)))))),
      h('h2', {}, 'What labels are evaluated against'),
      h('p', { class: 'hint' }, 'The attributes the graph server checks each triple\'s security label with (groups included).'),
      list(Array.isArray(me.dataAttributes) ? me.dataAttributes.map(value) : [], 'None.', 'me-data-attributes'),
    );
  } catch (error) {
    status.replaceWith(h('p', { class: 'error', role: 'alert' }, describeError(error)));
  }
};
