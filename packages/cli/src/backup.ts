/**
 * `ianode backup --server URL --dataset NAME [--wait]`: an online backup by a running graph server
 * (docs/operations.md "Backups"): `POST URL/$/backup/NAME` with the caller's token
 * ($IDP_ID_TOKEN, as `ianode load` and `ianode kafka status` send it), which answers with a task;
 * with --wait, the task is followed (`GET URL/$/tasks/ID`) until it ends, with progress and ETA on
 * stderr. The file is written by the server, in its `backup.dir`. The offline copy of a stopped
 * folder is `ianode dump DIR --out FILE --gzip` (the same format).
 */
import { Progress, short, type ProgressIo } from './progress.js';

export interface BackupOnlineOptions {
  /** The graph server (its root or any URL on it: only the origin is used). */
  server: string;
  dataset: string;
  /** Sent as the bearer token when set. */
  token: string | undefined;
  wait: boolean;
}

export interface BackupOnlineIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Progress while waiting (undefined: --quiet). */
  progress: ProgressIo | undefined;
  fetch?: typeof fetch;
  /** Between polls (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds between polls (default 1000). */
  pollMs?: number;
}

interface TaskReply {
  id: string;
  state: 'running' | 'succeeded' | 'failed';
  progress: { done: number; total?: number };
  result?: { file?: string; quads?: number; labelled?: number; pending?: number; bytes?: number; txId?: number; seconds?: number };
  error?: { code: string; message: string };
}

/** The server's message of a refusal (its JSON `message`, else the status line). */
async function refusal(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { code?: string; message?: string };
    if (typeof body.message === 'string') return `${response.status} ${body.code ?? ''}: ${body.message}`.replace(' :', ':');
  } catch {
    // not JSON
  }
  return `${response.status} ${response.statusText}`;
}

export async function backupOnline(opts: BackupOnlineOptions, io: BackupOnlineIo): Promise<number> {
  const doFetch = io.fetch ?? fetch;
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const origin = new URL(opts.server).origin;
  const headers: Record<string, string> = { accept: 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) };
  const started = await doFetch(`${origin}/$/backup/${encodeURIComponent(opts.dataset)}`, { method: 'POST', headers });
  if (started.status !== 202) {
    const hint = started.status === 401 ? ' (set $IDP_ID_TOKEN to an administrator\'s token: eval "$(ianode token ADMIN_EMAIL)")' : '';
    io.stderr(`ianode backup: ${origin} refused the backup of ${opts.dataset}: ${await refusal(started)}${hint}\n`);
    return 1;
  }
  const { taskId, started: isNew } = (await started.json()) as { taskId: string; started?: boolean };
  const location = new URL(started.headers.get('location') ?? `/$/tasks/${taskId}`, origin).href;
  io.stdout(`backup of ${opts.dataset} ${isNew === false ? 'already under way' : 'started'}: task ${taskId} (${location})\n`);
  if (!opts.wait) return 0;

  let progress: Progress | undefined;
  for (;;) {
    const response = await doFetch(location, { headers });
    if (response.status !== 200) {
      progress?.done();
      io.stderr(`ianode backup: could not follow task ${taskId}: ${await refusal(response)}\n`);
      return 1;
    }
    const task = (await response.json()) as TaskReply;
    if (task.state === 'running') {
      progress ??= task.progress.total === undefined ? undefined : new Progress(`backup ${opts.dataset}`, task.progress.total, 'quads', io.progress);
      progress?.update(task.progress.done);
      await sleep(io.pollMs ?? 1000);
      continue;
    }
    progress?.done();
    if (task.state === 'failed') {
      io.stderr(`ianode backup: the backup of ${opts.dataset} failed: ${task.error?.code ?? 'INTERNAL'}: ${task.error?.message ?? 'no reason given'}\n`);
      return 1;
    }
    const r = task.result ?? {};
    io.stdout(
      `backed up ${opts.dataset} at transaction ${r.txId}: ${r.quads} quads (${r.labelled} with a label of their own), ${r.pending} pending labels, ` +
        `${short(r.bytes ?? 0)}B in ${(r.seconds ?? 0).toFixed(1)} s to ${r.file} (in the server's backup.dir)\n`,
    );
    return 0;
  }
}
