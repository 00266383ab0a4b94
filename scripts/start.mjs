#!/usr/bin/env node
// `npm start` = `ianode up`: the identity provider (9229), access service (8091) and graph server
// (3030, secure mode) as three child processes of one supervisor (packages/cli/src/supervisor.ts),
// durable data in ./data, the demo pool, directory and labelled data set. Builds first (tsc -b is
// incremental) unless IANODE_SKIP_BUILD=1.
// Ports: IDP_PORT, ACCESS_PORT, GRAPH_PORT; data folder: IANODE_DATA_DIR; logs: LOG_LEVEL (warn).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixBinModes } from './bin-mode.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.env.IANODE_SKIP_BUILD !== '1') {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('ianode: the build failed (npx tsc -b); fix it, or run `npm install` first');
    process.exit(build.status ?? 1);
  }
  fixBinModes(root); // `npx ianode …` works after the first build of a fresh clone
}
// glibc keeps freed array buffers below its (self-raising) mmap threshold in its heap; a fixed
// threshold gives the memory of deleted data and compactions back (bench/README.md, churn.mjs).
// Inherited by the graph server process (`ianode up` also sets it there when it is unset).
const env = { MALLOC_MMAP_THRESHOLD_: '131072', ...process.env };
const child = spawn(process.execPath, [path.join(root, 'packages/cli/dist/main.js'), 'up', ...process.argv.slice(2)], { stdio: 'inherit', env });
// Ctrl-C reaches `ianode up` through the terminal's process group (it forwards it to the services,
// which run in their own groups); a signal sent to this process alone (e.g. by a test harness) is
// forwarded, and a repeated one changes nothing.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
