/**
 * Live MCP catalogs: `connect`, the stores, the calls.
 * @module mcplive
 */
// Type definitions for mcplive: live MCP catalogs over WebSocket or Streamable HTTP.
// Hand-written; checked by test/types (tsc --noEmit).

/** A JSON value as the server sent it. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** A JSON object as the server sent it. */
export type JSONObject = { readonly [key: string]: JSONValue };

/** An icon a UI may show. Check the scheme of `src` (https: or data:) before loading it. */
export interface Icon {
  readonly src: string;
  readonly mimeType?: string;
  readonly sizes?: readonly string[];
  readonly theme?: "light" | "dark";
}

/** Hints about a resource or content block. */
export interface Annotations {
  readonly audience?: readonly ("user" | "assistant")[];
  readonly priority?: number;
  readonly lastModified?: string;
}

/** The name, version and more of an MCP client or server. */
export interface Implementation {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly Icon[];
}

/** Hints about what a tool does; never trust them from an untrusted server. */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * A tool as the server listed it (MCP 2025-11-25 `Tool`), frozen. Fields this
 * package does not know are kept, so every item is the server's JSON object.
 */
export interface Tool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** JSON Schema of the arguments (`type: "object"`). */
  readonly inputSchema: JSONObject;
  readonly outputSchema?: JSONObject;
  readonly icons?: readonly Icon[];
  readonly annotations?: ToolAnnotations;
  readonly execution?: JSONObject;
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** One argument of a prompt. */
export interface PromptArgument {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
}

