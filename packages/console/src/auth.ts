/**
 * Sign-in through the OpenID provider with authorization code + PKCE (oauth4webapi does the
 * protocol: discovery, the authorization URL's PKCE challenge, state and nonce checks, the code
 * exchange and the ID token's claims). The console is a public client (no secret).
 *
 * Tokens live in sessionStorage: one browser tab, gone when it closes. The ID token is the bearer
 * the graph server and the access service accept (their `clientIds` hold this client).
 */
import * as oauth from 'oauth4webapi';
import type { ConsoleConfig } from './config.js';

const SESSION_KEY = 'ianode.console.session';
const PENDING_KEY = 'ianode.console.pending';

export interface Session {
  idToken: string;
  refreshToken?: string | undefined;
  /** Seconds since the epoch. */
  expiresAt: number;
  sub: string;
  email?: string | undefined;
  name?: string | undefined;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  /** The page to return to (a hash route). */
  returnTo: string;
}

/** The console's redirect URI: its own root. It must be one of the app client's CallbackURLs. */
export function redirectUri(): string {
  return `${window.location.origin}/`;
}

/** http is accepted for issuers on a loopback host (the local demo), as the IdP itself allows. */
function requestOptions(issuer: URL): { [oauth.allowInsecureRequests]?: boolean } {
  const loopback = issuer.hostname === 'localhost' || issuer.hostname === '127.0.0.1' || issuer.hostname === '[::1]';
  return issuer.protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

let discovered: Promise<oauth.AuthorizationServer> | undefined;

async function server(config: ConsoleConfig): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(config.issuer);
  discovered ??= oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(issuer) }).then((r) => oauth.processDiscoveryResponse(issuer, r));
  try {
    return await discovered;
  } catch (error) {
    discovered = undefined;
    throw error;
  }
}

/** The stored session, expired or not. */
function storedSession(): Session | undefined {
  const raw = sessionStorage.getItem(SESSION_KEY);
  if (raw === null) return undefined;
  try {
    const session = JSON.parse(raw) as Session;
    if (typeof session.idToken === 'string' && typeof session.expiresAt === 'number' && typeof session.sub === 'string') return session;
  } catch {
    // not a session: dropped below
  }
  sessionStorage.removeItem(SESSION_KEY);
  return undefined;
}

/** Expired, with a minute's margin (a request must not reach the server with a dying token). */
function expired(session: Session, now: number): boolean {
  return session.expiresAt * 1000 - 60_000 < now;
}

let refreshing: Promise<Session | undefined> | undefined;

/**
 * The session with a good ID token: an expired one is renewed with the refresh token (the IdP's
 * `refresh_token` grant, oauth4webapi checking the new ID token is the same user's); when that
 * fails (revoked, expired, the IdP unreachable) the session is dropped and the user signs in again.
 */
export async function freshSession(config: ConsoleConfig, now = Date.now()): Promise<Session | undefined> {
  const session = storedSession();
  if (session === undefined || !expired(session, now)) return session;
  if (session.refreshToken === undefined) {
    sessionStorage.removeItem(SESSION_KEY);
    return undefined;
  }
  refreshing ??= renew(config, session).finally(() => (refreshing = undefined));
  return refreshing;
}

async function renew(config: ConsoleConfig, session: Session): Promise<Session | undefined> {
  try {
    const as = await server(config);
    const client: oauth.Client = { client_id: config.clientId };
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), session.refreshToken!, requestOptions(new URL(config.issuer)));
    const tokens = await oauth.processRefreshTokenResponse(as, client, response);
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    if (tokens.id_token === undefined || claims === undefined || claims.sub !== session.sub) throw new Error('the IdP sent no ID token of this user');
    const renewed: Session = { ...session, idToken: tokens.id_token, refreshToken: tokens.refresh_token ?? session.refreshToken, expiresAt: claims.exp };
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(renewed));
    return renewed;
  } catch (error) {
    console.warn('the session could not be renewed; sign in again', error);
    sessionStorage.removeItem(SESSION_KEY);
    return undefined;
  }
}

/** Goes to the IdP's sign-in page; comes back to `redirectUri()` with a code. */
export async function signIn(config: ConsoleConfig, returnTo: string): Promise<void> {
  const as = await server(config);
  if (as.authorization_endpoint === undefined) throw new Error('the OpenID provider has no authorization endpoint');
  const pending: Pending = { verifier: oauth.generateRandomCodeVerifier(), state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), returnTo };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  window.location.assign(url.href);
}

/**
 * On return from the IdP (`?code=…&state=…` or `?error=…`): exchanges the code and stores the
 * session. Returns the route to show, or undefined when this load is not a return. The code is
 * removed from the address bar either way.
 */
export async function completeSignIn(config: ConsoleConfig): Promise<string | undefined> {
  const here = new URL(window.location.href);
  if (!here.searchParams.has('code') && !here.searchParams.has('error')) return undefined;
  const rawPending = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  window.history.replaceState(null, '', `${here.pathname}${here.hash}`);
  if (rawPending === null) throw new Error('this sign-in was not started here (no pending request); sign in again');
  const pending = JSON.parse(rawPending) as Pending;
  const as = await server(config);
  const client: oauth.Client = { client_id: config.clientId };
  const params = oauth.validateAuthResponse(as, client, here, pending.state);
  const issuer = new URL(config.issuer);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri(), pending.verifier, requestOptions(issuer));
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true });
  const claims = oauth.getValidatedIdTokenClaims(tokens)!;
  const session: Session = {
    idToken: tokens.id_token!,
    refreshToken: tokens.refresh_token,
    expiresAt: claims.exp,
    sub: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    name: typeof claims.name === 'string' ? claims.name : undefined,
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return pending.returnTo;
}

/**
 * Signs out: the refresh token is revoked at the IdP (its revocation list then ends the tokens
 * issued from it at the graph server and the access service), the session is dropped, and the
 * browser goes through the IdP's end-session endpoint back to the console.
 */
export async function signOut(config: ConsoleConfig): Promise<void> {
  const session = storedSession();
  sessionStorage.removeItem(SESSION_KEY);
  let as: oauth.AuthorizationServer | undefined;
  try {
    as = await server(config);
    if (session?.refreshToken !== undefined && as.revocation_endpoint !== undefined) {
      const client: oauth.Client = { client_id: config.clientId };
      const response = await oauth.revocationRequest(as, client, oauth.None(), session.refreshToken, requestOptions(new URL(config.issuer)));
      await oauth.processRevocationResponse(response);
    }
  } catch (error) {
    // The local session is gone whatever the IdP said; the tokens end at their expiry at the latest.
    console.warn('sign-out: the IdP could not revoke the refresh token', error);
  }
  if (as?.end_session_endpoint !== undefined) {
    const url = new URL(as.end_session_endpoint);
    url.searchParams.set('client_id', config.clientId);
    url.searchParams.set('logout_uri', redirectUri());
    window.location.assign(url.href);
  } else {
    window.location.assign(redirectUri());
  }
}
