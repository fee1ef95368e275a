// What mcplive/react and mcplive/vue share, and nothing of a framework: the
// key that says whether new options need a new client, the options handed to
// open() (their callbacks always the latest render's), and the values the
// stores show before there is a client (server rendering, the first render).
// Importing this touches no browser global and loads no wasm.

/** The value of every list store before there is a client (as lists.js starts one). */
export const LOADING = Object.freeze({
  items: Object.freeze([]),
  status: "loading",
  error: null,
  version: 0,
  live: false,
  ttlMs: null,
  cacheScope: null,
  receivedAt: null,
  source: null,
});

/** The value of a hub's servers store before there is a hub. */
export const NO_SERVERS = Object.freeze([]);

/**
 * Options compared by identity: an oauth() object is bound to one server,
 * a cache adapter and an AbortSignal are things, not settings.
 */
const BY_IDENTITY = new Set(["auth", "cache", "signal"]);

const ids = new WeakMap();
let nextId = 0;
function identity(obj) {
  let id = ids.get(obj);
  if (id === undefined) ids.set(obj, (id = ++nextId));
  return id;
}

/**
 * clientKey is a string that changes exactly when url or the options that
 * matter change: values compare by value (an inline object literal gives
 * the same key on every render), auth, cache (an adapter) and signal by
 * identity, and a function only by being there or not (the client always
 * calls the latest one: see latest). null when url is null or undefined.
 * @param {string | URL | null | undefined} url
 * @param {object | null | undefined} options
 */
export function clientKey(url, options) {
  if (url == null) return null;
  return `${String(url)}\n${describe(options ?? {}, 0)}`;
}

function describe(v, depth) {
  if (v === undefined) return "u";
  if (v === null || typeof v === "number" || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") return "f";
  if (typeof v !== "object" || depth > 8) return `#${identity(v)}`;
  if (v instanceof URL) return JSON.stringify(v.href);
  if (Array.isArray(v)) return `[${v.map((x) => describe(x, depth + 1)).join(",")}]`;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return `#${identity(v)}`;
  const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${depth === 0 && BY_IDENTITY.has(k) && v[k] !== null && typeof v[k] === "object" ? `#${identity(v[k])}` : describe(v[k], depth + 1)}`).join(",")}}`;
}

/**
 * latest returns the options to hand to open(): a copy of current() at this
 * moment in which every function (token, onElicit, a logger's methods, …)
 * is a stand-in that calls the one current() holds when it is called. So
 * an inline callback, new on every render, neither reconnects nor goes
 * stale. auth, cache and signal are passed as they are.
 * @param {() => object | null | undefined} current
 */
export function latest(current) {
  const at = (path) => {
    let v = current() ?? {};
    for (const k of path) v = v?.[k];
    return v;
  };
  const copy = (v, path) => {
    if (typeof v === "function") {
      return function (...args) {
        const fn = at(path);
        return typeof fn === "function" ? fn.apply(this, args) : undefined;
      };
    }
    if (v === null || typeof v !== "object" || path.length > 8) return v;
    if (path.length === 1 && BY_IDENTITY.has(path[0])) return v;
    if (Array.isArray(v)) return v.map((x, i) => copy(x, [...path, i]));
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return v;
    const out = {};
    for (const k of Object.keys(v)) out[k] = copy(v[k], [...path, k]);
    return out;
  };
  return copy(current() ?? {}, []);
}

/**
 * serversKey is hub servers' key per id: { [id]: url } or
 * { [id]: { url, options } } (a falsy entry is no server).
 * @param {Record<string, string | URL | { url: string | URL, options?: object } | null | undefined | false>} servers
 * @returns {Map<string, string>}
 */
export function serverKeys(servers) {
  const out = new Map();
  for (const [id, s] of Object.entries(servers ?? {})) {
    if (!s) continue;
    const { url, options } = typeof s === "string" || s instanceof URL ? { url: s, options: undefined } : s;
    out.set(id, clientKey(url, options));
  }
  return out;
}

/** serverEntry returns the url and options of servers[id]. */
export function serverEntry(servers, id) {
  const s = servers?.[id];
  if (!s) return null;
  return typeof s === "string" || s instanceof URL ? { url: s, options: undefined } : s;
}

/**
 * syncHub brings hub's servers to want (Map id → key, serverKeys): removes
 * the ids whose key differs or that are gone, adds the new ones (entry(id)
 * gives their url and options), leaves the others alone. applied is what
 * the hub has (Map id → key), updated here; applied.removals holds the
 * removal in progress of an id, which a new server of that id waits for. A
 * failed add goes to onError(id, error), else to logger.warn.
 */
export function syncHub(hub, applied, want, entry, { onError, logger } = {}) {
  const removals = (applied.removals ??= new Map());
  const fail = (id, error) => {
    if (typeof onError === "function") onError(id, error);
    else logger?.warn?.(`mcplive: useHub could not add ${id}: ${error?.message ?? error}`, { id, error });
  };
  for (const [id, k] of applied) {
    if (want.get(id) === k) continue;
    applied.delete(id);
    const done = hub.remove(id).catch(() => {});
    removals.set(id, done);
    done.then(() => removals.get(id) === done && removals.delete(id));
  }
  for (const [id, k] of want) {
    if (applied.get(id) === k) continue;
    applied.set(id, k);
    const { url, options } = entry(id);
    const add = () => {
      if (applied.get(id) !== k) return; // changed again meanwhile
      hub.add(id, url, options).catch((error) => {
        if (applied.get(id) === k && error?.name !== "AbortError") fail(id, error);
      });
    };
    const removing = removals.get(id);
    if (removing) removing.then(add);
    else add();
  }
}
