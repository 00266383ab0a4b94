/**
 * Issue 15's acceptance with Apache Jena's RDFConnectionRemote (Jena 5.6.0 from Maven, Java 17):
 * test/clients/jena is built with `mvn -q -B package` (skipped when the jar is newer than its
 * sources; dependencies from the ~/.m2 cache) and run with `java -cp` against `npm start` as a
 * newcomer runs it, once per demo user. It prints a JSON report per step; this file asserts on the
 * rows and triples each demo user must get (test/clients/demo-views.ts).
 *
 * Without java or mvn this file is skipped, except in CI, where it fails.
 */
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askAnswer, constructed, described, ok, projectRows, refused, sorted, type Report, type Who } from '../clients/demo-views.js';
import { clientTools, idToken, NpmStartNode, root } from './support.js';

const run = promisify(execFile);
const tools = clientTools(['java', 'mvn']);
const project = path.join(root, 'test/clients/jena');
const node = new NpmStartNode('jena-client');
const reports: Partial<Record<Who, Report>> = {};
const PREFIX = 'http://example/clients/jena/';

async function jena(token: string): Promise<Report> {
  const { stdout } = await run(
    'java',
    ['-cp', `${path.join(project, 'target/classes')}:${path.join(project, 'target/lib/*')}`, 'ianode.clients.Main', `http://localhost:${node.ports.graph}/ds`, PREFIX, 'employee'],
    { env: { ...process.env, IANODE_TOKEN: token }, timeout: 120_000, maxBuffer: 16 << 20 },
  );
  return JSON.parse(stdout) as Report;
}

const title = (s: string, text: string): string[] => [`<${PREFIX}jena-graph/${s}>`, '<http://example/title>', `"${text}"`];

describe.skipIf(tools.skip)(`Jena RDFConnectionRemote against npm start${tools.reason}`, () => {
  beforeAll(async () => {
    if (tools.missing.length > 0) throw new Error(`${tools.missing.join(', ')} not found: CI must have it (see .ci/run)`);
    execFileSync('bash', [path.join(project, 'build.sh')], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 540_000 });
    await node.start();
    const tokens = { admin: idToken(node, 'ADMIN_USER_EMAIL'), user: idToken(node, 'USER_EMAIL') };
    reports.admin = await jena(tokens.admin);
    reports.user = await jena(tokens.user);
  }, 600_000);

  afterAll(async () => {
    await node.dispose();
  });

  it.each(['admin', 'user'] as const)('querySelect in JSON, XML, CSV, TSV and Jena\'s default Accept: the %s gets exactly its rows', (who) => {
    for (const format of ['default', 'json', 'xml', 'tsv']) expect(ok(reports[who], `select-${format}`).rows, format).toEqual(projectRows[who]);
    // Jena reads CSV values as plain literals, IRIs included (CSV has no term syntax).
    expect(ok(reports[who], 'select-csv').rows).toEqual(
      projectRows[who].map((row) => ({ p: `"${row.p.slice(1, -1)}"`, o: row.o.replace(/^"(.*)"(\^\^<.*>)?$/, '"$1"') })),
    );
  });

  it.each(['admin', 'user'] as const)('queryAsk: %s', (who) => {
    expect(ok(reports[who], 'ask').boolean).toBe(askAnswer[who]);
  });

  for (const format of ['default', 'turtle', 'rdfxml', 'jsonld'] as const) {
    it.each(['admin', 'user'] as const)(`queryConstruct and queryDescribe with LIMIT, Accept ${format}: %s`, (who) => {
      expect(ok(reports[who], `construct-${format}`).triples).toEqual(sorted(constructed[who]));
      expect(ok(reports[who], `describe-${format}`).triples).toEqual(sorted(described[who]));
    });
  }

  it('update with Security-Label (added by the request modifier): stored, read back, deleted', () => {
    expect(ok(reports.admin, 'update-labelled').readBack).toEqual([{ p: '<http://example/title>', o: '"written by Jena"' }]);
    expect(ok(reports.admin, 'delete-labelled').readBack).toEqual([]);
  });

  it('update without a label the writer could not see: 400 naming Security-Label; nothing stored', () => {
    expect(refused(reports.admin, 'update-unlabelled', 400).message).toMatch(/Security-Label/);
    expect(ok(reports.admin, 'read-unlabelled').readBack).toEqual([]);
  });

  it('GSP: put, load (POST), fetch in Jena\'s default and JSON-LD, fetchDataset, delete then 404', () => {
    expect(ok(reports.admin, 'gsp-put').triples).toEqual([title('a', 'put by Jena')]);
    const both = [title('a', 'put by Jena'), title('b', 'loaded by Jena')];
    expect(ok(reports.admin, 'gsp-load').triples).toEqual(both);
    expect(ok(reports.admin, 'gsp-fetch-jsonld').triples).toEqual(both);
    const dataset = ok(reports.admin, 'gsp-fetch-dataset');
    // fetchDataset runs after the RDF/XML load (gsp-load-rdfxml) added c.
    expect(dataset.graph).toEqual([...both, title('c', 'loaded as RDF/XML')]);
    expect(dataset.defaultGraph).toEqual(expect.arrayContaining(sorted(described.admin)));
    expect(ok(reports.admin, 'gsp-delete').after).toBe(404);
  });

  it('GSP in RDF/XML: fetch with Accept application/rdf+xml, load of an RDF/XML body', () => {
    expect(ok(reports.admin, 'gsp-fetch-rdfxml').triples).toEqual([title('a', 'put by Jena'), title('b', 'loaded by Jena')]);
    expect(ok(reports.admin, 'gsp-load-rdfxml').triples).toEqual([title('a', 'put by Jena'), title('b', 'loaded by Jena'), title('c', 'loaded as RDF/XML')]);
  });

  it('GSP put without a label the writer could not see: 400 naming Security-Label', () => {
    expect(refused(reports.admin, 'gsp-put-unlabelled', 400).message).toMatch(/Security-Label/);
  });

  it('the ordinary user may not write (403) and does not see the admin\'s writes', () => {
    for (const name of ['update-labelled', 'update-unlabelled', 'gsp-put', 'gsp-load', 'gsp-put-unlabelled']) refused(reports.user, name, 403);
    expect(ok(reports.user, 'read-unlabelled').readBack).toEqual([]);
  });
});
