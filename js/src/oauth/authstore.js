// The store of one oauth() object (auth.js is the face), which connect
// shows as client.auth: the authorization's state ({ status, issuer,
// scopes, expiresAt, authorizationUrl, error }), the waiters of the next
// authorization (connect's retry) and the clients to tell of a new one
// (they re-list every list).

import { createStore } from "../store.js";

/**
 * createAuthStore makes the store: state (createStore's), setState(patch),
 * fail(err) (the state's error; every waiter rejects with it) and
 * waitAuthorized(signal).
 */
export function createAuthStore() {
  const initial = Object.freeze({ status: "none", issuer: null, scopes: Object.freeze([]), expiresAt: null, authorizationUrl: null, error: null });
  const state = createStore(initial);
  const setState = (patch) => state.set(Object.freeze({ ...state.store.get(), ...patch, ...(patch.scopes ? { scopes: Object.freeze([...patch.scopes]) } : {}) }));
  const onAuthorized = new Set(); // fns of the clients to re-list after a new authorization
  const waiters = new Set();

  function fail(err) {
    setState({ status: "error", error: err });
    for (const w of waiters) w.reject(err);
    waiters.clear();
    return err;
  }

  /** waitAuthorized resolves at the next authorization, rejects when the flow fails or signal aborts. */
  function waitAuthorized(signal) {
    return new Promise((resolve, reject) => {
      const w = { resolve, reject };
      waiters.add(w);
      if (signal) {
        const onAbort = () => {
          waiters.delete(w);
          reject(signal.reason);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  return { initial, state, setState, onAuthorized, waiters, fail, waitAuthorized };
}
