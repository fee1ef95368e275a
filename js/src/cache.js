// The catalog cache (the cache option): the last lists of a server, and its
// resources/read results, kept across reloads by the specification's
// caching rules (2026-07-28: ttlMs, cacheScope), so that a returning page
// shows its catalog before the wasm has started. JS owns the storage; the
// Go side gets the kept lists as seeds and decides, per list, whether all
// of its pages are still fresh (list.go: walker.run).
//
// A server's catalog is two records: the public one (lists and reads the
// server marked cacheScope "public", and the revision it spoke) and the
// private one of the authorization context (every other list and read),
// keyed by a hash of that context, never by a token. Each record is one
// string written with one put, so two tabs writing at once leave one whole
// record; it starts with its format and version and a checksum of the rest,
// and a record that does not check out in any way is ignored (with a
// logger.warn) as if there were none.

import { redactURL } from "./redact.js";
import { sha256 } from "./hash.js";
import { KEY_FIELD, KINDS } from "./kinds.js";

/** The record format and its version: a record of another is ignored. */
const FORMAT = "mcplive-catalog";
export const CACHE_VERSION = 1;

/** The "memory" cache: one per JS realm (a page, a worker, a Node process). */
const memoryRecords = new Map();

/** The revision each server URL spoke, remembered with or without a cache (era.go: RevisionHint). */
const revisions = new Map();
const REVISION_KEY = "mcplive-revision:";

/**
 * webStorage is the page's localStorage; none in Node (whose own, in newer
 * versions, warns on use without --localstorage-file) or where access is
 * denied.
 */
function webStorage() {
  if (typeof process === "object" && process.versions?.node) return null;
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** checkCache validates the cache option: "memory", "indexeddb" or { get, set, delete }. */
export function checkCache(c) {
  if (c === undefined || c === "memory" || c === "indexeddb") return;
  if (c !== null && typeof c === "object" && ["get", "set", "delete"].every((m) => typeof c[m] === "function")) return;
  throw new TypeError('mcplive: cache must be "memory", "indexeddb" or an adapter { get(key), set(key, value), delete(key) } (async)');
}

/** memoryAdapter keeps records in this realm's memory. */
function memoryAdapter() {
  return {
    get: async (k) => memoryRecords.get(k),
    set: async (k, v) => void memoryRecords.set(k, v),
    delete: async (k) => void memoryRecords.delete(k),
  };
}

/**
 * indexedDBAdapter keeps records in IndexedDB (database "mcplive", store
 * "catalogs"); null where there is none (Node, some private modes).
 */
function indexedDBAdapter() {
  const idb = (() => {
    try {
      return globalThis.indexedDB ?? null;
    } catch {
      return null; // access denied (sandboxed iframe, storage off)
    }
  })();
  if (!idb || typeof idb.open !== "function") return null;
  let db = null;
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const req = idb.open("mcplive", 1);
      req.onupgradeneeded = () => req.result.createObjectStore("catalogs");
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
      req.onblocked = () => reject(new Error("the database is blocked by another tab"));
    }).catch((err) => {
      db = null;
      throw err;
    }));
  const run = (mode, fn) =>
    open().then(
      (d) =>
        new Promise((resolve, reject) => {
          const tx = d.transaction("catalogs", mode);
          const req = fn(tx.objectStore("catalogs"));
          tx.oncomplete = () => resolve(req.result);
          tx.onerror = () => reject(tx.error ?? req.error);
          tx.onabort = () => reject(tx.error ?? new Error("the transaction was aborted"));
        }),
    );
  return {
    get: (k) => run("readonly", (s) => s.get(k)),
    // Both records of a server in one transaction (openCache: load).
    getMany: (keys) =>
      open().then(
        (d) =>
          new Promise((resolve, reject) => {
            const tx = d.transaction("catalogs", "readonly");
            const store = tx.objectStore("catalogs");
            const reqs = keys.map((k) => store.get(k));
            tx.oncomplete = () => resolve(reqs.map((r) => r.result));
            tx.onerror = () => reject(tx.error);
            tx.onabort = () => reject(tx.error ?? new Error("the transaction was aborted"));
          }),
      ),
    set: (k, v) => run("readwrite", (s) => s.put(v, k)),
    delete: (k) => run("readwrite", (s) => s.delete(k)),
  };
}

/**
 * rememberedRevision returns the revision url spoke last time in this realm
 * or, where there is localStorage, in an earlier run; "" when unknown.
 */
