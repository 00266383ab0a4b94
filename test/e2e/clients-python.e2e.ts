/**
 * Issue 15's acceptance with Python's SPARQL clients: SPARQLWrapper 2.0.0 and rdflib 7 (pinned in
 * test/clients/python/requirements.txt, installed by pip into the git-ignored test/clients/.venv,
 * which later runs reuse) against `npm start` as a newcomer runs it, with the demo users' tokens.
 * The scripts (test/clients/python/*.py) run their whole script and print a JSON report per step;
 * this file asserts on the rows and triples each demo user must get (test/clients/demo-views.ts).
 *
 * Without python3 this file is skipped, except in CI, where it fails.
 */
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askAnswer, constructed, described, ok, projectRows, refused, sorted, type Report, type Who } from '../clients/demo-views.js';
import { clientTools, idToken, NpmStartNode, root } from './support.js';

const run = promisify(execFile);
const tools = clientTools(['python3']);
const clients = path.join(root, 'test/clients');
const python = path.join(clients, '.venv/bin/python');
const node = new NpmStartNode('py-clients');
const reports: Record<'sparqlwrapper' | 'rdflib', Partial<Record<Who, Report>>> = { sparqlwrapper: {}, rdflib: {} };
const PREFIX = 'http://example/clients/';
const XSD_INT = '^^<http://www.w3.org/2001/XMLSchema#integer>';

