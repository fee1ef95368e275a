// Readable stores in the nanostores style: closure objects without `this`,
// safe to pass around detached, meeting the Svelte store contract and
// React's useSyncExternalStore(store.subscribe, store.get).

/**
 * createStore returns the read-only store and the setter that only this
 * package holds. get() returns the same value until set() is called with
 * another one, so React's getSnapshot stays stable.
 * @template T
 * @param {T} initial
 */
export function createStore(initial) {
  let value = initial;
  /** @type {{ fn: (value: T) => void, off: boolean }[]} */
  let listeners = [];

  const get = () => value;

  const listen = (fn) => {
    if (typeof fn !== "function") throw new TypeError("mcplive: a store listener must be a function");
    const entry = { fn, off: false };
    listeners = [...listeners, entry]; // copy on write: set() iterates a stable array
    return () => {
      if (entry.off) return;
      entry.off = true;
      listeners = listeners.filter((e) => e !== entry);
    };
  };

  const subscribe = (fn) => {
    const off = listen(fn);
    call(fn, value);
    return off;
  };

  /** @param {T} next */
  const set = (next) => {
    if (Object.is(next, value)) return;
    value = next;
    for (const entry of listeners) {
      if (!entry.off) call(entry.fn, next);
    }
  };

  return { store: Object.freeze({ get, subscribe, listen }), set };
}

/**
 * call runs a user callback; a throw is reported, not passed up: one bad
 * listener must not keep the others (or the Go runtime) from their update.
 */
export function call(fn, ...args) {
  try {
    fn(...args);
  } catch (err) {
    report(err);
  }
}

export function report(err) {
  if (typeof globalThis.reportError === "function") globalThis.reportError(err);
  else console.error(err);
}

/**
 * createEmitter is the client's on(type, fn) → unsubscribe.
 * @param {readonly string[]} types
 */
export function createEmitter(types) {
  const listeners = new Map(types.map((t) => [t, []]));
  const on = (type, fn) => {
    const list = listeners.get(type);
    if (!list) throw new TypeError(`mcplive: unknown event ${JSON.stringify(type)} (use ${types.map((t) => JSON.stringify(t)).join(", ")})`);
    if (typeof fn !== "function") throw new TypeError("mcplive: an event listener must be a function");
    const entry = { fn, off: false };
    listeners.set(type, [...list, entry]);
    return () => {
      if (entry.off) return;
      entry.off = true;
      listeners.set(type, listeners.get(type).filter((e) => e !== entry));
    };
  };
  const has = (type) => listeners.get(type).length > 0;
  const emit = (type, event) => {
    for (const entry of listeners.get(type)) {
      if (!entry.off) call(entry.fn, event);
    }
  };
  return { on, has, emit };
}