export function rememberedRevision(url) {
  if (revisions.has(url)) return revisions.get(url);
  try {
    const v = webStorage()?.getItem(REVISION_KEY + serverKey(url));
    if (typeof v === "string") return v;
  } catch {
    // no storage: nothing remembered
  }
  return "";
}

/** rememberRevision records the revision url spoke (see rememberedRevision). */
export function rememberRevision(url, revision) {
  if (typeof revision !== "string" || !revision || revisions.get(url) === revision) return;
  revisions.set(url, revision);
  try {
    webStorage()?.setItem(REVISION_KEY + serverKey(url), revision);
  } catch {
    // full or off: the memory of this realm still has it
  }
}

/**
 * serverKey names a server in keys and records by a hash of its URL: a
 * WebSocket URL may carry the credentials (browsers cannot set its
 * headers), which must not be written to storage.
 */
const serverKey = (url) => sha256(`mcplive-server\n${url}`).slice(0, 32);

const recordKey = (server, ctx) => `mcplive:${server}${ctx === null ? "" : `#${ctx}`}`;

/** contextKey is the private records' key part of an authorization context: a hash, never a token. */
export const contextKey = (context) => sha256(`mcplive-context\n${context}`).slice(0, 32);

/** tokenContext is the authorization context of a token callback's value. */
export const tokenContext = (token) => (token ? `token:${sha256(token)}` : "anonymous");

/**
 * checksum is FNV-1a (32 bits) over a string's UTF-16 code units: a check
 * that a record is whole, not a guard against a forger (it is read on the
 * way to the first list, so it must be quick: ~2 ms per MB).
 */
function checksum(text) {
  let x = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) x = Math.imul(x ^ text.charCodeAt(i), 0x01000193);
  return (x >>> 0).toString(16).padStart(8, "0");
}

/**
 * encode writes a record: format, version, checksum of the body, body.
 * @returns {string}
 */
function encode(body) {
  const json = JSON.stringify(body);
  return `${FORMAT} ${CACHE_VERSION} ${checksum(json)} ${json}`;
}

/**
 * decode reads a record that encode wrote for server (serverKey) and ctx; it throws, with
 * what is wrong, when it is not one.
 */
function decode(raw, server, ctx) {
  if (typeof raw !== "string") throw new Error(`not a record of this client (a ${raw === null ? "null" : typeof raw})`);
  const m = /^(\S+) (\d+) ([0-9a-f]+) /.exec(raw);
  if (!m || m[1] !== FORMAT) throw new Error("not a record of this client");
  if (Number(m[2]) !== CACHE_VERSION) throw new Error(`a record of format version ${m[2]}, not ${CACHE_VERSION}`);
  const json = raw.slice(m[0].length);
  if (checksum(json) !== m[3]) throw new Error("the record is corrupt or truncated (its checksum does not match)");
  const body = JSON.parse(json);
  if (body === null || typeof body !== "object" || body.server !== server || (body.context ?? null) !== ctx) throw new Error("a record of another server or authorization");
  const lists = {};
  for (const kind of KINDS) {
    const l = body.lists?.[kind];
    if (l == null) continue;
    if (!Array.isArray(l.items) || !l.items.every((it) => it !== null && typeof it === "object" && typeof it[KEY_FIELD[kind]] === "string")) {
      throw new Error(`the ${kind} of the record are not a list`);
    }
    lists[kind] = { items: l.items, ttlMs: num(l.ttlMs), cacheScope: l.cacheScope === "public" ? "public" : "private", receivedAt: num(l.receivedAt) };
  }
  const reads = {};
  for (const [uri, r] of Object.entries(body.reads ?? {})) {
    if (r !== null && typeof r === "object" && r.result !== null && typeof r.result === "object") reads[uri] = { result: r.result, ttlMs: num(r.ttlMs), cacheScope: r.cacheScope === "public" ? "public" : "private", receivedAt: num(r.receivedAt) };
  }
  const d = body.discover;
  const discover = d !== null && typeof d === "object" && d.result !== null && typeof d.result === "object" && !Array.isArray(d.result)
    ? { result: d.result, ttlMs: num(d.ttlMs), cacheScope: d.cacheScope === "public" ? "public" : "private", receivedAt: num(d.receivedAt) }
    : null;
  return { revision: typeof body.revision === "string" ? body.revision : "", lists, reads, discover };
}

