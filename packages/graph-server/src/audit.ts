/**
 * The audit log (docs/graph-server.md, "Audit log"; docs/operations.md): one JSON object per line,
 * append-only, for every write, every admin action, every refused (401/403) request and, with
 * `audit.reads`, every read. With `audit.file` the lines go to that file (mode 0600, rotated by
 * size); without it they stay in the service log as `audit: true` lines, as before.
 *
 * Written by hand on node:fs rather than through a logging library: the file must be appended to
 * synchronously in request order (a record is on disk, or fsync'd with `audit.fsync`, before the
 * reply goes out), rotated by size keeping a fixed number of files, and created 0600 — pino's
 * transports write asynchronously and rotate by other rules (pino-roll), so a crash could lose
 * records of acknowledged writes.
 *
 * Records are built by the server from fixed fields (who, when, what, counts, labels, txId,
 * outcome); no header is copied into them, and any field named like a credential is dropped
 * (`redact`), so a token or secret never reaches the file.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { checkSection, deepFreeze, plainCopy, type Schema } from './config-schema.js';

export interface AuditConfig {
  /** The audit file; undefined = audit lines only in the service log. */
  file: string | undefined;
  /** Rotate when the file would pass this size (bytes). */
  maxBytes: number;
  /** Rotated files kept (`file.1` newest … `file.N`). */
  keep: number;
  /** fsync after every line (durable per record; costs a disk flush per write request). */
  fsync: boolean;
  /** Record reads too (who queried which dataset and endpoint). */
  reads: boolean;
  /** With `reads`: include the query text. */
  queryText: boolean;
}

/** `audit` of the configuration (config-schema.ts): its keys, kinds and defaults. */
export const AUDIT_SCHEMA: Schema = {
  type: 'object', additionalProperties: false, message: 'must be a mapping',
  properties: {
    file: { type: 'string', minLength: 1, message: 'must be a file path' },
    maxBytes: { type: 'integer', minimum: 1024, default: 64 * 1024 * 1024, message: 'must be a whole number of bytes, at least 1024' },
    keep: { type: 'integer', minimum: 0, default: 10, message: 'must be a whole number ≥ 0' },
    fsync: { type: 'boolean', default: false, message: 'must be true or false' },
    reads: { type: 'boolean', default: false, message: 'must be true or false' },
    queryText: { type: 'boolean', default: false, message: 'must be true or false' },
  },
};

export const DEFAULT_AUDIT: AuditConfig = deepFreeze(resolveAuditConfig(undefined));

/** What kind of event a record is. */
export type AuditKind = 'write' | 'admin' | 'read' | 'denied' | 'kafka';

export type AuditRecord = { kind: AuditKind; operation: string } & Record<string, unknown>;

export interface AuditSinkLog {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Field names never written (whatever a caller of `record` passes). */
const SECRET = /token|secret|password|passwd|authori[sz]ation|cookie|credential|grant|api[-_]?key/i;

export function redact(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || SECRET.test(key)) continue;
    out[key] = value;
  }
  return out;
}

export class AuditLog {
  readonly config: AuditConfig;
  private fd: number | undefined;
  private size = 0;
  /** Why the last append failed, until one succeeds (readiness reports it). */
  lastError: string | undefined;
  private readonly log: AuditSinkLog;
  private readonly now: () => number;

  constructor(config: AuditConfig, log: AuditSinkLog, now: () => number = Date.now) {
    this.config = config;
    this.log = log;
    this.now = now;
    if (config.file !== undefined) this.open();
  }

  /** Append one record (time added here). Never throws: a failure is logged and kept in `lastError`. */
  record(entry: AuditRecord): void {
    const line = { time: new Date(this.now()).toISOString(), ...redact(entry) };
    if (this.config.file === undefined) {
      this.log.info({ audit: true, ...line }, `${entry.kind}: ${entry.operation}`);
      return;
    }
    const text = JSON.stringify(line) + '\n';
    const bytes = Buffer.byteLength(text);
    try {
      if (this.fd === undefined) this.open();
      if (this.size > 0 && this.size + bytes > this.config.maxBytes) this.rotate();
      writeAllSync(this.fd!, Buffer.from(text));
      if (this.config.fsync) fsyncSync(this.fd!);
      this.size += bytes;
      this.lastError = undefined;
    } catch (error) {
      const err = error as NodeJS.ErrnoException;
      this.lastError = err.code ?? 'write failed';
      // Which operation was lost, never its details (they may name data).
      this.log.error({ err: err.message, kind: entry.kind, operation: entry.operation }, 'audit: could not write the audit record');
      if (this.fd !== undefined) {
        try {
          closeSync(this.fd);
        } catch {
          // already unusable
        }
        this.fd = undefined;
      }
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } finally {
      this.fd = undefined;
    }
  }

  private open(): void {
    const file = this.config.file!;
    this.fd = openSync(file, 'a', 0o600);
    this.size = statSync(file).size;
  }

  /** `file` → `file.1`, `file.1` → `file.2`, … the oldest past `keep` removed; a new `file`. */
  private rotate(): void {
    const file = this.config.file!;
    this.close();
    const keep = this.config.keep;
    rmSync(`${file}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      try {
        renameSync(`${file}.${n}`, `${file}.${n + 1}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    if (keep >= 1) renameSync(file, `${file}.1`);
    else rmSync(file, { force: true });
    this.open();
  }
}

function writeAllSync(fd: number, buffer: Buffer): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}

/** Validates `audit.*` (throws TypeError naming the field). */
export function resolveAuditConfig(input: Partial<AuditConfig> | undefined): AuditConfig {
  const config = plainCopy(input ?? {});
  checkSection(AUDIT_SCHEMA, config, 'audit');
  return { file: undefined, ...config } as AuditConfig;
}
