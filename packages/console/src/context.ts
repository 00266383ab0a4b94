import type { Session } from './auth.js';
import type { ConsoleConfig } from './config.js';

/** What every page gets. */
export interface PageContext {
  config: ConsoleConfig;
  /** Undefined in open mode (no sign-in) or when signed out. */
  session: Session | undefined;
  /** The key of the user's browser-side data (history): the subject, or "open". */
  userKey: string;
}

/** A page: renders into `root`; may return a clean-up run when another page is opened. */
export type PageRender = (root: HTMLElement, ctx: PageContext) => void | (() => void) | Promise<void | (() => void)>;
