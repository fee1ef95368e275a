// mcplive/react: the client's lifecycle in React components, right under
// StrictMode, server rendering and options that are new objects on every
// render. React is a peer dependency of this subpath only.
//
// Importing this module touches no browser global and loads no wasm: a
// client is opened only in an effect, which React runs in the browser alone.

import * as React from "react";
import { open } from "./connect.js";
import { createHub } from "./hub.js";
import { LOADING, NO_SERVERS, clientKey, latest, serverKeys, serverEntry, syncHub } from "./bindings.js";

const { useEffect, useRef, useState, useSyncExternalStore } = React;

const NONE = Object.freeze({ key: null, value: null, error: null });

/**
 * deferred runs fn in a microtask unless cancel() was called before. React's
 * StrictMode mounts, unmounts and mounts again within one synchronous
 * commit: the first mount's open is cancelled before it started, so one
 * session is opened, not two (open() dials at once: closing it afterwards
 * would still have opened one on the server).
 */
function deferred(fn) {
  let cancelled = false;
  Promise.resolve().then(() => cancelled || fn());
  return () => (cancelled = true);
}

/**
 * useClient opens a client of url (open() of mcplive) when the component
 * mounts and closes it when it unmounts. A new url, or options that differ
 * by value, close it and open another; the same values in a new object do
 * not. Callbacks in options (token, onElicit, a logger's methods) are
 * always called as the latest render passed them. Returns null until the
 * client is opened (on the server, and in the first render), then the
 * client, whose stores are "loading" until it is ready. A url of null
 * opens nothing. A mistake in the options is thrown here, to the nearest
 * error boundary.
 */
export function useClient(url, options) {
  const key = clientKey(url, options);
  const opts = useRef(options);
  opts.current = options;
  const [state, setState] = useState(NONE);
  useEffect(() => {
    if (key === null) return undefined;
    let client = null;
    const cancel = deferred(() => {
      try {
        client = open(url, latest(() => opts.current));
        setState({ key, value: client, error: null });
      } catch (error) {
        setState({ key, value: null, error });
      }
    });
    return () => {
      cancel();
      if (client) {
        client.close();
        // A later effect of the same key (Fast Refresh, <Activity>) must not show the closed one.
        const mine = client;
        setState((s) => (s.value === mine ? NONE : s));
      }
    };
    // key says all of url and options that matter
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  if (state.key !== key) return null; // the old client's, never shown after the switch
  if (state.error) throw state.error;
  return state.value;
}

const noSubscribe = () => () => {};
const loading = () => LOADING;

/**
 * useStore returns a store's value and re-renders on each change
 * (useSyncExternalStore). serverValue is what server rendering and
 * hydration show (default: the store's value then); a null store gives
 * serverValue (or undefined).
 */
export function useStore(store, serverValue) {
  const get = store ? store.get : () => serverValue;
  return useSyncExternalStore(store ? store.subscribe : noSubscribe, get, serverValue === undefined ? get : () => serverValue);
}

function listHook(kind) {
  return (source) => {
    const store = source?.[kind];
    return useSyncExternalStore(store ? store.subscribe : noSubscribe, store ? store.get : loading, loading);
  };
}

/** useTools returns the tools list of a client or a hub: "loading" without one, on the server and while hydrating. */
export const useTools = listHook("tools");
/** usePrompts returns the prompts list of a client or a hub. */
export const usePrompts = listHook("prompts");
/** useResources returns the resources list of a client or a hub. */
export const useResources = listHook("resources");
/** useResourceTemplates returns the resource templates list of a client or a hub. */
export const useResourceTemplates = listHook("resourceTemplates");

const connecting = () => "connecting";
/** useStatus returns the client's connection status: "connecting" without one, on the server and while hydrating. */
export function useStatus(client) {
  const store = client?.status;
  return useSyncExternalStore(store ? store.subscribe : noSubscribe, store ? store.get : connecting, connecting);
}

/**
 * useReady suspends the component (the nearest <Suspense> shows its
 * fallback) until client.ready resolves, and throws its error (to the
 * nearest error boundary) when it rejects. Without a client (null: on the
 * server, or before useClient opened it) it returns false at once; with a
 * ready one, true.
 */
export function useReady(client) {
  if (!client) return false;
  if (typeof React.use === "function") {
    React.use(client.ready);
    return true;
  }
  // React 18: Suspense by a thrown promise.
  const s = settled(client.ready);
  if (s.status === "pending") throw s.promise;
  if (s.status === "rejected") throw s.error;
  return true;
}

const seen = new WeakMap();
function settled(promise) {
  let s = seen.get(promise);
  if (!s) {
    s = { status: "pending", error: null, promise: null };
    s.promise = promise.then(
      () => void (s.status = "fulfilled"),
      (error) => void ((s.status = "rejected"), (s.error = error)),
    );
    seen.set(promise, s);
  }
  return s;
}

/**
 * useHub keeps a hub (createHub of mcplive) whose servers follow the
 * servers prop, { [id]: url } or { [id]: { url, options } }: an id that
 * appears is added, one that goes away is removed, one whose url or options
 * (by value) change is removed and added again; the others are left alone.
 * The hub is created after mount and closed on unmount; null before.
 * hubOptions are read when the hub is created. A failed add is reported to
 * onError(id, error) in hubOptions (or logged to its logger).
 */
export function useHub(servers, hubOptions) {
  const [hub, setHub] = useState(null);
  const latestServers = useRef(servers);
  latestServers.current = servers;
  const hubOpts = useRef(hubOptions);
  hubOpts.current = hubOptions;
  const applied = useRef(null); // Map id → key of the servers in the hub
  useEffect(() => {
    let made = null;
    const cancel = deferred(() => {
      const { onError, ...rest } = hubOpts.current ?? {};
      made = createHub(rest);
      applied.current = new Map();
      setHub(made);
    });
    return () => {
      cancel();
      if (made) {
        applied.current?.clear(); // an add still in flight reports nothing now
        made.close();
        const mine = made;
        setHub((h) => (h === mine ? null : h));
      }
    };
  }, []);
  const keys = serverKeys(servers);
  const signature = [...keys].map(([id, k]) => `${id}\u0000${k}`).sort().join("\u0001");
  useEffect(() => {
    if (!hub) return;
    syncHub(hub, applied.current, serverKeys(latestServers.current), (id) => serverEntry(latestServers.current, id), hubOpts.current);
  }, [hub, signature]);
  return hub;
}

/** useServers returns a hub's servers (each id's status and error): [] without a hub. */
export function useServers(hub) {
  const store = hub?.servers;
  return useSyncExternalStore(store ? store.subscribe : noSubscribe, store ? store.get : noServers, noServers);
}
const noServers = () => NO_SERVERS;
