// mcplive/vue: the client's lifecycle in Vue 3 components and effect
// scopes, right under server rendering and options that are new objects on
// every change. Vue is a peer dependency of this subpath only.
//
// Importing this module touches no browser global and loads no wasm: in a
// component, a client is opened on mount, which Vue runs in the browser alone.

import { getCurrentInstance, onMounted, onScopeDispose, shallowRef, toValue, watch } from "vue";
import { open } from "./connect.js";
import { createHub } from "./hub.js";
import { LOADING, NO_SERVERS, clientKey, latest, serverKeys, serverEntry, syncHub } from "./bindings.js";

/**
 * whenMounted runs fn on mount inside a component (never on the server), at
 * once in a bare effect scope.
 */
function whenMounted(fn) {
  if (getCurrentInstance()) onMounted(fn);
  else fn();
}

/**
 * useClient opens a client of url (open() of mcplive) on mount and closes
 * it when the component unmounts (the effect scope is disposed). url and
 * options may be refs or getters: a new url, or options that differ by
 * value, close the client and open another; the same values in a new object
 * do not. Callbacks in options are always called as they are now. Returns a
 * shallowRef of the client: null until it is opened (on the server, before
 * mount) and after it is closed. A url of null opens nothing.
 */
export function useClient(url, options) {
  const client = shallowRef(null);
  let current = null;
  let mounted = false;
  const key = () => clientKey(toValue(url), toValue(options));
  const start = (k) => {
    stop();
    if (k === null) return;
    current = open(toValue(url), latest(() => toValue(options)));
    client.value = current;
  };
  const stop = () => {
    if (!current) return;
    current.close();
    current = null;
    client.value = null;
  };
  watch(key, (k) => mounted && start(k));
  whenMounted(() => {
    mounted = true;
    start(key());
  });
  onScopeDispose(() => {
    mounted = false;
    stop();
  });
  return client;
}

/**
 * useStore returns a shallowRef of a store's value that follows the store.
 * store may be a ref or a getter (a client's store, which changes with the
 * client); without a store the ref holds fallback. It subscribes on mount
 * (never on the server) and unsubscribes when the scope is disposed.
 */
export function useStore(store, fallback) {
  const value = shallowRef(toValue(store)?.get() ?? fallback);
  let off = null;
  let mounted = false;
  const follow = (s) => {
    off?.();
    off = null;
    if (!s) {
      value.value = fallback;
      return;
    }
    off = s.subscribe((v) => (value.value = v));
  };
  watch(() => toValue(store), (s) => mounted && follow(s));
  whenMounted(() => {
    mounted = true;
    follow(toValue(store));
  });
  onScopeDispose(() => {
    mounted = false;
    off?.();
    off = null;
  });
  return value;
}

function listComposable(kind) {
  return (source) => useStore(() => toValue(source)?.[kind] ?? null, LOADING);
}

/** useTools returns a shallowRef of the tools list of a client or a hub (a ref or getter): "loading" without one. */
export const useTools = listComposable("tools");
/** usePrompts returns a shallowRef of the prompts list of a client or a hub. */
export const usePrompts = listComposable("prompts");
/** useResources returns a shallowRef of the resources list of a client or a hub. */
export const useResources = listComposable("resources");
/** useResourceTemplates returns a shallowRef of the resource templates list of a client or a hub. */
export const useResourceTemplates = listComposable("resourceTemplates");

/** useStatus returns a shallowRef of the client's connection status: "connecting" without one. */
export function useStatus(client) {
  return useStore(() => toValue(client)?.status ?? null, "connecting");
}

/**
 * useHub keeps a hub (createHub of mcplive) whose servers follow servers (a
 * ref or getter of { [id]: url } or { [id]: { url, options } }): an id that
 * appears is added, one that goes away is removed, one whose url or options
 * (by value) change is removed and added again. Created on mount, closed
 * when the scope is disposed; a shallowRef, null before. A failed add goes
 * to onError(id, error) in hubOptions, else to its logger.
 */
export function useHub(servers, hubOptions = {}) {
  const hub = shallowRef(null);
  let applied = null;
  const sync = () => {
    if (!hub.value) return;
    const all = toValue(servers);
    syncHub(hub.value, applied, serverKeys(all), (id) => serverEntry(all, id), hubOptions);
  };
  watch(() => [...serverKeys(toValue(servers))].map(([id, k]) => `${id}\u0000${k}`).sort().join("\u0001"), sync);
  whenMounted(() => {
    const { onError, ...rest } = hubOptions;
    applied = new Map();
    hub.value = createHub(rest);
    sync();
  });
  onScopeDispose(() => {
    applied?.clear(); // an add still in flight reports nothing now
    hub.value?.close();
    hub.value = null;
    applied = null;
  });
  return hub;
}

/** useServers returns a shallowRef of a hub's servers: [] without a hub. */
export function useServers(hub) {
  return useStore(() => toValue(hub)?.servers ?? null, NO_SERVERS);
}
