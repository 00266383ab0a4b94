/**
 * Administration: the label list with counts (`GET /{ds}/labels/stats`) and, for a chosen label,
 * its quads (`GET /{ds}/labels/quads`, the label inspector). Both are the graph server's admin API,
 * answered over the administrator's own view and audited; a caller without the dataset's `admin`
 * permission gets 403 from the API, and this page shows that refusal and nothing else.
 * Below, the access service's directory, read-only: users, groups, attribute definitions and
 * hierarchies (its admin API, `ADMIN_GROUP` members only; audited there).
 * "View as" another user is not offered: the server has no such API (docs/console.md).
 */
import { ApiError, callJson, describeError } from '../api.js';
import type { PageRender } from '../context.js';
import { h } from '../dom.js';

interface LabelStats {
  defaultLabel: string;
  quads: number;
  labels: Array<{ label: string; quads: number; default: boolean }>;
}

interface LabelQuads {
  label: string;
  quads: Array<{ s: string; p: string; o: string; g?: string }>;
  truncated: boolean;
}

const QUADS_LIMIT = 200;

interface DirectoryUser {
  id: string;
  email?: string | null;
  name?: string | null;
  active: boolean;
  groups: string[];
  attributes: Record<string, unknown>;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.map(String).join(', ');
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : String(v)}`).join(', ');
  return String(value);
}

function table(id: string, head: string[], rows: unknown[][]): HTMLElement {
  return h('div', { class: 'scroll' },
    h('table', { class: 'results', id },
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((v) => h('td', {}, cell(v))))))));
}

/** The access service's directory (read-only), for an administrator of the access service. */
async function renderDirectory(section: HTMLElement, accessServiceUrl: string): Promise<void> {
  const base = accessServiceUrl.replace(/\/$/, '');
  section.append(h('h2', {}, 'Directory (access service)'));
  try {
    const [users, groups, attributes, hierarchies] = await Promise.all([
      callJson<{ users: DirectoryUser[]; total: number }>(`${base}/users?limit=1000`),
      callJson<{ groups: Array<{ name: string; description: string | null; members: string[] }> }>(`${base}/groups`),
      callJson<{ attributes: Array<{ name: string; description: string | null; values: string[] | null; hierarchy: string[] | null }> }>(`${base}/attributes`),
      callJson<{ hierarchies: Array<{ name: string; tiers: string[] }> }>(`${base}/hierarchies`),
    ]);
    section.append(
      h('h3', {}, `Users (${users.total})`),
      table('directory-users', ['User', 'Name', 'E-mail', 'Active', 'Groups', 'Attributes'], users.users.map((u) => [u.id, u.name, u.email, u.active ? 'yes' : 'no', u.groups, u.attributes])),
      h('h3', {}, 'Groups'),
      table('directory-groups', ['Group', 'Description', 'Members'], groups.groups.map((g) => [g.name, g.description, g.members])),
      h('h3', {}, 'Attributes'),
      table('directory-attributes', ['Attribute', 'Description', 'Values'], attributes.attributes.map((a) => [a.name, a.description, a.hierarchy ?? a.values ?? 'any'])),
      h('h3', {}, 'Hierarchies'),
      table('directory-hierarchies', ['Hierarchy', 'Tiers (least to most privileged)'], hierarchies.hierarchies.map((x) => [x.name, x.tiers.join(' < ')])),
    );
  } catch (error) {
    section.append(h('p', { class: 'error', role: 'alert', id: 'directory-error' }, describeError(error)));
  }
}

export const renderAdmin: PageRender = async (root, ctx) => {
  const ds = ctx.config.dataset;
  root.append(h('h1', {}, 'Administration'));
  const status = h('p', { role: 'status' }, 'Loading the labels in use…');
  root.append(status);
  let stats: LabelStats;
  try {
    stats = await callJson<LabelStats>(`/${ds}/labels/stats`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      status.replaceWith(
        h('div', { class: 'refused', role: 'alert', id: 'admin-refused' },
          h('h2', {}, 'Administrators only'),
          h('p', {}, `The graph server refused: you do not satisfy the dataset's admin permission (${error.code}). Nothing here is shown to you.`)),
      );
    } else {
      status.replaceWith(h('p', { class: 'error', role: 'alert' }, describeError(error)));
    }
    return;
  }
  status.remove();
  const inspector = h('div', { id: 'label-quads', 'aria-live': 'polite' });
  const inspect = async (label: string) => {
    inspector.replaceChildren(h('p', { role: 'status' }, `Loading the quads labelled ${label}…`));
    try {
      const answer = await callJson<LabelQuads>(`/${ds}/labels/quads?label=${encodeURIComponent(label)}&limit=${QUADS_LIMIT}`);
      inspector.replaceChildren(
        h('h2', {}, `Quads labelled ${answer.label}`),
        h('div', { class: 'scroll' },
          h('table', { class: 'results' },
            h('thead', {}, h('tr', {}, ...['Subject', 'Predicate', 'Object', 'Graph'].map((c) => h('th', { scope: 'col' }, c)))),
            h('tbody', {}, ...answer.quads.map((q) => h('tr', {}, h('td', {}, q.s), h('td', {}, q.p), h('td', {}, q.o), h('td', {}, q.g ?? '(default)')))))),
        answer.truncated ? h('p', { class: 'hint' }, `The first ${QUADS_LIMIT} only.`) : '',
      );
    } catch (error) {
      inspector.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(error)));
    }
  };
  root.append(
    h('h2', {}, 'Labels in use'),
    h('p', { class: 'hint' }, `${stats.quads} quads in your view; quads with no label of their own count under the default label ${stats.defaultLabel}.`),
    h('div', { class: 'scroll' },
      h('table', { class: 'results', id: 'label-stats' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Label'), h('th', { scope: 'col' }, 'Quads'), h('th', { scope: 'col' }, ''))),
        h('tbody', {}, ...stats.labels.map((l) =>
          h('tr', {},
            h('td', { class: 'label' }, l.label, l.default ? h('span', { class: 'tag' }, 'default') : null),
            h('td', { class: 'num' }, String(l.quads)),
            h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => void inspect(l.label) }, 'Show quads'))))))),
    inspector,
  );
  const directory = h('section', { id: 'directory', 'aria-label': 'Directory' });
  root.append(directory);
  await renderDirectory(directory, ctx.config.accessServiceUrl);
};
