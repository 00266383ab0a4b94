/**
 * The documentation is self-contained: every relative link in the repository's Markdown files
 * (README.md, docs/*.md, each package's README, …) names a file or folder of the repository, and
 * a link to a heading (`#anchor`) names a heading of that page. Nothing points outside the clone.
 *
 * Links are read with two regular expressions after fenced code blocks and code spans are blanked
 * out: the docs use only inline links `[text](target)` and reference definitions `[x]: target`, and
 * that is all this checks, so a Markdown parser dependency would add nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Tracked Markdown files (what a clone has), repository-relative. */
function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(ROOT, f)));
}

/** The text with fenced code blocks blanked and code spans blanked too, or (`spans: 'unwrap'`)
 * reduced to their content as a heading's anchor reads them (line numbers kept). */
function proseOf(text: string, spans: 'blank' | 'unwrap' = 'blank'): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  const out = lines.map((line) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      return '';
    }
    if (opener !== undefined) {
      fence = opener;
      return '';
    }
    return line.replace(/(`+)([\s\S]*?)\1/g, (m, _ticks, inner: string) => (spans === 'blank' ? ' '.repeat(m.length) : inner));
  });
  return out.join('\n');
}

/** Link targets with their line numbers. */
function linksOf(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  proseOf(text)
    .split('\n')
    .forEach((line, index) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)) links.push({ target: m[1]!, line: index + 1 });
      const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
      if (definition) links.push({ target: definition[1]!, line: index + 1 });
    });
  return links;
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to '-', repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseOf(text, 'unwrap').split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** What is wrong with each relative link of `file` (repository-relative), as `file:line: target: why`. */
function brokenLinks(root: string, file: string, text: string): string[] {
  const problems: string[] = [];
  for (const { target, line } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const where = `${file}:${line}: ${target}`;
    if (pathPart === '') {
      if (anchor !== undefined && !anchorsOf(text).has(decodeURIComponent(anchor).toLowerCase())) problems.push(`${where}: no heading #${anchor} in ${file}`);
      continue;
    }
    const resolved = path.resolve(root, path.dirname(file), decodeURI(pathPart));
    const relative = path.relative(root, resolved);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      problems.push(`${where}: outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined && anchor !== '' && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())) {
      problems.push(`${where}: no heading #${anchor} in ${relative}`);
    }
  }
  return problems;
}

describe('documentation links', () => {
  it('the checker finds what it should (and nothing in code)', () => {
    const text = [
      '# Title',
      '## Part one: the *setup*',
      'See [a](README.md), [b](docs/nope.md), [c](#part-one-the-setup), [d](#missing), [e](https://example.org/x),',
      '[f](../outside.md), `[g](nope-in-code.md)`, [h](docs/SPEC.md#1-modes-and-start-up-of-the-graph-server).',
      '```sh',
      'echo "[i](nope-in-fence.md)"',
      '```',
      '[j]: docs/gone.md',
    ].join('\n');
    expect(brokenLinks(ROOT, 'X.md', text)).toEqual([
      'X.md:3: docs/nope.md: no such file',
      'X.md:3: #missing: no heading #missing in X.md',
      'X.md:4: ../outside.md: outside the repository',
      'X.md:8: docs/gone.md: no such file',
    ]);
  });

  it('every relative link of every Markdown file resolves inside the repository', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/SPEC.md', 'docs/graph-server.md', 'docs/operations.md']));
    const problems = files.flatMap((file) => brokenLinks(ROOT, file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(problems).toEqual([]);
  });

  it('no document or source names the contract or design notes outside the clone; docs/*.md named anywhere exist', () => {
    const files = execFileSync('git', ['ls-files', '-z', '--', '*.md', '*.ts', '*.mjs', '*.js', '*.yaml', '*.sh'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '' && f !== 'test/docs-links.test.ts' && existsSync(path.join(ROOT, f)));
    const outside: string[] = [];
    const missing: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      if (/shared\/(SPEC|ARCHITECTURE|STYLE)\.md/.test(text)) outside.push(file);
      for (const m of text.matchAll(/\bdocs\/([A-Za-z0-9_.-]+\.md)\b/g)) if (!existsSync(path.join(ROOT, 'docs', m[1]!))) missing.push(`${file}: docs/${m[1]}`);
    }
    expect(outside).toEqual([]);
    expect(missing).toEqual([]);
  });
});
