/**
 * MCP authorization (OAuth 2.1) for `connect`: `oauth()`, `handleCallback()`, the storage adapters.
 * @module mcplive/oauth
 */
// mcplive/oauth: MCP authorization (OAuth 2.1) for connect(), in browsers,
// workers and Node. Built on oauth4webapi; nothing of it is in the wasm.

import type { ReadableStore } from "./index.js";

/** A token storage: async get, set and delete of JSON records (memory by default). */
export interface OAuthStorage {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A client registered in advance with an authorization server. */
export interface PreRegisteredClient {
  clientId: string;
  /** For a confidential client (rare in a browser: a secret in a page is not secret). */
  clientSecret?: string;
  /** How it authenticates at the token endpoint; default: from the server's metadata. */
  tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post";
}

/** The options of oauth(). */
export interface OAuthOptions {
  /**
   * Where the authorization server sends the browser back: a page of your
   * app that calls handleCallback() (popup) or connects again (redirect),
   * or, in Node, the loopback address of mcplive/oauth/node's loopback().
   * https, or http on loopback; registered with the server.
   */
  redirectUri: string | URL;
  /**
   * Your Client ID Metadata Document (an https URL you host): the client id
   * at authorization servers that accept those
   * (client_id_metadata_document_supported), before registration.
   */
  clientMetadataUrl?: string | URL;
  /** Pre-registered clients, per issuer (or a function of the issuer). Tried first. */
  clients?: Readonly<Record<string, PreRegisteredClient>> | ((issuer: string) => PreRegisteredClient | undefined | Promise<PreRegisteredClient | undefined>);
  /** What Dynamic Client Registration (RFC 7591) sends. */
  registration?: {
    clientName?: string;
    clientUri?: string;
    logoUri?: string;
    /** Default: "native" for a loopback or custom-scheme redirect URI, else "web". */
    applicationType?: "web" | "native";
    /** More client metadata, sent as it is. */
    metadata?: Readonly<Record<string, unknown>>;
  };
  /** Scopes to ask for on top of the ones the server's challenge or metadata names. */
  scopes?: string | readonly string[];
  /** Where tokens and registrations are kept: memoryStorage() (default), sessionStorageAdapter(), localStorageAdapter(), indexedDBStorage(), or your own. */
  storage?: OAuthStorage;
  /**
   * The user's step, done by your code: open authorizationUrl, and resolve
   * with the URL the authorization server redirected to (the callback
   * URL). For Node (mcplive/oauth/node: loopback(), paste()), tests,
   * Electron, extensions. Without it, in a browser, client.auth says
   * "needs-authorization" and your click handler calls authorize().
   */
  authorize?: (authorizationUrl: string, options: { signal: AbortSignal }) => Promise<string | URL>;
  /** How authorize() takes the user to the authorization server in a browser. Default "popup". */
  mode?: "popup" | "redirect";
  /** The bound on each request of the flow (metadata, registration, token). Default 15000. */
  timeoutMs?: number;
  /** The fetch the flow uses (default globalThis.fetch). */
  fetch?: typeof fetch;
  /**
   * Let a remote MCP server's metadata send the flow to loopback or
   * private-network addresses (for development). By default only a server
   * that is itself on loopback or a private network may.
   */
  allowPrivateNetwork?: boolean;
  /**
   * Accept protected resource metadata whose resource is a parent path of
   * the server's URL on the same origin, wherever it was read. By default
   * (RFC 9728 section 3.3) the resource is the server's URL, or its origin
   * when read from the origin's root well-known URL.
   */
  allowParentResource?: boolean;
  /**
   * DPoP (RFC 9449): bind the tokens to a key pair whose private key never
   * leaves WebCrypto (not extractable; kept in IndexedDB in a browser, in
   * memory elsewhere; a new one after signOut()). Token and refresh requests
   * carry a proof, and so does every MCP request (Streamable HTTP), for its
   * method and URL; a server's DPoP-Nonce is used, and a use_dpop_nonce
   * answer retried once. A server that issues Bearer tokens gets bearer
   * requests. Default false.
   */
  dpop?: boolean;
}

/** The state of one server's authorization: the value of client.auth. */
export interface AuthState {
  readonly status: "none" | "needs-authorization" | "authorizing" | "authorized" | "refreshing" | "error";
  /** The authorization server the credentials come from. */
  readonly issuer: string | null;
  /** The scopes granted (or asked for, when the server did not say). */
  readonly scopes: readonly string[];
  /** When the access token expires (ms since the epoch), if the server said. */
  readonly expiresAt: number | null;
  /** The URL the user must visit, while status is "needs-authorization". */
  readonly authorizationUrl: string | null;
  /** Why the last step failed. */
  readonly error: OAuthError | Error | null;
}

/** The auth option of connect, and client.auth: a store of AuthState with the user's actions. */
export interface Auth extends ReadableStore<AuthState> {
  /**
   * Sends the user to the authorization server. In a browser, call it from
   * a click handler (a popup opened after an await is blocked): it opens
   * the popup at once. Resolves once authorized; the client then lists
   * every list again (and a pending connect goes on).
   */
  authorize(options?: { mode?: "popup" | "redirect" }): Promise<void>;
  /**
   * Forgets the tokens (revoking them where the server offers RFC 7009), the
   * step-up scopes and the flows in progress; the client lists again and is
   * refused. Called before connect, it forgets at connect. After a sign-out nothing signs in by
   * itself, not even through the `authorize` option: the status stays
   * `needs-authorization` until `authorize()` is called.
   */
  signOut(options?: {
    /** Also forget the client registration (a new one is made at the next authorization). */
    forgetClient?: boolean;
  }): Promise<void>;
}

/** oauth returns the auth option of connect for one server (make one per server). */
export function oauth(options: OAuthOptions): Auth;

/**
 * handleCallback runs on the redirect URI's page. In the sign-in popup it
 * hands the callback to the page that opened it and closes the popup
 * ({ delivered: true }); elsewhere it does nothing ({ delivered: false }).
 */
export function handleCallback(options?: { close?: boolean }): Promise<{ delivered: boolean }>;

/** The ways the flow fails; OAuthError.code. */
export type OAuthErrorCode =
  | "insecure_url"
  | "unreachable"
  | "timeout"
  | "too_large"
  | "bad_response"
  | "no_metadata"
  | "resource_mismatch"
  | "issuer_mismatch"
  | "no_s256"
  | "no_client_id"
  | "registration_failed"
  | "state_mismatch"
  | "replayed_callback"
  | "iss_mismatch"
  | "authorization_denied"
  | "token_error"
  | "popup_blocked"
  | "popup_closed"
  | "insufficient_scope"
  | "too_many_authorizations"
  | "needs_user"
  | "storage"
  | "aborted";

/** An error of the authorization flow: which step, which server, and why. */
export class OAuthError extends Error {
  name: "OAuthError";
  readonly code: OAuthErrorCode;
  /** The step: "protected resource metadata", "authorization server metadata", "client registration", "callback", "token", "refresh", ... */
  readonly step?: string;
  /** The MCP server URL. */
  readonly server?: string;
  /** The authorization server's OAuth error code (e.g. "invalid_grant"), when it sent one. */
  readonly error?: string;
  /** Its error_description: text for people, never markup. */
  readonly errorDescription?: string;
  readonly status?: number;
}

export function memoryStorage(): OAuthStorage;
export function sessionStorageAdapter(): OAuthStorage;
export function localStorageAdapter(): OAuthStorage;
export function indexedDBStorage(options?: { name?: string }): OAuthStorage;

/** The options of clientCredentials(). */
export interface ClientCredentialsOptions {
  /** The client's id at the authorization server (registered there in advance). */
  clientId: string;
  /** Its secret (client_secret_basic, or client_secret_post where the server offers only that). One of clientSecret and privateKey. */
  clientSecret?: string;
  /** Its private key, for private_key_jwt (RFC 7523): a CryptoKey, or a PKCS8 PEM string (imported non-extractable). */
  privateKey?: CryptoKey | string;
  /**
   * A workload identity JWT (from the platform: a cloud's or Kubernetes'
   * service account token), or a function that gives a fresh one: traded
   * with the JWT bearer grant (RFC 7523, the MCP extension
   * io.modelcontextprotocol/auth/wif). One of clientSecret, privateKey and
   * assertion.
   */
  assertion?: string | (() => string | Promise<string>);
  /** The key's algorithm (a PEM's import, and the assertion's alg). Default "ES256". */
  algorithm?: "ES256" | "ES384" | "ES512" | "RS256" | "PS256" | "EdDSA";
  /** Scopes to ask for on top of the ones the server's challenge or metadata names. */
  scopes?: string | readonly string[];
  /** The bound on each request (metadata, token). Default 15000. */
  timeoutMs?: number;
  /** The fetch the requests use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** As in OAuthOptions. */
  allowPrivateNetwork?: boolean;
  /** As in OAuthOptions. */
  allowParentResource?: boolean;
}

/**
 * clientCredentials returns the auth option of connect for a machine client
 * (an agent, a service): no user, no browser. On the server's refusal it
 * discovers the authorization server (as oauth() does) and asks for a token
 * with the client credentials grant (the MCP extension
 * io.modelcontextprotocol/oauth-client-credentials), for the server's
 * resource (or, with assertion, the JWT bearer grant); a token that expires
 * is asked for anew; a refusal at the token endpoint is not retried until
 * `authorize()`, which asks now. `signOut()` forgets the token.
 */
export function clientCredentials(options: ClientCredentialsOptions): Auth;
