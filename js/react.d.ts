/**
 * React hooks for mcplive: the client's lifecycle in components, right under
 * StrictMode, server rendering and options that are new objects on every
 * render. React (18 or 19) is a peer dependency of this subpath only.
 * @module mcplive/react
 */
// mcplive/react: importing it touches no browser global and loads no wasm;
// a client is opened in an effect, which React runs in the browser alone.

import type { Client, ConnectOptions, ConnectionStatus, Hub, HubListValue, HubOptions, HubPrompt, HubResource, HubResourceTemplate, HubServer, HubTool, ListValue, Prompt, ReadableStore, Resource, ResourceTemplate, Tool } from "./index.js";

/**
 * Opens a client of `url` (`open()` of `mcplive`) when the component mounts
 * and closes it when it unmounts; StrictMode's mount–unmount–mount opens one.
 * A new `url`, or `options` that differ by value, close it and open another;
 * the same values in a new object do not (an inline object literal is
 * fine). `auth`, `cache` (an adapter) and `signal` compare by identity;
 * callbacks (`token`, `onElicit`, a logger's methods) are always called as
 * the latest render passed them, so an inline arrow function does not
 * reconnect either. Returns `null` until the client is opened (on the
 * server, and in the first render), then the client, whose stores are
 * `"loading"` until it is ready; never the client of a previous `url`. A
 * `url` of `null` opens nothing. A mistake in the options is thrown in
 * render, to the nearest error boundary.
 */
export function useClient(url: string | URL | null | undefined, options?: ConnectOptions): Client | null;

/**
 * A store's value (`useSyncExternalStore`); re-renders on each change.
 * `serverValue` is what server rendering and hydration show (default: the
 * store's value). Without a store: `serverValue`.
 */
export function useStore<T>(store: ReadableStore<T>, serverValue?: T): T;
export function useStore<T>(store: ReadableStore<T> | null | undefined, serverValue: T): T;
export function useStore<T>(store: ReadableStore<T> | null | undefined): T | undefined;

/** The tools of a client or a hub; `"loading"` (no items) without one, on the server and while hydrating. */
export function useTools(source: Client | null | undefined): ListValue<Tool>;
export function useTools(source: Hub | null | undefined): HubListValue<HubTool>;
/** The prompts of a client or a hub; `"loading"` without one. */
export function usePrompts(source: Client | null | undefined): ListValue<Prompt>;
export function usePrompts(source: Hub | null | undefined): HubListValue<HubPrompt>;
/** The resources of a client or a hub; `"loading"` without one. */
export function useResources(source: Client | null | undefined): ListValue<Resource>;
export function useResources(source: Hub | null | undefined): HubListValue<HubResource>;
/** The resource templates of a client or a hub; `"loading"` without one. */
export function useResourceTemplates(source: Client | null | undefined): ListValue<ResourceTemplate>;
export function useResourceTemplates(source: Hub | null | undefined): HubListValue<HubResourceTemplate>;

/** The client's connection status; `"connecting"` without one, on the server and while hydrating. */
export function useStatus(client: Client | null | undefined): ConnectionStatus;

/**
 * Suspends the component (the nearest `<Suspense>` shows its fallback)
 * until `client.ready` resolves, and throws its error to the nearest error
 * boundary when it rejects (a refused connection, a closed client). Use it
 * in a child of the component that calls `useClient` (a component that
 * suspends on its first mount keeps no state). Without a client (`null`:
 * on the server, before `useClient` opened it) it returns `false` at once;
 * once ready, `true`.
 */
export function useReady(client: Client | null | undefined): boolean;

/** A hub's server: its url, and its options as `hub.add` takes them. */
export type HubServerSpec = string | URL | { url: string | URL; options?: ConnectOptions };

/** The options of `useHub`: `createHub`'s, and where a failed add goes. */
export interface UseHubOptions extends HubOptions {
  /** Gets a server's failed add (else it goes to `logger.warn`). */
  onError?: (id: string, error: Error) => void;
}

/**
 * A hub (`createHub` of `mcplive`) whose servers follow `servers`, keyed by
 * id (a falsy entry is no server): an id that appears is added, one that
 * goes away is removed, one whose url or options (by value) change is
 * removed and added again, the others are left alone. Created after mount,
 * closed on unmount; `null` before. `hubOptions` are read when it is created.
 */
export function useHub(servers: Readonly<Record<string, HubServerSpec | null | undefined | false>>, hubOptions?: UseHubOptions): Hub | null;

/** A hub's servers (each one's status and error); `[]` without a hub. */
export function useServers(hub: Hub | null | undefined): readonly HubServer[];
