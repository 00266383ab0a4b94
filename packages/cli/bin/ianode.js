#!/usr/bin/env node
// The `ianode` command as npm links it (node_modules/.bin/ianode). A committed file, executable in
// git, so the link works the moment `npm install` has made it, whatever the state of the build:
// `npm install` / `npm ci` build everything (the root `prepare` script); if there is still no build
// (an install with --ignore-scripts, or `npm run clean`), this builds once, saying so on stderr,
// then runs dist/main.js. A stale build is not rebuilt here: `npm start` and `npm run build` do that.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (!existsSync(main)) {
  const { build } = await import(new URL('../../../scripts/build.mjs', import.meta.url).href);
  const code = build({ env: { ...process.env, IANODE_SKIP_BUILD: '' } });
  if (code !== 0 || !existsSync(main)) {
    process.stderr.write('ianode: there is no build of the ianode command; run `npm install` (it builds), or `npm run build`\n');
    process.exit(code || 1);
  }
}
await import(pathToFileURL(main).href);
