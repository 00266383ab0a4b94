/**
 * A small, self-contained GraphiQL-like page (no CDN assets, no external scripts): a query
 * textarea, a variables textarea, an optional bearer token field, and fetch() to the same URL.
 * The token stays in the page (never stored); the page holds no data of its own.
 */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const EXAMPLE = '{\n  node(uri: "http://example/person4321") {\n    id\n    properties { predicate value }\n  }\n}';

export function graphiqlPage(endpoint: string, query = EXAMPLE): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphQL – ${escapeHtml(endpoint)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1rem;display:grid;grid-template-columns:1fr 1fr;gap:1rem}
textarea,pre{width:100%;box-sizing:border-box;font-family:ui-monospace,monospace;font-size:13px}
textarea#query{height:20rem}textarea#variables{height:5rem}
pre{background:#f4f4f4;padding:.5rem;min-height:26rem;margin:0;white-space:pre-wrap}
header{grid-column:1/3}label{display:block;margin:.4rem 0 .1rem}
</style>
</head>
<body>
<header><strong>GraphQL</strong> at <code>${escapeHtml(endpoint)}</code> (introspection is on)</header>
<section>
<label for="query">Query</label>
<textarea id="query" spellcheck="false">${escapeHtml(query)}</textarea>
<label for="variables">Variables (JSON)</label>
<textarea id="variables" spellcheck="false">{}</textarea>
<label for="token">Bearer token (secure mode; kept in this page only)</label>
<input id="token" type="password" style="width:100%" autocomplete="off">
<p><button id="run">Run (Ctrl-Enter)</button> <button id="schema">Show schema types</button></p>
</section>
<section><label>Response</label><pre id="out"></pre></section>
<script>
const $ = (id) => document.getElementById(id);
async function send(query, variables) {
  const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  const token = $('token').value.trim();
  if (token) headers.authorization = 'Bearer ' + token;
  $('out').textContent = '…';
  try {
    const response = await fetch(${JSON.stringify(endpoint)}, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const text = await response.text();
    let shown = text;
    try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch {}
    $('out').textContent = 'HTTP ' + response.status + '\\n' + shown;
  } catch (error) {
    $('out').textContent = String(error);
  }
}
function run() {
  let variables = {};
  try { variables = JSON.parse($('variables').value || '{}'); } catch { $('out').textContent = 'variables are not JSON'; return; }
  send($('query').value, variables);
}
$('run').onclick = run;
$('schema').onclick = () => send('{ __schema { types { name kind fields { name args { name } } } } }', {});
$('query').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); });
</script>
</body>
</html>
`;
}