/** A prompt template as the server listed it, frozen. */
export interface Prompt {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  readonly icons?: readonly Icon[];
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** A resource as the server listed it, frozen. Its key is `uri`. */
export interface Resource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly icons?: readonly Icon[];
  readonly annotations?: Annotations;
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** A resource template (RFC 6570 URI template) as the server listed it, frozen. Its key is `uriTemplate`. */
export interface ResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly icons?: readonly Icon[];
  readonly annotations?: Annotations;
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** The four live lists and the item type of each. */
export interface ListItems {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
  resourceTemplates: ResourceTemplate;
}

/** Names a live list: `"tools" | "prompts" | "resources" | "resourceTemplates"`. */
export type ListKind = keyof ListItems;

/**
 * Status of one live list.
 * - `loading`: the first sync has not finished.
 * - `ready`: `items` is the server's list as of the last sync.
 * - `stale`: the connection dropped (or the client was closed); `items` is the last good list, kept visible until the reconnect re-lists.
 * - `error`: the last re-list failed (`error` says why); `items` is the last good list.
 * - `unsupported`: the server does not offer this kind.
 */
export type ListStatus = "loading" | "ready" | "stale" | "error" | "unsupported";

/** State of the connection. */
export type ConnectionStatus = "connecting" | "ready" | "reconnecting" | "closed";

/**
 * The value of a list store. Frozen; the same object until the next change,
 * so it can be React's `getSnapshot` result. Unchanged items keep their
 * identity across re-lists.
 */
export interface ListValue<T> {
  readonly items: readonly T[];
  readonly status: ListStatus;
  readonly error: MCPLiveError | null;
  /** Grows by one with each applied change of `items`; a status change alone keeps it. */
  readonly version: number;
  /**
   * Whether the server tells this client when the list changes: in
   * 2025-11-25 whenever it offers the kind; in 2026-07-28 when it
   * acknowledged the kind on the `subscriptions/listen` stream. `false`
   * while the list is `"stale"`: while the client reconnects (until the
   * list is re-listed) and once it is closed. A list that
   * is not live changes only on `refresh()` or a reconnect. A change of
   * `live`, `ttlMs`, `cacheScope` or `receivedAt` alone gives a new value
   * with the same `version`.
   */
  readonly live: boolean;
  /**
   * The smallest `ttlMs` of the last walk's pages (2026-07-28 caching
   * hint), or `null` when the server sent none. A freshness hint, never a
   * polling interval: the stores do not poll; a live list is as fresh as the
   * server's notifications, one that is not changes only on `refresh(kind)`
   * or a reconnect.
   */
  readonly ttlMs: number | null;
  /** `"private"` when any page of the last walk said so, else the pages' `cacheScope`; `null` when none was sent. */
  readonly cacheScope: "public" | "private" | null;
  /**
   * When the first page of the walk that produced this value came, in ms since the epoch
   * (like `Date.now()`); `null` when the server sent no caching hints. A
   * re-list that finds the same list keeps the value object (`get()` stays
   * the same until a change), so it keeps this too.
   */
  readonly receivedAt: number | null;
  /**
   * Where the items come from: `"cache"` while they are a kept catalog's
   * (the `cache` option; `status` is then `"stale"` until the server's own
   * lists reconcile them, in a change event with `cause: "resync"`),
   * `"server"` once the server sent them, `null` before either.
   */
  readonly source: "cache" | "server" | null;
}

/**
 * A storage of the catalog cache (the `cache` option): the app's own, such
 * as one over a database or a server. Values are strings (whole records,
 * each written with one `set`); `get` resolves with what `set` stored, or
 * `undefined`. A failure (a rejection, a throw) is a `logger.warn`, never
 * the app's error: the lists are then walked as without a cache.
 */
export interface CacheAdapter {
  get(key: string): Promise<string | undefined | null>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A readable store: the Svelte store contract, and React's
 * `useSyncExternalStore(store.subscribe, store.get)`. A plain object of
 * functions without `this`: safe to pass detached.
 */
export interface ReadableStore<T> {
  /** The current value: the same object until it changes. */
  get(): T;
  /** Calls `fn` at once with the current value, then on every change. Returns the unsubscribe function. */
  subscribe(fn: (value: T) => void): () => void;
  /** Calls `fn` on every change (not at once). Returns the unsubscribe function. */
  listen(fn: (value: T) => void): () => void;
}

/**
 * Why a list was re-listed:
 * - `notification`: the server said the list changed (`notifications/…/list_changed`);
 * - `initial`: the first sync after connecting;
 * - `reconnect`: the re-list after a reconnect;
 * - `refresh`: `client.refresh()`;
 * - `resync`: this package sent itself the whole list again, after an update that did not fit what the store held.
 */
export type ChangeCause = "notification" | "initial" | "reconnect" | "refresh" | "resync";

/** What one applied change of a list did. `changed` holds the new versions of changed items. */
export interface ChangeEvent<K extends ListKind = ListKind> {
  readonly kind: K;
  readonly version: number;
  readonly added: readonly ListItems[K][];
  readonly removed: readonly ListItems[K][];
  readonly changed: readonly ListItems[K][];
  /** Why the list was re-listed. */
  readonly cause: ChangeCause;
  /**
   * Milliseconds from the arrival of the notification that caused this
   * re-list (the first one, when several were covered by one re-list) to
   * this change being applied; `null` unless `cause` is `"notification"`.
   */
  readonly latencyMs: number | null;
}

/** A change event of any list, discriminated by `kind`. */
export type AnyChangeEvent = { [K in ListKind]: ChangeEvent<K> }[ListKind];

/** A `notifications/message` from the server (see `setLoggingLevel`). */
export interface LogEvent {
  readonly level: LoggingLevel;
  readonly logger?: string;
  readonly data: JSONValue;
}

/** Any notification from the server, in arrival order. */
export interface NotificationEvent {
  readonly method: string;
  readonly params?: JSONObject;
}

/** Syslog levels, as MCP names them. */
export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/**
 * The errors this package rejects with (and lists carry in `error`). All are
 * real `Error`s; `name` says the kind, and the message says which call
 * (`TimeoutError: tools/call: no answer within 30 s`):
 * - `RPCError`: the server answered with a JSON-RPC error: `code` and `data` are its own.
 * - `TimeoutError`: no answer within the timeout (the request was cancelled on the server).
 *   A `connect` to a server that accepts the connection and never answers
 *   rejects with it after `dialTimeoutMs`, over both transports
 *   (`could not connect to <url>: no answer within 10 s (dialTimeoutMs)`).
 * - `AbortError`: aborted through an AbortSignal (the signal's reason is passed through as is).
 * - `DialError`: `connect` could not open the connection: the server is down, the
 *   path is wrong, or the server refused the page's Origin or the token. Browsers
 *   hide the HTTP status of a failed WebSocket handshake from scripts, so the
 *   message lists the likely causes; over Streamable HTTP it gives the status when
 *   there was one, and when there was none (fetch failed) it says that CORS may be
 *   the cause and which headers the server must allow and expose. It comes at
 *   once, not after `dialTimeoutMs`. Outside browsers (Node) there is no CORS:
 *   a refused connection says what the system said (`ECONNREFUSED`), and
 *   `cause` is that error, with its `code`. A `ws://` URL whose server answers
 *   Streamable HTTP POSTs at the same path says so, and to try `http(s)://`.
 *   A runtime without a global WebSocket rejects a `ws://` URL with it too.
 * - `LoadError`: the wasm could not be fetched, compiled or started (`wasmUrl`);
 *   a 403 from Vite's dev server says the package is outside its allow list
 *   (install it from a tarball, or add its folder to `server.fs.allow`).
 * - `AuthError`: the server refused the credentials (HTTP 401, or 403 with a
 *   challenge) over Streamable HTTP: `status`, and the `WWW-Authenticate`
 *   challenge's `resourceMetadata` (the URL of the OAuth protected resource
 *   metadata), `scope` and `wwwAuthenticate`.
 * - `ClosedError`: the client is closed or the connection dropped.
 * - `UnsupportedError`: the server's capabilities do not allow the call; nothing was sent.
 * - `ProtocolError`: the server broke the protocol, or answered with a
 *   result this client cannot complete (a request for input without
 *   `onElicit`, for sampling, or after 10 rounds).
 *
 * A mistake in the arguments (a missing tool name, an unknown logging level,
 * an unknown option) is a `TypeError`: thrown by `connect`, `on`,
 * `subscribeResource` and the stores, a rejection of the other calls.
 */
export interface MCPLiveError extends Error {
  name: "RPCError" | "TimeoutError" | "AbortError" | "DialError" | "AuthError" | "ClosedError" | "UnsupportedError" | "ProtocolError" | "LoadError" | "Error";
  /** The JSON-RPC error code, for `RPCError`. */
  code?: number;
  /** The JSON-RPC error data, for `RPCError`, if the server sent any. */
  data?: JSONValue;
  /** The HTTP status, for `AuthError` (401, or 403 with a challenge). */
  status?: number;
  /** For `AuthError`: the challenge's `resource_metadata` URL (where an OAuth flow starts), if sent. */
  resourceMetadata?: string;
  /** For `AuthError`: the challenge's `scope`, if sent. */
  scope?: string;
  /** For `AuthError`: the `WWW-Authenticate` header as the server sent it. */
  wwwAuthenticate?: string;
  /**
   * For `AuthError`: the Bearer challenge's `error` (RFC 6750), if sent:
   * `"invalid_token"` (get a new token), `"insufficient_scope"` (authorize
   * again with `scope`), `"invalid_request"`.
   */
  error?: string;
  /** For `AuthError`: the Bearer challenge's `error_description`, if sent (text for people, not for code). */
  errorDescription?: string;
}

/** An `AuthError`: the server refused the credentials of a Streamable HTTP request. */
export interface AuthError extends MCPLiveError {
  name: "AuthError";
  status: number;
}

/** The protocol revisions this client speaks (`protocolVersion` pins one). */
export type ProtocolVersion = "2026-07-28" | "2025-11-25" | "2025-06-18" | "2025-03-26";

/** What the `token` callback of `connect` is given. */
export interface TokenRequest {
  /** The server URL, as passed to `connect`. */
  readonly url: string;
  /**
   * Set when the server has just refused the last token (HTTP 401): return
   * a new one (your OAuth flow: `error.resourceMetadata` says where it
   * starts) and the refused request is sent once more with it; return
   * `null` (or throw) to give up: the request then fails with this error.
   */
  readonly error?: AuthError;
}

/** The connect option `logger`: any of these methods (`console` has them all). */
export interface Logger {
  /** Diagnostics a working client does not need (such as the fall-back to 2025-11-25). */
  debug?(message: string, attrs: Readonly<Record<string, string | number | boolean>>): void;
  info?(message: string, attrs: Readonly<Record<string, string | number | boolean>>): void;
  warn?(message: string, attrs: Readonly<Record<string, string | number | boolean>>): void;
  error?(message: string, attrs: Readonly<Record<string, string | number | boolean>>): void;
}

/**
 * A server's request for user input (elicitation, form mode), as `onElicit`
 * is given it: the `elicitation/create` params, frozen.
 */
export interface ElicitRequest {
  /** What is asked, and why: show it to the user. */
  readonly message: string;
  /**
   * The form: a JSON Schema object whose properties are primitives (string,
   * number, integer, boolean, enums), each with an optional `title`,
   * `description` and `default`.
   */
  readonly requestedSchema: JSONObject;
  readonly mode?: "form";
  readonly [key: string]: unknown;
}

/** The user's answer to an `ElicitRequest`. */
export interface ElicitResult {
  /** `"accept"`: submitted; `"decline"`: refused; `"cancel"`: dismissed without a choice. */
  action: "accept" | "decline" | "cancel";
  /**
   * The form's values, for `"accept"` (dropped otherwise). Properties it
   * leaves out that have a `default` in the schema get that default, so `{}`
   * accepts what the server proposes.
   */
  content?: { [field: string]: string | number | boolean | string[] };
}

/** A content block of a tool result or prompt message. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string; readonly annotations?: Annotations; readonly _meta?: JSONObject }
  | { readonly type: "image" | "audio"; readonly data: string; readonly mimeType: string; readonly annotations?: Annotations; readonly _meta?: JSONObject }
  | ({ readonly type: "resource_link" } & Resource)
  | { readonly type: "resource"; readonly resource: ResourceContents; readonly annotations?: Annotations; readonly _meta?: JSONObject };

/** The contents of a resource: `text` or base64 `blob`. */
export interface ResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
  readonly _meta?: JSONObject;
}

/**
 * The result of `tools/call`. A tool that failed in its own terms resolves
 * with `isError: true`; only protocol-level failures reject.
 */
export interface CallToolResult {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: JSONObject;
  readonly isError?: boolean;
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  readonly description?: string;
  readonly messages: readonly { readonly role: "user" | "assistant"; readonly content: ContentBlock }[];
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  readonly contents: readonly ResourceContents[];
  readonly _meta?: JSONObject;
  readonly [key: string]: unknown;
}

/** The params of `completion/complete`. */
export interface CompleteParams {
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

/** The result of `completion/complete`. */
export interface CompleteResult {
  readonly completion: { readonly values: readonly string[]; readonly total?: number; readonly hasMore?: boolean };
  readonly [key: string]: unknown;
}

/** A `notifications/progress` of a tool call. `total` is absent when unknown. */
export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborting rejects the call at once (with the signal's reason) and sends `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Overrides the client's `requestTimeoutMs` for this call (it can only shorten it). */
  timeoutMs?: number;
}

/** Options of `callTool`. */
export interface CallToolOptions extends CallOptions {
  /** Called with each progress notification of this call. */
  onProgress?: (progress: Progress) => void;
}

/** Options of `subscribeResource`. */
export interface SubscribeResourceOptions {
  /** Called when subscribing or a re-read fails. Default: reported to the console. */
  onError?: (error: MCPLiveError) => void;
}

/**
 * What a server offers (MCP 2025-11-25 `ServerCapabilities`), frozen. A
 * member is present when the server offers that feature; servers may add
 * their own members.
 */
export interface ServerCapabilities {
  /** Present if the server supports argument autocompletion (`complete`). */
  readonly completions?: JSONObject;
  /** Experimental, non-standard capabilities. */
  readonly experimental?: { readonly [name: string]: JSONObject };
  /** Present if the server sends log messages (`setLoggingLevel`, `on("log")`). */
  readonly logging?: JSONObject;
  /** Present if the server offers prompts. */
  readonly prompts?: { readonly listChanged?: boolean; readonly [key: string]: unknown };
  /** Present if the server offers resources. */
  readonly resources?: { readonly listChanged?: boolean; readonly subscribe?: boolean; readonly [key: string]: unknown };
  /** Present if the server offers tools. */
  readonly tools?: { readonly listChanged?: boolean; readonly [key: string]: unknown };
  /** Present if the server supports task-augmented requests. */
  readonly tasks?: {
    readonly cancel?: JSONObject;
    readonly list?: JSONObject;
    readonly requests?: { readonly tools?: { readonly call?: JSONObject; readonly [key: string]: unknown }; readonly [key: string]: unknown };
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** Options of `connect`. Durations are in milliseconds; an unknown option is a `TypeError`. */
export interface ConnectOptions {
  /** Sent in `initialize` (in 2026-07-28: in every request's `_meta`). Default `{ name: "mcplive", version: <package version> }`. */
  clientInfo?: { name: string; version?: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[] };
  /**
   * Pins the protocol revision. Default: 2026-07-28 first (`server/discover`,
   * `subscriptions/listen`), falling back to `initialize` with 2025-11-25
   * when the server does not speak it. The negotiated one is
   * `client.protocolVersion`. Another string is a `TypeError`.
   */
  protocolVersion?: ProtocolVersion;
  /**
   * Extra request headers for every Streamable HTTP request (`http://`,
   * `https://` only: a browser cannot set a WebSocket's headers, so with a
   * `ws://` URL this is a `TypeError`). The transport's own headers win. A
   * cross-origin server must allow them (CORS).
   */
  headers?: Record<string, string>;
  /**
   * Returns the bearer token for each Streamable HTTP request (sent as
   * `Authorization: Bearer <token>`), or `null`/`undefined`/`""` for none;
   * may be async. It is called before every request, so return a cached
   * token; after a 401 it is called with `error` set (see `TokenRequest`):
   * the hook for an app's own OAuth. `http://` and `https://` only. A
   * token with a character RFC 6750 does not allow (a control character, a
   * space: only letters, digits, `-._~+/`, then `=`) fails the request with
   * an error that does not show it; it is never sent.
   */
  token?: (request: TokenRequest) => string | null | undefined | Promise<string | null | undefined>;
  /**
   * Sends every Streamable HTTP request for this server instead of the
   * global `fetch` (the convention of the TypeScript SDK's transports and
   * oauth4webapi's `customFetch`): MCP requests and their event streams.
   * The server's URL stays its identity (the OAuth `resource`, the cache
   * keys, the remembered revision); the function decides where the bytes
   * go: `viaBridge()` (mcplive-bridge) or a same-origin dev proxy. With
   * `auth`, give the same function to `oauth({ fetch })` for the OAuth
   * requests. `http://` and `https://` only: with a `ws://` URL this is a
   * `TypeError`.
   */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * MCP authorization (OAuth 2.1) for this server: what `oauth()` of
   * `mcplive/oauth` returns (one per server). It supplies the token (so not
   * with `token`), runs discovery, registration, PKCE, refresh and step-up,
   * and is the client's `auth` store. When the flow needs the user (a
   * browser without `authorize`), `connect` waits until your click handler
   * has called `auth.authorize()`. `http://` and `https://` only: with a
   * `ws://` URL this is a `TypeError`.
   */
  auth?: import("./oauth.js").Auth;
  /**
   * Answers a server that asks the user for input in the middle of a call
   * (elicitation, form mode): show `request.message` and a form for
   * `request.requestedSchema`, return what the user chose. Setting it
   * declares the `elicitation` capability; without it a server cannot ask
   * (in 2026-07-28 a call that needs input rejects). In 2025-11-25 the
   * server sends `elicitation/create` during the call and gets the answer (a
   * throw or rejection is sent to it as an error); in 2026-07-28 the call is
   * sent again with the answer (a throw or rejection rejects the call; at
   * most 10 rounds). `signal` aborts when the server cancels the request,
   * the call is aborted or the connection ends. In 2025-11-25 the call's
   * timeout covers the time the user takes.
   */
  onElicit?: (request: ElicitRequest, context: { readonly signal: AbortSignal }) => ElicitResult | Promise<ElicitResult>;
  /**
   * Gets the client's diagnostics, otherwise dropped (`console` fits): a
   * connection lost, a re-list that failed, a listen stream that ended, a
   * tool left out of the list for invalid `x-mcp-header` marks, as
   * `logger.warn("mcplive: …", { …attributes })`. Levels it has no method
   * for are dropped; one that throws breaks nothing.
   */
  logger?: Logger;
  /** Bounds each request (default 30 000). A timed-out request is cancelled on the server. */
  requestTimeoutMs?: number;
  /**
   * Bounds each connection's opening as a whole (default 10 000): the
   * handshake, the protocol probe and `initialize`, over both transports. A
   * server that accepts the connection and never answers rejects `connect`
   * with a `TimeoutError` after it. A refused port, a wrong path or a
   * refused handshake rejects at once with a `DialError`.
   */
  dialTimeoutMs?: number;
  /**
   * Reconnect after the connection drops, with exponential backoff and full
   * jitter (default true: 250 ms initial, 30 s cap). `false` turns it off:
   * a drop then closes the client.
   */
  reconnect?: boolean | { initialDelayMs?: number; maxDelayMs?: number };
  /**
   * Application-level heartbeat: an MCP `ping` every `intervalMs` (default
   * 15 000) that must be answered within `timeoutMs` (default 10 000), or the
   * connection counts as dead and reconnects. `false` turns it off.
   */
  heartbeat?: boolean | { intervalMs?: number; timeoutMs?: number };
  /** The largest message accepted from the server, in bytes (default 16 MiB). */
  maxMessageBytes?: number;
  /** Aborts the connecting. */
  signal?: AbortSignal;
  /**
   * Where to load `mcplive.wasm` from. Default: next to this package
   * (`new URL("./mcplive.wasm", import.meta.url)`, which bundlers follow).
   * The wasm is loaded once per page, worker or Node process: a later
   * `connect` may leave this out or give the same URL; another URL rejects.
   */
  wasmUrl?: string | URL;
  /**
   * Keep the server's catalog across reloads (opt-in): `"memory"` (this
   * page, worker or Node process), `"indexeddb"` (the browser's IndexedDB;
   * where there is none, such as Node, a `logger.warn` says so and nothing
   * is kept) or a {@link CacheAdapter}. With a kept catalog of the same
   * server (and authorization context), the stores show it before the wasm
   * has started (`status: "stale"`, `source: "cache"`), then reconcile it
   * with the server's lists. By the specification's caching rules
   * (2026-07-28 `ttlMs`, `cacheScope`): a list whose pages are all still
   * fresh is not walked at connect (a list change notification or a
   * re-opened listen stream walks it); a fresh `resources/read` result
   * answers `readResource` (until `notifications/resources/updated`);
   * results of retried requests are never kept; `"private"` results are
   * kept only under a hash of the authorization context (the OAuth issuer
   * and subject, or the `token` callback's value), never shown to another,
   * and removed when it changes or the user signs out. Bad storage (corrupt,
   * truncated, foreign or older records, a full quota, storage that throws)
   * is ignored with a `logger.warn`. See docs/cache.md.
   */
  cache?: "memory" | "indexeddb" | CacheAdapter;
}

/** A live MCP client. A frozen object of functions without `this`: methods may be passed detached. */
export interface Client {
  /** The server's tools, kept in sync with `notifications/tools/list_changed`. */
  readonly tools: ReadableStore<ListValue<Tool>>;
  /** The server's prompts, kept in sync with `notifications/prompts/list_changed`. */
  readonly prompts: ReadableStore<ListValue<Prompt>>;
  /** The server's resources, kept in sync with `notifications/resources/list_changed`. */
  readonly resources: ReadableStore<ListValue<Resource>>;
  /** The server's resource templates, re-listed on `notifications/resources/list_changed`. */
  readonly resourceTemplates: ReadableStore<ListValue<ResourceTemplate>>;
  /** The connection state. */
  readonly status: ReadableStore<ConnectionStatus>;
  /** The `auth` option (`mcplive/oauth`): the authorization's state, `authorize()`, `signOut()`; `null` without one. */
  readonly auth: import("./oauth.js").Auth | null;

