/**
 * One JSON document fetched from a dependency (the IdP's key set and discovery document, its
 * revocation list), with the failures named: unreachable, an HTTP error, an unreadable, oversized
 * or non-JSON body. `fail` turns each into the caller's error (503-class: fail closed).
 */
export interface FetchJsonOptions {
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  /** Longest body accepted, in characters. */
  maxChars: number;
}

export async function fetchJsonDocument(url: URL, options: FetchJsonOptions, fail: (detail: string, cause?: unknown) => Error): Promise<unknown> {
  let response: Response;
  try {
    response = await options.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (cause) {
    throw fail('unreachable', cause);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw fail(`answered HTTP ${response.status}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    throw fail('body could not be read', cause);
  }
  if (text.length > options.maxChars) throw fail('document too large');
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw fail('not JSON', cause);
  }
}
