#!/usr/bin/env node
// Makes the `ianode` command's file executable after a build. npm links node_modules/.bin/ianode
// to packages/cli/dist/main.js at `npm install` and sets its mode only if the file exists then;
// on a fresh clone it does not (dist is built later), so `npx ianode …` failed with "Permission
// denied". `npm start` and `npm run build` run this after `tsc -b`. Usage: bin-mode.mjs [ROOT]
import { chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Adds the execute bits (where read is allowed) to every `bin` file of packages/cli under root. */
export function fixBinModes(root) {
  const pkgDir = path.join(root, 'packages/cli');
  const bin = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).bin ?? {};
  for (const file of Object.values(typeof bin === 'string' ? { ianode: bin } : bin)) {
    const target = path.join(pkgDir, file);
    const mode = statSync(target, { throwIfNoEntry: false })?.mode;
    if (mode === undefined) continue;
    const wanted = mode | ((mode & 0o444) >> 2);
    if ((mode & 0o7777) !== (wanted & 0o7777)) chmodSync(target, wanted & 0o7777);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fixBinModes(path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..')));
}
