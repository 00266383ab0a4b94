/**
 * Upload: a file or pasted RDF, sent to `/{ds}/upload` with a Security-Label checked as you type
 * (../label.ts, the server's own parser), and — for administrators, whom the access service lets
 * ask — "who could see it": how many of the directory's active users the label admits
 * (`POST /labels/audience` of the access service).
 */
import { call, callJson, describeError } from '../api.js';
import type { PageRender } from '../context.js';
import { h } from '../dom.js';
import { checkLabel } from '../label.js';

const FORMATS: Array<[string, string]> = [
  ['text/turtle', 'Turtle'],
  ['application/n-triples', 'N-Triples'],
  ['application/n-quads', 'N-Quads'],
  ['application/trig', 'TriG'],
  ['application/ld+json', 'JSON-LD'],
  ['application/rdf+xml', 'RDF/XML'],
];

const BY_EXTENSION: Record<string, string> = { ttl: 'text/turtle', nt: 'application/n-triples', nq: 'application/n-quads', trig: 'application/trig', jsonld: 'application/ld+json', rdf: 'application/rdf+xml', owl: 'application/rdf+xml' };

export const renderUpload: PageRender = (root, ctx) => {
  const label = h('input', { id: 'label', name: 'label', type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'label-check', placeholder: 'e.g. ianode_read & clearance=S' });
  const labelCheck = h('p', { id: 'label-check', class: 'hint', 'aria-live': 'polite' });
  const audience = h('p', { id: 'label-audience', class: 'hint', 'aria-live': 'polite', hidden: true });
  const accessBase = ctx.config.accessServiceUrl.replace(/\/$/, '');
  /** Off once the access service refuses (not an administrator): nothing more is asked. */
  let audienceOn = ctx.session !== undefined && accessBase !== '';
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const showAudience = (stored: string | undefined) => {
    if (timer !== undefined) clearTimeout(timer);
    if (!audienceOn || stored === undefined) {
      audience.hidden = true;
      return;
    }
    const ask = ++asked;
    timer = setTimeout(() => {
      void callJson<{ admitted: number; active: number }>(`${accessBase}/labels/audience`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: stored, legacy: ctx.config.labelsLegacy }),
      }).then(({ admitted, active }) => {
        if (ask !== asked) return;
        audience.textContent = `Who could see it: ${admitted} of the directory's ${active} active user${active === 1 ? '' : 's'}.`;
        audience.hidden = false;
      }, () => {
        audienceOn = false;
        audience.hidden = true;
      });
    }, 300);
  };
  const format = h('select', { id: 'format', name: 'format' }, ...FORMATS.map(([type, name]) => h('option', { value: type }, name)));
  const file = h('input', { id: 'file', name: 'file', type: 'file', accept: '.ttl,.nt,.nq,.trig,.jsonld,.rdf,.owl' });
  const text = h('textarea', { id: 'rdf', name: 'rdf', rows: 12, spellcheck: 'false', placeholder: '<http://example/s> <http://example/p> "o" .' });
  const send = h('button', { type: 'submit', class: 'primary', id: 'upload' }, 'Upload');
  const result = h('div', { id: 'upload-result', 'aria-live': 'polite' });

  const validate = (): boolean => {
    const check = checkLabel(label.value, ctx.config.labelsLegacy);
    label.classList.toggle('invalid', check.state === 'error');
    label.setAttribute('aria-invalid', String(check.state === 'error'));
    if (check.state === 'empty') labelCheck.textContent = 'No label: the data gets the dataset\'s default label (or the labels of a labels graph in the data).';
    else if (check.state === 'ok') labelCheck.textContent = check.stored === label.value.trim() ? 'A well-formed label.' : `A well-formed label, stored as ${check.stored}.`;
    else labelCheck.textContent = `Not a label: ${check.message} (at character ${check.position + 1}).`;
    labelCheck.className = check.state === 'error' ? 'error' : 'hint';
    showAudience(check.state === 'ok' ? check.stored : undefined);
    return check.state !== 'error';
  };
  label.addEventListener('input', validate);
  file.addEventListener('change', () => {
    const name = file.files?.[0]?.name ?? '';
    const type = BY_EXTENSION[name.split('.').pop()?.toLowerCase() ?? ''];
    if (type !== undefined) format.value = type;
  });

  const form = h('form', { id: 'upload-form', novalidate: true },
    h('label', { for: 'label' }, 'Security-Label'), label, labelCheck, audience,
    h('label', { for: 'format' }, 'Format'), format,
    h('label', { for: 'file' }, 'File'), file,
    h('label', { for: 'rdf' }, 'or paste RDF'), text,
    h('div', { class: 'actions' }, send),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      if (!validate()) {
        label.focus();
        return;
      }
      const body: Blob | string | undefined = file.files?.[0] ?? (text.value.trim() === '' ? undefined : text.value);
      if (body === undefined) {
        result.replaceChildren(h('p', { class: 'error', role: 'alert' }, 'Choose a file or paste some RDF.'));
        return;
      }
      send.disabled = true;
      result.replaceChildren(h('p', { role: 'status' }, 'Uploading…'));
      try {
        const headers: Record<string, string> = { 'content-type': format.value, accept: 'application/json' };
        if (label.value.trim() !== '') headers['security-label'] = label.value.trim();
        const response = await call(`/${ctx.config.dataset}/upload`, { method: 'POST', headers, body });
        const answer = (await response.json()) as Record<string, unknown>;
        result.replaceChildren(h('p', { class: 'ok', id: 'upload-ok' }, 'Stored.'), h('pre', {}, JSON.stringify(answer, null, 2)));
      } catch (error) {
        result.replaceChildren(h('p', { class: 'error', role: 'alert', id: 'upload-error' }, describeError(error)));
      } finally {
        send.disabled = false;
      }
    })();
  });

  root.append(
    h('h1', {}, 'Upload'),
    h('p', { class: 'hint' }, `Adds RDF to /${ctx.config.dataset} as you (the write permission is the server's check). Every triple gets the label you give; you must be able to read it yourself.`),
    form,
    result,
  );
  validate();
};