  /**
   * The first full sync of every list the server offers (what `connect`
   * awaits); rejects as `connect` does (and with an `AbortError` when the
   * client is closed before). The client handles its rejection itself (the
   * `status` becomes `"closed"`): an app that never awaits it gets no
   * unhandled-rejection warning.
   */
  readonly ready: Promise<void>;
  /** The server's `serverInfo` from the latest `initialize` (`undefined` before `ready`, with `open`). */
  readonly serverInfo: Implementation;
  /** The server's capabilities exactly as it sent them (`undefined` before `ready`, with `open`). */
  readonly capabilities: ServerCapabilities;
  /** The negotiated protocol version, e.g. `"2026-07-28"` or `"2025-11-25"` (`undefined` before `ready`, with `open`). */
  readonly protocolVersion: string;
  /** The server's instructions, if any. */
  readonly instructions: string | undefined;

  /** Each applied change of a list (not status-only changes; not the first sync). Returns the unsubscribe function. */
  on(type: "change", fn: (event: AnyChangeEvent) => void): () => void;
  /** Each `notifications/message` (see `setLoggingLevel`). */
  on(type: "log", fn: (event: LogEvent) => void): () => void;
  /** Every notification from the server, in arrival order. */
  on(type: "notification", fn: (event: NotificationEvent) => void): () => void;