async function script(name: 'sparqlwrapper' | 'rdflib', token: string): Promise<Report> {
  const base = `http://localhost:${node.ports.graph}/ds`;
  const { stdout } = await run(
    python,
    [path.join(clients, `python/${name}_client.py`), '--query', `${base}/query`, '--update', `${base}/update`, '--gsp', `${base}/data`, '--prefix', `${PREFIX}${name}/`],
    { cwd: path.join(clients, 'python'), env: { ...process.env, IANODE_TOKEN: token, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 120_000, maxBuffer: 16 << 20 },
  );
  return JSON.parse(stdout) as Report;
}

describe.skipIf(tools.skip)(`Python SPARQL clients against npm start${tools.reason}`, () => {
  beforeAll(async () => {
    if (tools.missing.length > 0) throw new Error(`${tools.missing.join(', ')} not found: CI must have it (see .ci/run)`);
    execFileSync('bash', [path.join(clients, 'python/ensure-venv.sh')], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 540_000 });
    await node.start();
    const tokens = { admin: idToken(node, 'ADMIN_USER_EMAIL'), user: idToken(node, 'USER_EMAIL') };
    // The admin writes first; the ordinary user's run then also shows it cannot see those writes.
    for (const who of ['admin', 'user'] as const) {
      reports.sparqlwrapper[who] = await script('sparqlwrapper', tokens[who]);
      reports.rdflib[who] = await script('rdflib', tokens[who]);
    }
  }, 600_000);

  afterAll(async () => {
    await node.dispose();
  });

  describe('SPARQLWrapper', () => {
    const r = reports.sparqlwrapper;

    it.each(['admin', 'user'] as const)('SELECT in JSON (GET and POST) and XML (its default): the %s gets exactly the rows it may see', (who) => {
      const json = ok(r[who], 'select-json');
      expect(json.contentType).toMatch(/^application\/sparql-results\+json/);
      expect(json.vars).toEqual(['p', 'o']);
      expect(json.rows).toEqual(projectRows[who]);
      expect(ok(r[who], 'select-json-post').rows, 'POST form').toEqual(projectRows[who]);
      const xml = ok(r[who], 'select-xml');
      expect(xml.contentType).toMatch(/^application\/sparql-results\+xml/);
      expect(xml.rows).toEqual(projectRows[who]);
    });

    it.each(['admin', 'user'] as const)('SELECT in CSV and TSV: the %s gets the same rows', (who) => {
      const csv = ok(r[who], 'select-csv');
      expect(csv.contentType).toMatch(/^text\/csv/);
      expect(csv.header).toEqual(['p', 'o']);
      // CSV has no term syntax: IRIs and lexical forms.
      expect(csv.rows).toEqual(projectRows[who].map((row) => [row.p.slice(1, -1), row.o.replace(/^"(.*)"(\^\^<.*>)?$/, '$1')]));
      const tsv = ok(r[who], 'select-tsv');
      expect(tsv.contentType).toMatch(/^text\/tab-separated-values/);
      expect(tsv.header).toEqual(['?p', '?o']);
      // TSV terms are Turtle: an integer may be written bare.
      const canonical = (cell: string): string => (/^\d+$/.test(cell) ? `"${cell}"${XSD_INT}` : cell);
      expect((tsv.rows as string[][]).map((row) => row.map(canonical))).toEqual(projectRows[who].map((row) => [row.p, row.o]));
    });

    it.each(['admin', 'user'] as const)('ASK in JSON and XML: %s', (who) => {
      expect(ok(r[who], 'ask-json').boolean).toBe(askAnswer[who]);
      expect(ok(r[who], 'ask-xml').boolean).toBe(askAnswer[who]);
    });

    for (const format of ['turtle', 'rdfxml', 'jsonld', 'rdfxml-explicit'] as const) {
      it.each(['admin', 'user'] as const)(`CONSTRUCT with LIMIT in ${format}: the %s gets the first two triples it sees`, (who) => {
        if (format === 'rdfxml-explicit') {
          expect(ok(r[who], 'construct-rdfxml-explicit').triples).toEqual(sorted(constructed[who]));
          return;
        }
        const step = ok(r[who], `construct-${format}`);
        expect(step.triples).toEqual(sorted(constructed[who]));
        expect(step.contentType).toMatch({ turtle: /^text\/turtle/, rdfxml: /^application\/rdf\+xml/, jsonld: /^application\/ld\+json/ }[format]);
      });
      if (format === 'rdfxml-explicit') continue;
      it.each(['admin', 'user'] as const)(`DESCRIBE with LIMIT in ${format}: the %s gets project1 as far as it sees it`, (who) => {
        expect(ok(r[who], `describe-${format}`).triples).toEqual(sorted(described[who]));
      });
    }

    it('update with Security-Label: stored, read back, deleted', () => {
      const written = ok(r.admin, 'update-labelled');
      expect(written.status).toBe(200);
      expect(written.readBack).toEqual([{ p: '<http://example/title>', o: '"written by SPARQLWrapper"' }]);
      expect(ok(r.admin, 'delete-labelled').readBack).toEqual([]);
    });

    it('update without a label whose default label the writer cannot see: refused with 400 naming Security-Label; nothing stored', () => {
      const step = refused(r.admin, 'update-unlabelled', 400);
      expect(step.message).toMatch(/Security-Label/);
      expect(ok(r.admin, 'read-unlabelled').rows).toEqual([]);
    });

    it('the ordinary user may not write (403) and does not see the admin\'s writes', () => {
      refused(r.user, 'update-labelled', 403);
      refused(r.user, 'update-unlabelled', 403);
      expect(ok(r.user, 'read-unlabelled').rows).toEqual([]);
    });
  });

  describe('rdflib', () => {
    const r = reports.rdflib;

    it.each(['admin', 'user'] as const)('SPARQLStore SELECT in XML (its default), JSON, TSV and by POST: the %s gets exactly the rows it may see', (who) => {
      for (const format of ['xml', 'json', 'tsv', 'post']) expect(ok(r[who], `select-${format}`).rows, format).toEqual(projectRows[who]);
    });

    it.each(['admin', 'user'] as const)('SPARQLStore SELECT in CSV: the %s gets the rows (IRIs and plain strings, as CSV has no types)', (who) => {
      expect(ok(r[who], 'select-csv').rows).toEqual(projectRows[who].map((row) => ({ p: row.p, o: row.o.replace(/^"(.*)"(\^\^<.*>)?$/, '"$1"') })));
    });

    it.each(['admin', 'user'] as const)('ASK: %s', (who) => {
      expect(ok(r[who], 'ask').boolean).toBe(askAnswer[who]);
    });

    it.each(['admin', 'user'] as const)('the Graph API over SPARQLStore (triples, value, in): %s', (who) => {
      expect(ok(r[who], 'graph-api')).toMatchObject({
        triples: sorted(described[who]),
        codename: who === 'admin' ? '"KESTREL"' : null,
        hasName: true,
      });
    });

    for (const format of ['rdfxml', 'turtle', 'jsonld'] as const) {
      it.each(['admin', 'user'] as const)(`CONSTRUCT and DESCRIBE with LIMIT in ${format}${format === 'rdfxml' ? ' (its default)' : ''}: %s`, (who) => {
        expect(ok(r[who], `construct-${format}`).triples).toEqual(sorted(constructed[who]));
        expect(ok(r[who], `describe-${format}`).triples).toEqual(sorted(described[who]));
      });
    }

    it('SPARQLUpdateStore with Security-Label: update() and Graph.add() are stored and read back; remove() deletes', () => {
      expect(ok(r.admin, 'update-labelled').readBack).toEqual([{ p: '<http://example/title>', o: '"written by rdflib"' }]);
      expect(ok(r.admin, 'add-labelled').readBack).toEqual([{ p: '<http://example/title>', o: '"added by rdflib"' }]);
      expect(ok(r.admin, 'remove-labelled').readBack).toEqual([]);
    });

    it('update() and Graph.add() without a label the writer could not see are refused with 400 naming Security-Label', () => {
      expect(refused(r.admin, 'update-unlabelled', 400).message).toMatch(/Security-Label/);
      expect(refused(r.admin, 'add-unlabelled', 400).message).toMatch(/Security-Label/);
    });

    it('GSP (urllib, bodies by rdflib): PUT Turtle 201, POST N-Triples 200, GET in Turtle and JSON-LD, DELETE 204 then 404', () => {
      const graph = `${PREFIX}rdflib/rdflib-graph`;
      const triple = (s: string, title: string): string[] => [`<${graph}/${s}>`, '<http://example/title>', `"${title}"`];
      const put = ok(r.admin, 'gsp-put-turtle');
      expect(put.status).toBe(201);
      expect(put.triples).toEqual([triple('a', 'put by rdflib')]);
      const posted = ok(r.admin, 'gsp-post-ntriples');
      expect(posted.status).toBe(200);
      const both = [triple('a', 'put by rdflib'), triple('b', 'posted by rdflib')];
      expect(posted.triples).toEqual(both);
      expect(ok(r.admin, 'gsp-get-jsonld').triples).toEqual(both);
      expect(ok(r.admin, 'gsp-delete')).toMatchObject({ status: 204, after: 404 });
    });

    it('GSP in RDF/XML: GET with Accept application/rdf+xml, POST of an RDF/XML body', () => {
      const graph = `${PREFIX}rdflib/rdflib-graph`;
      const triple = (s: string, title: string): string[] => [`<${graph}/${s}>`, '<http://example/title>', `"${title}"`];
      const got = ok(r.admin, 'gsp-get-rdfxml');
      expect(got.contentType).toMatch(/^application\/rdf\+xml/);
      expect(got.triples).toEqual([triple('a', 'put by rdflib'), triple('b', 'posted by rdflib')]);
      const posted = ok(r.admin, 'gsp-post-rdfxml');
      expect(posted.status).toBe(200);
      expect(posted.triples).toEqual([triple('a', 'put by rdflib'), triple('b', 'posted by rdflib'), triple('c', 'posted as RDF/XML')]);
    });

    it('GSP PUT without a label the writer could not see: 400 naming Security-Label', () => {
      expect(refused(r.admin, 'gsp-put-unlabelled', 400).message).toMatch(/Security-Label/);
    });

    it('the ordinary user may not write through rdflib or GSP (403)', () => {
      for (const name of ['update-labelled', 'add-labelled', 'update-unlabelled', 'add-unlabelled', 'gsp-put-turtle']) refused(r.user, name, 403);
    });
  });
});
