/**
 * What each demo user sees of config/demo-data.trig through the queries the client scripts send
 * (test/clients/python/*.py, test/clients/jena), as N-Triples terms. The admin (engineer, employee,
 * clearance TS) sees all three of project1's triples; the ordinary user (engineer, contractor,
 * clearance OS) not the codename, which is labelled `clearance=S && employee`.
 */
import { expect } from 'vitest';

export type Who = 'admin' | 'user';

const ex = (local: string): string => `<http://example/${local}>`;
const budget = { p: ex('budget'), o: '"250000"^^<http://www.w3.org/2001/XMLSchema#integer>' };
const codename = { p: ex('codename'), o: '"KESTREL"' };
const name = { p: ex('name'), o: '"Bridge survey"' };

/** `SELECT ?p ?o WHERE { <http://example/project1> ?p ?o } ORDER BY ?p`: rows in order. */
export const projectRows: Record<Who, Array<{ p: string; o: string }>> = {
  admin: [budget, codename, name],
  user: [budget, name],
};

const asTriples = (rows: Array<{ p: string; o: string }>): string[][] => rows.map((r) => [ex('project1'), r.p, r.o]);

/** `ASK { <http://example/project1> <http://example/codename> "KESTREL" }`. */
export const askAnswer: Record<Who, boolean> = { admin: true, user: false };

/** `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = project1) } ORDER BY ?p LIMIT 2`. */
export const constructed: Record<Who, string[][]> = {
  admin: asTriples([budget, codename]),
  user: asTriples([budget, name]),
};

/** `DESCRIBE ?s WHERE { ?s <http://example/name> ?n } LIMIT 1`: project1, as far as the caller sees it. */
export const described: Record<Who, string[][]> = {
  admin: asTriples([budget, codename, name]),
  user: asTriples([budget, name]),
};

/** Triples sorted as the scripts sort them (by their N-Triples terms). */
export const sorted = (triples: string[][]): string[][] => [...triples].sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : a.join(' ') > b.join(' ') ? 1 : 0));

/** One step of a client script's JSON report. */
export interface Step {
  ok: boolean;
  status?: number;
  message?: string;
  error?: string;
  [key: string]: unknown;
}
export type Report = Record<string, Step>;

/** The step, asserted to have succeeded (the failure's status and message show in the diff). */
export function ok(report: Report | undefined, name: string): Step {
  const step = report?.[name];
  expect(step, name).toMatchObject({ ok: true });
  return step!;
}

/** The step, asserted to have been refused with `status`. */
export function refused(report: Report | undefined, name: string, status: number): Step {
  const step = report?.[name];
  expect(step, name).toMatchObject({ ok: false, status });
  return step!;
}