  /** Calls a tool. Waits for the connection while reconnecting, up to the timeout. */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  /** Renders a prompt; argument values are strings (numbers and booleans are converted). */
  getPrompt(name: string, args?: Record<string, string | number | boolean>, options?: CallOptions): Promise<GetPromptResult>;
  /** Reads a resource. */
  readResource(uri: string | URL, options?: CallOptions): Promise<ReadResourceResult>;
  /**
   * Subscribes to a resource (`resources/subscribe`): `fn` gets its contents
   * once subscribed, then again after each `notifications/resources/updated`
   * (and after a reconnect), read afresh each time. The subscription
   * survives reconnects. Returns the unsubscribe function. Throws a
   * `ClosedError` once the client is closed; a failure to subscribe goes to
   * `onError`.
   */
  subscribeResource(
    uri: string | URL,
    fn: (contents: readonly ResourceContents[], result: ReadResourceResult) => void,
    options?: SubscribeResourceOptions,
  ): () => void;
  /** Asks for argument completions (`completion/complete`). */
  complete(params: CompleteParams, options?: CallOptions): Promise<CompleteResult>;
  /** Sets the level of the server's log messages (see `on("log")`). Not restored after a reconnect. */
  setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void>;
  /** Checks that the server answers. */
  ping(options?: CallOptions): Promise<void>;
  /**
   * Re-lists `kind` (all kinds when absent) through the same single-flight
   * path as a notification, and resolves when it is applied.
   */
  refresh(kind?: ListKind, options?: CallOptions): Promise<void>;
  /**
   * Closes the connection and frees everything; the status becomes
   * `"closed"`, lists keep their last items with status `"stale"` (nothing
   * keeps them in sync any more), later calls reject with a
   * `ClosedError`. In Node, nothing of this client keeps the process alive
   * afterwards. Calling it again returns the same Promise.
   */
  close(): Promise<void>;
}

/**
 * Connects to an MCP server: `ws://` and `wss://` over WebSocket (subprotocol
 * `mcp`), `http://` and `https://` over Streamable HTTP. Resolves after
 * `initialize` and the first full sync of every list the server offers (a
 * list whose first sync fails has status `"error"`); rejects only when the
 * connection or `initialize` fails (a `DialError` when it cannot connect).
 * Node 20 needs `--experimental-websocket` for `ws://` and `wss://`.
 */
export function connect(url: string | URL, options?: ConnectOptions): Promise<Client>;

/**
 * Opens a client and returns it at once, before anything is connected: its
 * stores are `"loading"` (or show the kept catalog, with the `cache`
 * option) and its `status` `"connecting"`; `client.ready` resolves after
 * the first full sync and rejects as `connect` does. `connect(url, o)` is
 * `open(url, o)` then `await client.ready`. Calls made before `ready` wait
 * for it. A mistake in the options throws a `TypeError` here.
 */
export function open(url: string | URL, options?: ConnectOptions): Client;

// ---- the hub ---------------------------------------------------------------

/** What the hub adds to every item: the id of its server, its fingerprint, whether it is stale. */
export interface HubItemFields {
  /** The hub id of the server that lists it. */
  readonly server: string;
  /** SHA-256 (hex) of the canonical JSON of its name, title, description, schemas and annotations (prompts: arguments; resources: uri, name, title, description, mimeType). */
  readonly fingerprint: string;
  /** True while its server is down or reconnecting: the last items it listed, not kept in sync. */
  readonly stale: boolean;
}

/** Whether a tool was approved (`hub.approve`), and whether it changed since. */
export type Approval = "none" | "approved" | "changed";

/** A tool of the hub: the server's tool, with `name` the hub name and `serverName` the server's own. */
export type HubTool = Tool & HubItemFields & { readonly serverName: string; readonly approval: Approval };
/** A prompt of the hub: the server's prompt, with `name` the hub name and `serverName` the server's own. */
export type HubPrompt = Prompt & HubItemFields & { readonly serverName: string };
export type HubResource = Resource & HubItemFields;
export type HubResourceTemplate = ResourceTemplate & HubItemFields;

export interface HubListItems {
  tools: HubTool;
  prompts: HubPrompt;
  resources: HubResource;
  resourceTemplates: HubResourceTemplate;
}

/**
 * The value of a merged store. `status` is the worst of the servers':
 * `"error"` when one list failed (`error` is its error), `"stale"` when a
 * server is down or reconnecting, else `"ready"` (`"unsupported"` when no
 * server offers the kind).
 */
export interface HubListValue<T> {
  readonly items: readonly T[];
  readonly status: ListStatus;
  readonly error: MCPLiveError | null;
  /** Grows by one with each change of `items`. */
  readonly version: number;
}

/** The state of one server of the hub. */
export interface HubServer {
  readonly id: string;
  readonly url: string;
  /** `"connecting"` until `add` resolves; `"unauthorized"` while its `auth` waits for the user. */
  readonly status: ConnectionStatus | "unauthorized";
  readonly error: Error | null;
  /** `null` while connecting. */
  readonly serverInfo: Implementation | null;
  readonly protocolVersion: string | null;
  /** Its `auth` option's state (`mcplive/oauth`), or `null`. */
  readonly auth: import("./oauth.js").AuthState | null;
}

/** A changed item of a hub change event, and which of its fields changed. */
export interface HubChangedItem<T> {
  readonly item: T;
  readonly previous: T;
  /** E.g. `["description"]`, `["inputSchema"]`, `["approval"]`, `["stale"]`, `["name"]`. */
  readonly fields: readonly string[];
}

/** One change of a merged store, caused by one server. */
export interface HubChangeEvent<K extends ListKind = ListKind> {
  readonly kind: K;
  /** The id of the server whose change this is. */
  readonly server: string;
  readonly version: number;
  readonly added: readonly HubListItems[K][];
  readonly removed: readonly HubListItems[K][];
  readonly changed: readonly HubChangedItem<HubListItems[K]>[];
}

export type AnyHubChangeEvent = { [K in ListKind]: HubChangeEvent<K> }[ListKind];

/** Where approvals are kept (synchronous: an item's approval is known when it is published). */
export interface ApprovalStorage {
  get(key: string): string | undefined | null;
  set(key: string, fingerprint: string): void;
  delete(key: string): void;
}

export interface HubOptions {
  /** The default `clientInfo` of every server's connection. */
  clientInfo?: ConnectOptions["clientInfo"];
  /**
   * Replaces the default hub names (`<id>__<name>`, fitted to
   * `^[a-zA-Z0-9_-]{1,64}$`). Its results must fit that pattern and be
   * unique in the kind: a clash rejects `add`, naming both items (or, on a
   * later re-list, leaves the newcomer out and logs it).
   */
  names?: (id: string, name: string, kind: "tools" | "prompts") => string;
  /** The default `logger` of every server's connection, and the hub's. */
  logger?: Logger;
  /** Where approvals are kept: `memoryApprovals()` (the default) or `localStorageApprovals()`. */
  approvals?: ApprovalStorage;
}

/** A filter of the hub: by server id, and by name (hub name, server name, URI or URI template: exact, `*` as wildcard, or a RegExp). */
export type HubFilter =
  | { server?: string | RegExp | readonly (string | RegExp)[]; include?: string | RegExp | readonly (string | RegExp)[]; exclude?: string | RegExp | readonly (string | RegExp)[] }
  | ((item: HubListItems[ListKind], kind: ListKind) => boolean);

/** The model APIs `toolsFor` speaks. */
export type ModelAPI = "openai-chat" | "openai-responses" | "anthropic" | "ai-sdk";

/** A JSON Schema object as the model APIs take it. */
export type ToolParameters = { readonly [key: string]: unknown };

/** OpenAI Chat Completions: a `ChatCompletionFunctionTool`. */
export interface OpenAIChatTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description?: string; readonly parameters: ToolParameters };
}
/** OpenAI Responses: a `FunctionTool` (`strict: false`: MCP schemas rarely meet strict mode's rules). */
export interface OpenAIResponsesTool {
  readonly type: "function";
  readonly name: string;
  readonly description?: string;
  readonly parameters: ToolParameters;
  readonly strict: boolean;
}
/** Anthropic Messages: a `Tool`. */
export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: { readonly type: "object"; readonly [key: string]: unknown };
}
/** An AI SDK tool output (`ToolResultOutput`). */
export type AISDKToolOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: JSONValue }
  | { type: "error-text"; value: string }
  | { type: "content"; value: ({ type: "text"; text: string } | { type: "file"; data: { type: "data"; data: string }; mediaType: string })[] };
