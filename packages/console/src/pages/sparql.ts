/**
 * SPARQL: the editor, Run (Ctrl/Cmd-Enter), results as a paged table (SELECT, ASK) or Turtle
 * (CONSTRUCT, DESCRIBE), CSV/JSON/Turtle download, and the user's query history.
 */
import type { EditorView } from '@codemirror/view';
import { call, callJson, describeError } from '../api.js';
import type { PageRender } from '../context.js';
import { download, h } from '../dom.js';
import { createSparqlEditor } from '../editor.js';
import { drawGraph, layoutGraph, MAX_TRIPLES, parseTurtle } from '../graph.js';
import { QueryHistory } from '../history.js';
import { pageOf, parseResults, showTerm, toCsv, type Results } from '../results.js';

export const PAGE_SIZE = 25;
const DEFAULT_QUERY = 'SELECT ?s ?p ?o\nWHERE { ?s ?p ?o }\nORDER BY ?s ?p ?o\nLIMIT 500\n';

export const renderSparql: PageRender = (root, ctx) => {
  const history = new QueryHistory(localStorage, ctx.userKey, 'sparql');
  const editorHost = h('div', { class: 'editor', id: 'sparql-editor' });
  const runButton = h('button', { type: 'button', class: 'primary', id: 'run' }, 'Run');
  const status = h('p', { role: 'status', id: 'query-status' });
  const output = h('div', { id: 'results' });
  const historyList = h('ol', { id: 'history', class: 'history' });
  // "View as" (administrators): the same query answered under another user's attributes (the
  // graph server checks the dataset's admin permission and audits it). Shown only when the
  // access service lets this user list the directory.
  const viewAs = h('select', { id: 'view-as', 'aria-label': 'View as' }, h('option', { value: '' }, 'me'));
  const viewAsBox = h('label', { class: 'view-as', hidden: true }, 'View as ', viewAs);
  if (ctx.session !== undefined && ctx.config.accessServiceUrl !== '') {
    void callJson<{ users: { id: string; email?: string | null; name?: string | null }[] }>(`${ctx.config.accessServiceUrl.replace(/\/$/, '')}/users?limit=1000`)
      .then(({ users }) => {
        viewAs.append(...users.map((u) => h('option', { value: u.id }, u.email ? `${u.email} (${u.id})` : u.id)));
        viewAsBox.hidden = false;
      })
      .catch(() => undefined);
  }
  let busy = false;

  const showHistory = () => {
    const entries = history.list();
    historyList.replaceChildren(
      ...entries.map((e) =>
        h('li', {},
          h('button', { type: 'button', class: 'link', title: new Date(e.at).toLocaleString(), onclick: () => editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: e.query } }) },
            e.query.replace(/\s+/g, ' ').slice(0, 120)))),
    );
    if (entries.length === 0) historyList.append(h('li', { class: 'hint' }, 'Queries you run are kept here, in this browser, for you only.'));
  };

  const run = async () => {
    if (busy) return;
    busy = true;
    runButton.disabled = true;
    const query = editor.state.doc.toString();
    status.textContent = 'Running…';
    output.replaceChildren();
    const started = performance.now();
    const as = (viewAs as HTMLSelectElement).value;
    try {
      const response = await call(`/${ctx.config.dataset}/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json, text/turtle;q=0.9', ...(as === '' ? {} : { 'ianode-view-as': as }) },
        body: query,
      });
      history.add(query, Date.now());
      showHistory();
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      const ms = Math.round(performance.now() - started);
      const who = as === '' ? '' : ` Viewed as ${as}.`;
      if (type === 'text/turtle') {
        const text = await response.text();
        status.textContent = `Graph result in ${ms} ms.${who}`;
        showTurtle(output, text);
      } else {
        const text = await response.text();
        const results = parseResults(JSON.parse(text));
        status.textContent = (results.kind === 'boolean' ? `Answer in ${ms} ms.` : `${results.rows.length} row${results.rows.length === 1 ? '' : 's'} in ${ms} ms.`) + who;
        showTable(output, results, text);
      }
    } catch (error) {
      status.textContent = '';
      output.replaceChildren(h('p', { class: 'error', role: 'alert', id: 'query-error' }, describeError(error)));
    } finally {
      busy = false;
      runButton.disabled = false;
    }
  };

  root.append(
    h('h1', {}, 'SPARQL'),
    h('p', { class: 'hint' }, `Queries /${ctx.config.dataset}/query as you: the answer holds only the triples your attributes satisfy. Ctrl-Enter runs; Ctrl-Space completes.`),
    h('div', { class: 'split' },
      h('div', { class: 'grow' }, editorHost, h('div', { class: 'actions' }, runButton, viewAsBox), status, output),
      h('aside', { class: 'side', 'aria-label': 'Query history' },
        h('h2', {}, 'History'), historyList,
        h('button', { type: 'button', class: 'link', onclick: () => { history.clear(); showHistory(); } }, 'Clear history')),
    ),
  );
  const last = history.list()[0]?.query;
  const editor: EditorView = createSparqlEditor(editorHost, last ?? DEFAULT_QUERY, () => void run());
  runButton.addEventListener('click', () => void run());
  showHistory();
  return () => editor.destroy();
};

function showTable(output: HTMLElement, results: Results, json: string): void {
  const downloads = h('div', { class: 'actions' },
    h('button', { type: 'button', id: 'download-csv', onclick: () => download('results.csv', 'text/csv', toCsv(results)) }, 'Download CSV'),
    h('button', { type: 'button', id: 'download-json', onclick: () => download('results.srj', 'application/sparql-results+json', json) }, 'Download JSON'));
  if (results.kind === 'boolean') {
    output.replaceChildren(h('p', { class: 'answer', id: 'ask-answer' }, results.value ? 'true' : 'false'), downloads);
    return;
  }
  const table = h('table', { class: 'results', id: 'results-table' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Result pages' });
  let current = 0;
  const draw = () => {
    const page = pageOf(results.rows, current, PAGE_SIZE);
    current = page.page;
    table.replaceChildren(
      h('thead', {}, h('tr', {}, ...results.vars.map((v) => h('th', { scope: 'col' }, `?${v}`)))),
      h('tbody', {}, ...page.items.map((row) => h('tr', {}, ...results.vars.map((v) => h('td', { class: row[v]?.type ?? 'unbound' }, showTerm(row[v])))))),
    );
    pager.replaceChildren(
      h('button', { type: 'button', id: 'prev-page', disabled: page.page === 0, onclick: () => { current -= 1; draw(); } }, 'Previous'),
      h('span', { id: 'page-info' }, page.total === 0 ? 'No rows' : `Rows ${page.first}–${page.last} of ${page.total} (page ${page.page + 1} of ${page.pages})`),
      h('button', { type: 'button', id: 'next-page', disabled: page.page >= page.pages - 1, onclick: () => { current += 1; draw(); } }, 'Next'),
    );
  };
  draw();
  output.replaceChildren(downloads, h('div', { class: 'scroll' }, table), pager);
}

function showTurtle(output: HTMLElement, turtle: string): void {
  let picture: Node;
  try {
    const graph = layoutGraph(parseTurtle(turtle));
    picture = graph.triples === 0
      ? h('p', { class: 'hint' }, 'No triples.')
      : h('figure', { id: 'graph-picture', class: 'graph' }, drawGraph(graph),
          h('figcaption', { class: 'hint' }, graph.cut ? `The first ${MAX_TRIPLES} of ${graph.triples} triples.` : `${graph.triples} triple${graph.triples === 1 ? '' : 's'}.`));
  } catch (error) {
    picture = h('p', { class: 'hint' }, `No picture: ${error instanceof Error ? error.message : String(error)}`);
  }
  output.replaceChildren(
    h('div', { class: 'actions' }, h('button', { type: 'button', id: 'download-turtle', onclick: () => download('results.ttl', 'text/turtle', turtle) }, 'Download Turtle')),
    picture,
    h('pre', { class: 'turtle', id: 'turtle' }, turtle === '' ? '(no triples)' : turtle),
  );
}