/** The most resources/read results a record keeps, per scope. */
const MAX_READS = 64;

const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * fresh reports whether an entry (a list's pages, a read) may be used
 * without asking: now < receivedAt + ttlMs (and not received in the future:
 * a clock set back trusts nothing).
 */
export const fresh = (e, now = Date.now()) => e != null && e.ttlMs > 0 && e.receivedAt <= now && now < e.receivedAt + e.ttlMs;

/**
 * openCache makes the catalog cache of url for the cache option, or null
 * when there is none to use (the option unset, IndexedDB missing: said
 * with a warning). context is a Promise of the authorization context (a
 * string: "anonymous", "token:<hash>", "oauth:<issuer> <subject>").
 * Nothing of it throws into the app: every failure is a warn, and the
 * lists are walked as without a cache.
 */
export function openCache(option, url, contextPromise, logger) {
  if (option === undefined) return null;
  const warn = (msg, attrs) => {
    try {
      logger?.warn?.(`mcplive: cache: ${msg}`, Object.freeze({ url: redactURL(url), ...attrs }));
    } catch {
      // a logger that throws must not break the client
    }
  };
  const server = serverKey(url);
  const adapter = option === "memory" ? memoryAdapter() : option === "indexeddb" ? indexedDBAdapter() : option;
  if (adapter === null) {
    warn("this JS runtime has no IndexedDB; the catalog is not kept (pass cache: \"memory\" or an adapter)");
    return null;
  }
  const call = async (op, ...args) => adapter[op](...args);
  let ctx = null; // the current context's key
  const state = { revision: "", lists: { public: {}, private: {} }, reads: { public: {}, private: {} }, discover: { public: null, private: null } };

  /** fetch gets the raw records of keys (one transaction where the storage can). */
  async function fetch(keys) {
    try {
      if (typeof adapter.getMany === "function") return await adapter.getMany(keys);
      return await Promise.all(keys.map((k) => call("get", k)));
    } catch (err) {
      warn(`the storage failed (get): ${err?.message ?? err}; the lists are walked`, { err });
      return keys.map(() => null);
    }
  }

  function decodeOne(raw, c) {
    if (raw === undefined || raw === null) return null;
    try {
      return decode(raw, server, c);
    } catch (err) {
      warn(`a kept record is ignored: ${err?.message ?? err}`, { err });
      return null;
    }
  }

  /** load reads both records: { revision, lists: { kind: entry }, reads: { uri: entry }, discover: entry or null }. */
  async function load() {
    let context = null;
    try {
      context = await contextPromise;
    } catch {
      // no context known: only public records are read
    }
    if (typeof context === "string") ctx = contextKey(context);
    const keys = ctx === null ? [recordKey(server, null)] : [recordKey(server, null), recordKey(server, ctx)];
    const raws = await fetch(keys);
    const pub = decodeOne(raws[0], null);
    const priv = ctx === null ? null : decodeOne(raws[1], ctx);
    if (pub) {
      state.revision = pub.revision;
      pickScope(pub, "public");
    }
    if (priv) pickScope(priv, "private");
    return {
      revision: state.revision,
      lists: { ...state.lists.public, ...state.lists.private },
      reads: { ...state.reads.public, ...state.reads.private },
      discover: state.discover.private ?? state.discover.public,
    };
  }

  /** pickScope keeps what a record of scope holds, of that scope only. */
  function pickScope(rec, scope) {
    for (const [k, v] of Object.entries(rec.lists)) if (v.cacheScope === scope) state.lists[scope][k] = v;
    for (const [u, v] of Object.entries(rec.reads)) if (v.cacheScope === scope) state.reads[scope][u] = v;
    if (rec.discover?.cacheScope === scope) state.discover[scope] = rec.discover;
  }

  let pending = null; // the scopes to write at the end of this task
  let writing = Promise.resolve();
  function schedule(scope) {
    if (pending === null) {
      pending = new Set();
      // In a task of its own: the change that caused it reaches the app
      // first, and a burst of changes is one write.
      setTimeout(flush, 0);
    }
    pending.add(scope);
  }
  function flush() {
    const scopes = pending;
    pending = null;
    for (const scope of scopes) {
      if (scope === "private" && ctx === null) continue; // no context known: nothing private is kept
      const c = scope === "public" ? null : ctx;
      const body = { server, context: c, savedAt: Date.now(), revision: state.revision, lists: state.lists[scope], reads: state.reads[scope], discover: state.discover[scope] };
      let value;
      try {
        value = encode(body);
      } catch (err) {
        warn(`a record could not be written: ${err?.message ?? err}`, { err });
        continue;
      }
      // One put of the whole record, after the one before it.
      writing = writing
        .then(() => call("set", recordKey(server, c), value))
        .catch((err) => warn(`the storage failed (set): ${err?.message ?? err}; the catalog may not be kept`, { err }));
    }
  }

  /** putList keeps a list value as the stores show it (a ready list only). */
  function putList(kind, v) {
    const scope = v.cacheScope === "public" ? "public" : "private";
    const other = scope === "public" ? "private" : "public";
    const entry = { items: v.items, ttlMs: v.ttlMs ?? 0, cacheScope: scope, receivedAt: v.receivedAt ?? Date.now() };
    const cur = state.lists[scope][kind];
    if (cur && cur.items === entry.items && cur.ttlMs === entry.ttlMs && cur.receivedAt === entry.receivedAt) return;
    state.lists[scope][kind] = entry;
    schedule(scope);
    if (state.lists[other][kind]) {
      delete state.lists[other][kind];
      schedule(other);
    }
  }

  /** dropList forgets a list (unsupported now). */
  function dropList(kind) {
    for (const scope of ["public", "private"]) {
      if (state.lists[scope][kind]) {
        delete state.lists[scope][kind];
        schedule(scope);
      }
    }
  }

  /** getRead returns a fresh kept result of resources/read of uri, or undefined. */
  function getRead(uri) {
    for (const scope of ["private", "public"]) {
      const e = state.reads[scope][uri];
      if (fresh(e)) return e.result;
    }
    return undefined;
  }

  /** putRead keeps a resources/read result by its caching hints (none: not kept, as it is stale at once). */
  function putRead(uri, result, receivedAt) {
    const ttlMs = typeof result?.ttlMs === "number" && result.ttlMs > 0 ? result.ttlMs : 0;
    const scope = result?.cacheScope === "public" ? "public" : "private";
    if (ttlMs === 0 || (result.resultType !== undefined && result.resultType !== "complete")) {
      dropRead(uri);
      return;
    }
    const reads = state.reads[scope];
    delete reads[uri]; // re-inserted last: the object's order is the order of use
    reads[uri] = { result, ttlMs, cacheScope: scope, receivedAt };
    // A record stays small: the oldest reads go first.
    const uris = Object.keys(reads);
    for (let i = 0; i < uris.length - MAX_READS; i++) delete reads[uris[i]];
    schedule(scope);
  }

  function dropRead(uri) {
    for (const scope of ["public", "private"]) {
      if (state.reads[scope][uri]) {
        delete state.reads[scope][uri];
        schedule(scope);
      }
    }
  }

  /**
   * putDiscover keeps the server's server/discover result (the 2026-07-28
   * era), asked for at receivedAt, in the record its cacheScope names;
   * null forgets it (a server of the legacy era now). connect hands it to
   * the next session (Options.Prior in the Go package).
   */
  function putDiscover(result, receivedAt) {
    const entry = result !== null && typeof result === "object"
      ? { result, ttlMs: num(result.ttlMs), cacheScope: result.cacheScope === "public" ? "public" : "private", receivedAt }
      : null;
    for (const scope of ["public", "private"]) {
      const keep = entry?.cacheScope === scope ? entry : null;
      if (keep === null && state.discover[scope] === null) continue;
      state.discover[scope] = keep;
      schedule(scope);
    }
  }

  function setRevision(r) {
    if (r && r !== state.revision) {
      state.revision = r;
      schedule("public");
    }
  }

  /**
   * setContext moves to another authorization context (a new token, another
   * user, a sign-out: null): the private record of the one before is removed
   * and nothing of it is kept or served any more.
   */
  function setContext(context) {
    const next = typeof context === "string" ? contextKey(context) : null;
    if (next === ctx) return;
    const old = ctx;
    ctx = next;
    state.lists.private = {};
    state.reads.private = {};
    state.discover.private = null;
    if (old !== null) {
      writing = writing.then(() => call("delete", recordKey(server, old))).catch((err) => warn(`the storage failed (delete): ${err?.message ?? err}`, { err }));
    }
  }

  return { load, putList, dropList, getRead, putRead, dropRead, putDiscover, setRevision, setContext, settled: () => writing.then(() => {}) };
}