/** An AI SDK dynamic tool whose `execute` calls the MCP tool through the hub. */
export interface AISDKTool {
  readonly type: "dynamic";
  readonly description?: string;
  /** A Standard Schema (standardschema.dev) with its JSON Schema converter: the tool's `inputSchema`. */
  readonly inputSchema: {
    readonly "~standard": {
      readonly version: 1;
      readonly vendor: string;
      readonly validate: (value: unknown) => { readonly value: unknown };
      readonly jsonSchema: { readonly input: (options: { readonly target: string }) => Record<string, unknown>; readonly output: (options: { readonly target: string }) => Record<string, unknown> };
    };
  };
  execute(input: unknown, options: { abortSignal?: AbortSignal }): Promise<CallToolResult>;
  toModelOutput(options: { toolCallId: string; input: unknown; output: any }): AISDKToolOutput;
}
/** An AI SDK `ToolSet`: hub name → tool. */
export type AISDKToolSet = { readonly [name: string]: AISDKTool };

export interface ToolsFor {
  "openai-chat": readonly OpenAIChatTool[];
  "openai-responses": readonly OpenAIResponsesTool[];
  anthropic: readonly AnthropicTool[];
  "ai-sdk": AISDKToolSet;
}

/** A model's tool call, in each API's shape (the fields `runTool` reads). */
export interface ToolCalls {
  /** A `ChatCompletionMessageFunctionToolCall`. */
  "openai-chat": { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } };
  /** A `ResponseFunctionToolCall`. */
  "openai-responses": { readonly call_id: string; readonly name: string; readonly arguments: string };
  /** A `ToolUseBlock`. */
  anthropic: { readonly id: string; readonly name: string; readonly input: unknown };
}

