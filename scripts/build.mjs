#!/usr/bin/env node
// The build of every package (`tsc -b`, incremental; then the web console's bundle, `vite build`
// in packages/console, when its sources are newer than its build), with a line before and after it so a first
// build (about a minute on a small machine) is not mistaken for a hang. Run by `npm run build`, by
// npm itself at `npm install` / `npm ci` (the root `prepare` script, so `npx ianode …` works right
// after an install), by `npm start` (scripts/start.mjs) and by the `ianode` command file when it
// finds no build (packages/cli/bin/ianode.js). Progress goes to stderr: stdout stays the command's.
// Usage: build.mjs [--if-missing]   (--if-missing: only when there is no build yet)
//   IANODE_SKIP_BUILD=1  do nothing (e.g. an install whose build you run yourself later)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The file the `ianode` command runs; its absence means "never built". */
export const CLI_MAIN = path.join(ROOT, 'packages/cli/dist/main.js');
/** The web console's page; its absence (or older sources) means "build the console". */
export const CONSOLE_DIR = path.join(ROOT, 'packages/console');
export const CONSOLE_INDEX = path.join(CONSOLE_DIR, 'dist/index.html');

/** The newest modification time (ms) of `file`, or of any file under it. */
function newest(file) {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const name of readdirSync(file)) max = Math.max(max, newest(path.join(file, name)));
  return max;
}

/** True when the console's build is missing or older than its sources, settings or the lockfile. */
export function consoleStale() {
  if (!existsSync(path.join(CONSOLE_DIR, 'package.json'))) return false;
  if (!existsSync(CONSOLE_INDEX)) return true;
  const built = statSync(CONSOLE_INDEX).mtimeMs;
  const inputs = ['src', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json'].map((f) => path.join(CONSOLE_DIR, f));
  return Math.max(...inputs.map(newest), newest(path.join(ROOT, 'package-lock.json'))) > built;
}

/** `vite build` of packages/console (the bundle the graph server serves at /). Returns the exit code. */
function buildConsole(log) {
  let vite;
  try {
    vite = path.join(path.dirname(createRequire(path.join(CONSOLE_DIR, 'package.json')).resolve('vite/package.json')), 'bin/vite.js');
  } catch {
    log('ianode: vite is not installed (was dev left out?), so the web console is not built; run `npm install` and `npm run build`');
    return 0;
  }
  log('ianode: building the web console (tsc --noEmit and vite build in packages/console)…');
  // Vite strips types without checking them: the check is tsc's, over the console's own tsconfig (DOM, bundler resolution).
  const tsc = createRequire(path.join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  const checked = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: CONSOLE_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
  if (checked.status !== 0) {
    log(`ianode: the web console has type errors (tsc exited ${checked.status ?? checked.signal})`);
    return checked.status || 1;
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: CONSOLE_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) log(`ianode: the web console's build failed (vite build exited ${result.status ?? result.signal})`);
  return result.status ?? 1;
}

/**
 * Runs `tsc -b` at the repository root. Returns the exit code (0 when built or nothing to do).
 * `log` receives the progress lines (default: stderr).
 */
export function build({ ifMissing = false, log = (line) => process.stderr.write(`${line}\n`), env = process.env } = {}) {
  if (env.IANODE_SKIP_BUILD === '1') return 0;
  const first = !existsSync(CLI_MAIN);
  const consoleMissing = existsSync(path.join(CONSOLE_DIR, 'package.json')) && !existsSync(CONSOLE_INDEX);
  if (ifMissing && !first && !consoleMissing) return 0;
  let tsc;
  try {
    tsc = createRequire(path.join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    // `npm install --omit=dev` leaves TypeScript out: nothing can be built, which is not an error of
    // the install itself; the `ianode` command says what to do when it finds no build.
    log('ianode: TypeScript is not installed (was dev left out?), so nothing is built; run `npm install` and `npm run build`');
    return 0;
  }
  log(first ? 'ianode: building every package (tsc -b; the first build takes about a minute)…' : 'ianode: building (tsc -b, only what changed)…');
  const started = Date.now();
  const result = spawnSync(process.execPath, [tsc, '-b'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    log(`ianode: the build failed (tsc -b exited ${result.status ?? result.signal}); fix the errors above and run \`npm run build\``);
    return result.status || 1;
  }
  if (consoleStale()) {
    const code = buildConsole(log);
    if (code !== 0) return code;
  }
  log(`ianode: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = build({ ifMissing: process.argv.includes('--if-missing') });
}
