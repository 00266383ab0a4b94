/**
 * What the web console needs to know, served by the graph server as `GET /console/config.json`
 * (routes/console.ts; docs/console.md "Configuration"). Types only, and importing nothing: the
 * console (a browser build) imports this module as `@ianode/graph-server/console-config` and
 * checks a served document against it (packages/console/src/config.ts `parseConfig`).
 */
export interface ConsoleClientConfig {
  /** The OpenID provider's issuer URL, as the browser reaches it (discovery is read from it). */
  issuer: string;
  /** The app client the console signs in with (authorization code + PKCE, no secret). */
  clientId: string;
  /** The access service's base URL, as the browser reaches it (`/whoami`). */
  accessServiceUrl: string;
  /** The dataset the pages query (`/{dataset}/query`, `/{dataset}/upload`, …). */
  dataset: string;
  /** The dataset's labels.legacy setting: how the upload page validates a Security-Label. */
  labelsLegacy: boolean;
  /** GraphQL served at `/{dataset}/graphql`. */
  graphql: boolean;
  /** `secure` (tokens checked) or `open` (no sign-in: every triple visible; local experiments only). */
  mode: 'secure' | 'open';
}