/** What each API takes back for a tool call. */
export interface ToolResults {
  /** A `ChatCompletionToolMessageParam` (text only). */
  "openai-chat": { role: "tool"; tool_call_id: string; content: string };
  /** A `ResponseInputItem.FunctionCallOutput` (text, images as data URLs). */
  "openai-responses": {
    type: "function_call_output";
    call_id: string;
    output: string | ({ type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail: "auto" })[];
  };
  /** A `ToolResultBlockParam` (text, images, `is_error`). */
  anthropic: {
    type: "tool_result";
    tool_use_id: string;
    content?: ({ type: "text"; text: string } | { type: "image"; source: { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string } })[];
    is_error?: boolean;
  };
  "ai-sdk": AISDKToolOutput;
}

/** Many servers as one live catalog. A frozen object of functions without `this`. */
export interface Hub {
  readonly tools: ReadableStore<HubListValue<HubTool>>;
  readonly prompts: ReadableStore<HubListValue<HubPrompt>>;
  readonly resources: ReadableStore<HubListValue<HubResource>>;
  readonly resourceTemplates: ReadableStore<HubListValue<HubResourceTemplate>>;
  /** Every server, in the order added (those still connecting too). */
  readonly servers: ReadableStore<readonly HubServer[]>;
  /** The ids of the servers added. */
  readonly ids: readonly string[];
  /** The client of a server, or `undefined`. */
  client(id: string): Client | undefined;
  /** Each change of a merged store, with the server that caused it. */
  on(type: "change", fn: (event: AnyHubChangeEvent) => void): () => void;
  /**
   * Connects a server (any option of `connect`) and resolves with its client
   * once its first sync is done and its items are in the merged stores. `id`
   * matches `[A-Za-z0-9_-]{1,32}` and is unique (else a `TypeError`). A
   * failed connect rejects and leaves the hub as it was.
   */
  add(id: string, url: string | URL, options?: ConnectOptions): Promise<Client>;
  /** Closes a server and removes its items (one change per kind); aborts an add in progress. */
  remove(id: string): Promise<void>;
  /** The server and the server's own name of a tool's or prompt's hub name. */
  resolve(name: string): { readonly server: string; readonly name: string } | undefined;
  /** Calls a tool by hub name. Rejects with an `ApprovalError` when the tool changed since it was approved, a `NotFoundError` for an unknown name. */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  getPrompt(name: string, args?: Record<string, string | number | boolean>, options?: CallOptions): Promise<GetPromptResult>;
  /** Reads a resource from the server that lists it (or whose template matches); `server` is needed when several do. */
  readResource(uri: string | URL, options?: CallOptions & { server?: string }): Promise<ReadResourceResult>;
  subscribeResource(
    uri: string | URL,
    fn: (contents: readonly ResourceContents[], result: ReadResourceResult) => void,
    options?: SubscribeResourceOptions & { server?: string },
  ): () => void;
  /** Sets the filter of the merged stores and `toolsFor` (`null`: none); applied again after every re-list. */
  filter(filter: HubFilter | null): void;
  /** Records a tool's fingerprint as approved (keyed by server URL and the server's tool name). */
  approve(name: string): void;
  /** Forgets a tool's approval. */
  revoke(name: string): void;
  /** The live tools in a model API's shape; tools whose approval is `"changed"` are left out. The same object until the tools change. */
  toolsFor<A extends ModelAPI>(api: A): ToolsFor[A];
  /** Runs a model's tool call through the hub and gives back the API's tool result (a failed call is an error result). */
  runTool<A extends Exclude<ModelAPI, "ai-sdk">>(api: A, call: ToolCalls[A], options?: CallToolOptions): Promise<ToolResults[A]>;
  /** Closes every server. */
  close(): Promise<void>;
}

