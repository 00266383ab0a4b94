/**
 * The `main.ts` pattern of every service: parse the command line, build the server, listen, print
 * a banner, stop gracefully on SIGINT/SIGTERM.
 *
 * Exit codes: 0 after a clean stop (or `--help`); 2 when the service cannot start (a mistake in
 * the command line or the configuration, with the usage text; or a failure at start, such as a
 * damaged store or a port in use, without it; the IdP keeps its historical 1 here); 1 when closing
 * failed. Messages go to stderr as `<name>: <message>`, with bearer credentials redacted.
 */
import { parseArgs } from 'node:util';
import { redactAuthorization } from '@ianode/auth';
import type { FastifyBaseLogger } from 'fastify';

/** A mistake in the command line or the configuration: reported with the usage text. */
export class UsageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/** The values `parseOptions` returns for `O` (as `parseArgs` types them). */
export type ParsedOptions<O extends ArgOptions> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>['values'];

export type ArgOptions = Record<string, { type: 'string' | 'boolean'; short?: string; default?: string | boolean; multiple?: boolean }>;

/**
 * The options of a command line (`node:util` `parseArgs`, strict, no positionals); an unknown
 * option or a missing value is a `UsageError`.
 */
export function parseOptions<const O extends ArgOptions>(options: O, args: string[] = process.argv.slice(2)): ParsedOptions<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
}

/** `--port` / `PORT`: a whole number from 0 to 65535, else a `UsageError` naming `what`. */
export function parsePort(text: string | undefined, what = '--port'): number {
  const port = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`${what} must be a port number, got ${text}`);
  }
  return port;
}

/** `http://host:port`, with an IPv6 host in brackets. */
export function hostUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Writes `<name>: <message>` (credentials redacted, the usage text after it if given) to stderr and exits. */
export function exitWith(name: string, message: string, options: { code?: number; usage?: string | undefined } = {}): never {
  process.stderr.write(`${name}: ${redactAuthorization(message)}${options.usage === undefined ? '' : `\n${options.usage}`}\n`);
  process.exit(options.code ?? 2);
}

/** Something that stops gracefully. */
export interface Closeable {
  close(): Promise<void>;
}

export interface RunServiceOptions<S extends Closeable> {
  /** The program name that starts every message on stderr (`ianode-graph`). */
  name: string;
  /** The usage text, printed after a `UsageError`. */
  usage: string;
  /**
   * Builds the server and starts listening (print the banner here); throw `UsageError` for a bad
   * command line or configuration; resolve to `undefined` when there is nothing to run (`--help`).
   */
  start(): Promise<S | undefined>;
  /** The log of the running server, for the `stopping` lines (none: nothing is logged). */
  log?(server: S): FastifyBaseLogger;
  /** Exit codes of a failed start: after a `UsageError`, after any other error (default 2 and 2; the IdP keeps 1 and 1). */
  exitCodes?: { usage?: number; start?: number };
}

/**
 * Starts the service and stops it on the first SIGINT or SIGTERM: logs `stopping`, awaits
 * `close()`, exits 0 (1 if closing failed). A failed start exits as the module comment says.
 * Resolves to the running server (`undefined` when `start` had nothing to run).
 */
export async function runService<S extends Closeable>(options: RunServiceOptions<S>): Promise<S | undefined> {
  let server: S | undefined;
  try {
    server = await options.start();
  } catch (error) {
    if (error instanceof UsageError) exitWith(options.name, error.message, { code: options.exitCodes?.usage ?? 2, usage: options.usage });
    exitWith(options.name, messageOf(error), { code: options.exitCodes?.start ?? 2 });
  }
  if (server === undefined) return undefined;
  const running = server;
  const log = options.log?.(running);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log?.info({ signal }, 'stopping');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log?.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return server;
}
