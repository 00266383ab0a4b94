#!/usr/bin/env node
/**
 * W3C conformance runner: reads the test manifests of $IANODE_W3C_DIR (a checkout of the W3C
 * rdf-tests repository, the folder holding rdf/ and sparql/; default shared/w3c beside the
 * clone's folder, scripts/w3c/README.md) and runs every suite registered below.
 *
 *   node scripts/w3c.mjs [--allow-missing] [--suite NAME]... [--filter TEXT] [--verbose]
 *
 * Prints `<suite>: N passed, N failed, N skipped` per suite, each failure with its reason, and a
 * total `w3c: ...` line; exits 1 when a test failed, 2 when the suites are not there (unless
 * --allow-missing). Skips live in scripts/w3c/skip.json, each with a reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readManifest, SUITES_ROOT } from './w3c/manifest.mjs';
import { rdfSuites } from './w3c/rdf-suites.mjs';
import { sparqlSuites } from './w3c/sparql-suites.mjs';
import { httpSuites } from './w3c/http-suites.mjs';

/** Every suite: { name, manifest (relative to the suites folder), run(entry, manifest) ->
 * undefined when the test passes, else the reason it failed }. Add SPARQL suites here. */
const SUITES = [...rdfSuites, ...sparqlSuites, ...httpSuites];

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const args = { allowMissing: false, suites: [], filter: undefined, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--allow-missing') args.allowMissing = true;
    else if (a === '--verbose' || a === '-v') args.verbose = true;
    else if (a === '--suite') args.suites.push(argv[++i]);
    else if (a === '--filter') args.filter = argv[++i];
    else {
      console.error(`unknown argument ${a}\nusage: node scripts/w3c.mjs [--allow-missing] [--suite NAME]... [--filter TEXT] [--verbose]`);
      process.exit(64);
    }
  }
  return args;
}

function loadSkips() {
  const file = path.join(repoRoot, 'scripts/w3c/skip.json');
  const skips = JSON.parse(readFileSync(file, 'utf8'));
  delete skips.$comment;
  for (const [id, reason] of Object.entries(skips)) {
    if (typeof reason !== 'string' || reason.trim() === '') throw new Error(`${file}: the skip of ${id} has no reason`);
  }
  return skips;
}

/** Every entry of a manifest and of the manifests it includes (mf:include), with its manifest. */
function* manifestEntries(file, root, seen = new Set()) {
  if (seen.has(file)) return;
  seen.add(file);
  const manifest = readManifest(file, root);
  for (const entry of manifest.entries) yield [entry, manifest];
  for (const included of manifest.includes) yield* manifestEntries(included, root, seen);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const root = SUITES_ROOT;
  const suites = SUITES.filter((s) => args.suites.length === 0 || args.suites.includes(s.name));
  if (suites.length === 0) {
    console.error(`no suite named ${args.suites.join(', ')}; suites: ${SUITES.map((s) => s.name).join(', ')}`);
    return 64;
  }
  const missing = suites.filter((s) => !existsSync(path.join(root, s.manifest)));
  if (missing.length > 0) {
    const what = existsSync(root) ? ` (missing ${missing.map((s) => s.manifest).join(', ')})` : '';
    console.error(`W3C test suites not found at ${root}; set IANODE_W3C_DIR${what}`);
    if (!args.allowMissing) return 2;
  }
  const skips = loadSkips();
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const suite of suites) {
    if (missing.includes(suite)) continue;
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const failures = [];
    for (const [entry, manifest] of manifestEntries(path.join(root, suite.manifest), root)) {
      if (args.filter && !entry.id.includes(args.filter) && !entry.name.includes(args.filter)) continue;
      if (skips[entry.id] !== undefined) {
        counts.skipped++;
        if (args.verbose) console.log(`  skip ${entry.name}: ${skips[entry.id]}`);
        continue;
      }
      let reason;
      try {
        reason = await suite.run(entry, manifest);
      } catch (error) {
        reason = `runner error: ${error?.stack ?? error}`;
      }
      if (reason === undefined) {
        counts.passed++;
        if (args.verbose) console.log(`  pass ${entry.name}`);
      } else if (reason.skip !== undefined) {
        counts.skipped++;
        if (args.verbose) console.log(`  skip ${entry.name}: ${reason.skip}`);
      } else {
        counts.failed++;
        failures.push(`  FAIL ${entry.name} <${entry.id}>: ${reason}`);
      }
    }
    console.log(`${suite.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    for (const f of failures) console.log(f);
    for (const k of Object.keys(total)) total[k] += counts[k];
  }
  console.log(`w3c: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  return total.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
