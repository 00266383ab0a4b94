/**
 * The node as a newcomer runs it: `npm start` spawned with a temp data folder and free ports,
 * stopped with SIGINT to its process group (as Ctrl-C does), and bash run with the `export` lines
 * it printed, in packages/access-service, as the README says. Shared by the e2e files.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export class NpmStartNode {
  readonly ports = { idp: 0, access: 0, graph: 0 };
  /** Everything the last start printed. */
  output = '';
  private child: ChildProcess | undefined;
  private readonly dataDir: string;

  /** `env`: extra environment for `npm start` (and so for the three services), e.g. `QUERY_TIMEOUT_MS`. */
  constructor(name: string, private readonly env: NodeJS.ProcessEnv = {}) {
    this.dataDir = mkdtempSync(path.join(tmpdir(), `ianode-${name}-`));
  }

  /** The `export NAME=value` lines the last start printed. */
  get exportsText(): string {
    return this.output.split('\n').filter((line) => line.startsWith('export ')).join('\n');
  }

  async start(): Promise<void> {
    if (this.ports.graph === 0) {
      this.ports.idp = await freePort();
      this.ports.access = await freePort();
      this.ports.graph = await freePort();
    }
    this.output = '';
    const child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        IANODE_DATA_DIR: this.dataDir,
        IDP_PORT: String(this.ports.idp),
        ACCESS_PORT: String(this.ports.access),
        GRAPH_PORT: String(this.ports.graph),
        IANODE_SKIP_BUILD: '1',
        LOG_LEVEL: 'warn',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${this.output}`)), 90_000);
      child.stdout!.on('data', () => {
        if (this.output.includes('Ctrl-C stops all three')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${this.output}`));
      });
    });
  }

  stop(): Promise<void> {
    const child = this.child;
    return new Promise((resolve) => {
      if (!child || child.exitCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.on('exit', () => resolve());
      process.kill(-child.pid!, 'SIGINT'); // the process group, as Ctrl-C does
    });
  }

  /** Every folder and file below the data folder with its permission bits (`0700 idp`). */
  filesAtRest(): string[] {
    const out: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        const stat = statSync(full);
        out.push(`${(stat.mode & 0o777).toString(8).padStart(4, '0')} ${path.relative(this.dataDir, full)}${stat.isDirectory() ? '/' : ''}`);
        if (stat.isDirectory()) walk(full);
      }
    };
    out.push(`${(statSync(this.dataDir).mode & 0o777).toString(8).padStart(4, '0')} ./`);
    walk(this.dataDir);
    return out;
  }

  /** Stop and remove the data folder. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Runs bash with the printed exports, in packages/access-service, as the README says. */
  bash(script: string): string {
    return execFileSync('bash', ['-c', `${this.exportsText}\ncd packages/access-service\n${script}`], { cwd: root, encoding: 'utf8' });
  }
}

/** An ID token of a demo user (`ADMIN_USER_EMAIL` or `USER_EMAIL`), through fetch_id_token.sh as the README says. */
export function idToken(node: NpmStartNode, who: 'ADMIN_USER_EMAIL' | 'USER_EMAIL'): string {
  return node.bash(`source idp-local/fetch_id_token.sh "$${who}" >&2 && printf '%s' "$IDP_ID_TOKEN"`);
}

/** The commands of `names` that are not on the PATH. */
export function missingCommands(names: string[]): string[] {
  return names.filter((name) => {
    try {
      execFileSync('bash', ['-c', `command -v ${name}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Whether a real-client e2e file runs: it does when its tools are there; without them it is skipped
 * outside CI (with the reason in its title) and fails in CI (`CI=true`), where .ci/run must have
 * installed them.
 */
export function clientTools(names: string[]): { skip: boolean; reason: string; missing: string[] } {
  const missing = missingCommands(names);
  const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
  return {
    missing,
    skip: missing.length > 0 && !inCi,
    reason: missing.length === 0 ? '' : ` (skipped: ${missing.join(', ')} not found${inCi ? '' : '; CI fails instead'})`,
  };
}
