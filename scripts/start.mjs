#!/usr/bin/env node
// `npm start` = `ianode up`: the identity provider (9229), access service (8091) and graph server
// (3030, secure mode) as three child processes of one supervisor (packages/cli/src/supervisor.ts),
// durable data in ./data, the demo pool, directory and labelled data set. Builds first (tsc -b is
// incremental; scripts/build.mjs) unless IANODE_SKIP_BUILD=1. Arguments go to `ianode up`
// (`npm start -- --help`).
// Ports: IDP_PORT, ACCESS_PORT, GRAPH_PORT; data folder: IANODE_DATA_DIR; logs: LOG_LEVEL (warn).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { build, CLI_MAIN } from './build.mjs';

// Says what it builds and how long it took (scripts/build.mjs), on stderr.
const built = build();
if (built !== 0) process.exit(built);
if (!existsSync(CLI_MAIN)) {
  console.error('ianode: there is no build; run `npm install` (it builds), or `npm run build`');
  process.exit(1);
}
// glibc keeps freed array buffers below its (self-raising) mmap threshold in its heap; a fixed
// threshold gives the memory of deleted data and compactions back (bench/README.md, churn.mjs).
// Inherited by the graph server process (`ianode up` also sets it there when it is unset).
const env = { MALLOC_MMAP_THRESHOLD_: '131072', ...process.env };
const child = spawn(process.execPath, [CLI_MAIN, 'up', ...process.argv.slice(2)], { stdio: 'inherit', env });
// Ctrl-C reaches `ianode up` through the terminal's process group (it forwards it to the services,
// which run in their own groups); a signal sent to this process alone (e.g. by a test harness) is
// forwarded, and a repeated one changes nothing.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
