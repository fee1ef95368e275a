/**
 * Vue 3 composables for mcplive: the client's lifecycle in components and
 * effect scopes, right under server rendering and options that change.
 * Vue (3.3 or later) is a peer dependency of this subpath only.
 * @module mcplive/vue
 */
// mcplive/vue: importing it touches no browser global and loads no wasm; in
// a component a client is opened on mount, which Vue runs in the browser alone.

import type { MaybeRefOrGetter, ShallowRef } from "vue";
import type { Client, ConnectOptions, ConnectionStatus, Hub, HubListValue, HubOptions, HubPrompt, HubResource, HubResourceTemplate, HubServer, HubTool, ListValue, Prompt, ReadableStore, Resource, ResourceTemplate, Tool } from "./index.js";

/**
 * Opens a client of `url` (`open()` of `mcplive`) on mount (at once in a
 * bare effect scope) and closes it when the scope is disposed (the
 * component unmounts). `url` and `options` may be refs or getters: a new
 * `url`, or options that differ by value, close the client and open
 * another; the same values in a new object do not. `auth`, `cache` (an
 * adapter) and `signal` compare by identity; callbacks are always called as
 * they are now. A shallowRef of the client: `null` until it is opened (on
 * the server, before mount) and after it is closed. A `url` of `null`
 * opens nothing.
 */
export function useClient(url: MaybeRefOrGetter<string | URL | null | undefined>, options?: MaybeRefOrGetter<ConnectOptions | undefined>): ShallowRef<Client | null>;

/**
 * A shallowRef of a store's value that follows the store (a ref or getter:
 * a client's store changes with the client). Subscribes on mount, never on
 * the server; unsubscribes when the scope is disposed. Without a store:
 * `fallback`.
 */
export function useStore<T>(store: MaybeRefOrGetter<ReadableStore<T> | null | undefined>, fallback: T): Readonly<ShallowRef<T>>;
export function useStore<T>(store: MaybeRefOrGetter<ReadableStore<T> | null | undefined>): Readonly<ShallowRef<T | undefined>>;

/** The tools of a client or a hub (a ref or getter); `"loading"` (no items) without one. */
export function useTools(source: MaybeRefOrGetter<Client | null | undefined>): Readonly<ShallowRef<ListValue<Tool>>>;
export function useTools(source: MaybeRefOrGetter<Hub | null | undefined>): Readonly<ShallowRef<HubListValue<HubTool>>>;
/** The prompts of a client or a hub; `"loading"` without one. */
export function usePrompts(source: MaybeRefOrGetter<Client | null | undefined>): Readonly<ShallowRef<ListValue<Prompt>>>;
export function usePrompts(source: MaybeRefOrGetter<Hub | null | undefined>): Readonly<ShallowRef<HubListValue<HubPrompt>>>;
/** The resources of a client or a hub; `"loading"` without one. */
export function useResources(source: MaybeRefOrGetter<Client | null | undefined>): Readonly<ShallowRef<ListValue<Resource>>>;
export function useResources(source: MaybeRefOrGetter<Hub | null | undefined>): Readonly<ShallowRef<HubListValue<HubResource>>>;
/** The resource templates of a client or a hub; `"loading"` without one. */
export function useResourceTemplates(source: MaybeRefOrGetter<Client | null | undefined>): Readonly<ShallowRef<ListValue<ResourceTemplate>>>;
export function useResourceTemplates(source: MaybeRefOrGetter<Hub | null | undefined>): Readonly<ShallowRef<HubListValue<HubResourceTemplate>>>;

/** The client's connection status; `"connecting"` without one. */
export function useStatus(client: MaybeRefOrGetter<Client | null | undefined>): Readonly<ShallowRef<ConnectionStatus>>;

/** A hub's server: its url, and its options as `hub.add` takes them. */
export type HubServerSpec = string | URL | { url: string | URL; options?: ConnectOptions };

/** The options of `useHub`: `createHub`'s, and where a failed add goes. */
export interface UseHubOptions extends HubOptions {
  /** Gets a server's failed add (else it goes to `logger.warn`). */
  onError?: (id: string, error: Error) => void;
}

/**
 * A shallowRef of a hub (`createHub` of `mcplive`) whose servers follow
 * `servers` (a ref or getter), keyed by id: an id that appears is added,
 * one that goes away is removed, one whose url or options (by value) change
 * is removed and added again. Created on mount, closed when the scope is
 * disposed; `null` before.
 */
export function useHub(servers: MaybeRefOrGetter<Readonly<Record<string, HubServerSpec | null | undefined | false>>>, hubOptions?: UseHubOptions): ShallowRef<Hub | null>;

/** A shallowRef of a hub's servers; `[]` without a hub. */
export function useServers(hub: MaybeRefOrGetter<Hub | null | undefined>): Readonly<ShallowRef<readonly HubServer[]>>;
