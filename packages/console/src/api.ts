/** Calls to the graph server (same origin) and the access service, with the session's ID token. */
import { freshSession } from './auth.js';
import type { ConsoleConfig } from './config.js';

let config: ConsoleConfig | undefined;

/** Set once at start: calls renew an expired session through this configuration's IdP. */
export function useConfig(value: ConsoleConfig): void {
  config = value;
}

/** The bearer of the session (renewed when expired), or undefined (open mode, signed out). */
export async function bearer(): Promise<string | undefined> {
  if (config === undefined || config.mode === 'open') return undefined;
  return (await freshSession(config))?.idToken;
}

/** A refused or failed call: the status and the server's `{ code, message }` when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** `fetch` with `Authorization: Bearer <ID token>` (none in open mode or when signed out). */
export async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = await bearer();
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(url, { ...init, headers, credentials: 'omit' });
  if (response.ok) return response;
  let code = `HTTP_${response.status}`;
  let message = `${response.status} ${response.statusText}`;
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; error?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.message === 'string') message = body.message;
    else if (typeof body.error === 'string') message = body.error;
  } catch {
    if (text.trim() !== '') message = `${message}: ${text.slice(0, 300)}`;
  }
  throw new ApiError(response.status, code, message);
}

export async function callJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  return (await (await call(url, { ...init, headers })).json()) as T;
}

/** A sentence for the page: 401/403 say what to do. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return `Not signed in or the session has ended (${error.code}): sign in again. ${error.message}`;
    if (error.status === 403) return `Refused (${error.code}): ${error.message}`;
    return `${error.status} ${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