/** Creates a hub: many servers, one live catalog, ready to hand to a model. */
export function createHub(options?: HubOptions): Hub;

/** Options of `viaBridge`. */
export interface ViaBridgeOptions {
  /** The token mcplive-bridge printed at its start (sent in the `X-Bridge-Token` header). */
  token?: string;
  /** The fetch that sends to the bridge (default the global `fetch`). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/**
 * Returns a `fetch` (for the `fetch` option of `connect`, `open`,
 * `hub.add` and `oauth()`) that carries a server's requests through
 * mcplive-bridge: a request to the bridge itself (a stdio server it serves,
 * e.g. `http://127.0.0.1:8787/mcp`) gets the bridge's token; a request to
 * any other URL (a remote server without CORS, started with `-upstream`,
 * and the OAuth endpoints its metadata names) goes to the bridge's
 * `/forward`, with its URL in `X-Bridge-Target`, so the server's own URL
 * stays the page's identity for it. See docs/reach-any-server.md.
 *
 * ```js
 * const fetch = viaBridge("http://127.0.0.1:8787", { token });
 * const client = await connect("https://remote.example/mcp", { fetch, auth: oauth({ fetch, redirectUri }) });
 * ```
 */
export function viaBridge(bridgeUrl: string | URL, options?: ViaBridgeOptions): (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
/** Approvals in memory (the default): gone on reload. */
export function memoryApprovals(): ApprovalStorage;
/** Approvals in the origin's localStorage. */
export function localStorageApprovals(options?: { prefix?: string }): ApprovalStorage;
/** An MCP tool result in a model API's shape (see `Hub.runTool`). */
export function toolResultFor<A extends ModelAPI>(api: A, result: CallToolResult, callId?: string): ToolResults[A];
