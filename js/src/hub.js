// createHub: many clients of the one Go runtime as one live catalog. Each
// server's lists are wrapped (hub name, server, fingerprint, approval,
// stale) into its own segment; a change of one server's list re-wraps only
// the items whose objects changed in that server's store, and the merged
// stores are the segments side by side. Nothing of this is in the wasm: it
// composes clients (connect.js) and their stores.

import { open } from "./connect.js";
import { createStore, createEmitter } from "./store.js";
import { KEY_FIELD, KINDS, jsonEqual } from "./lists.js";
import { createNamer } from "./hubnames.js";
import { sha256, canonical } from "./hash.js";
import { checkAPI, toolFor, aiSDKTool, callOf, toolResultFor } from "./modelapis.js";
import { namedError } from "./errors.js";

const ID = /^[A-Za-z0-9_-]{1,32}$/;
const HUB_OPTIONS = ["clientInfo", "names", "logger", "approvals"];
const EMPTY = Object.freeze([]);

/** What a fingerprint covers, per kind: what a model or user relies on. */
const PRINTED = {
  tools: ["name", "title", "description", "inputSchema", "outputSchema", "annotations"],
  prompts: ["name", "title", "description", "arguments"],
  resources: ["uri", "name", "title", "description", "mimeType"],
  resourceTemplates: ["uriTemplate", "name", "title", "description", "mimeType"],
};

/** memoryApprovals keeps approvals in this realm only (the default). */
export function memoryApprovals() {
  const m = new Map();
  return Object.freeze({ get: (k) => m.get(k), set: (k, v) => void m.set(k, v), delete: (k) => void m.delete(k) });
}

/** localStorageApprovals keeps approvals in the origin's localStorage, under prefix + key. */
export function localStorageApprovals({ prefix = "mcplive-approval:" } = {}) {
  const area = () => {
    if (!globalThis.localStorage) throw new Error("mcplive: localStorage is not available in this runtime");
    return globalThis.localStorage;
  };
  return Object.freeze({
    get: (k) => area().getItem(prefix + k) ?? undefined,
    set: (k, v) => area().setItem(prefix + k, v),
    delete: (k) => area().removeItem(prefix + k),
  });
}

/** fingerprint is the SHA-256 of the canonical JSON of what PRINTED names. */
export function fingerprint(kind, raw) {
  const o = {};
  for (const k of PRINTED[kind]) if (raw[k] !== undefined) o[k] = raw[k];
  return sha256(canonical(o));
}

export function createHub(options = {}) {
  if (options === null || typeof options !== "object") throw new TypeError("mcplive: createHub options must be an object");
  for (const k of Object.keys(options)) {
    if (!HUB_OPTIONS.includes(k)) throw new TypeError(`mcplive: unknown option ${JSON.stringify(k)} in createHub options (known: ${HUB_OPTIONS.join(", ")})`);
  }
  const { clientInfo, names, logger, approvals = memoryApprovals() } = options;
  if (names !== undefined && typeof names !== "function") throw new TypeError("mcplive: createHub: names must be a function (id, name, kind) => string");
  if (!approvals || ["get", "set", "delete"].some((m) => typeof approvals[m] !== "function")) {
    throw new TypeError("mcplive: createHub: approvals must be an object with get(key), set(key, value), delete(key) (memoryApprovals(), localStorageApprovals())");
  }

  const events = createEmitter(["change"]);
  const namers = { tools: createNamer("tools", names), prompts: createNamer("prompts", names) };
  /** id → server state, in the order added */
  const servers = new Map();
  /** id → { id, url, abort } of an add in progress */
  const pending = new Map();
  let filterFn = null;
  let closed = false;

  const merged = Object.fromEntries(
    KINDS.map((kind) => {
      const { store, set } = createStore(Object.freeze({ items: EMPTY, status: "ready", error: null, version: 0 }));
      return [kind, { store, set }];
    }),
  );
  const serversStore = createStore(EMPTY);

  // ---- approvals ----------------------------------------------------------

  // Keyed by a hash of the server URL and the tool name: a URL may carry
  // credentials (a query's token, userinfo), which storage must not keep.
  const approvalKey = (url, name) => sha256(`mcplive-approval\n${url}\n${name}`);
  // The key of approvals kept before (the raw URL and name): moved to the hashed key on first read.
  const legacyKey = (url, name) => `${url} ${name}`;
  function approvalOf(srv, raw, fp) {
    let v;
    try {
      v = approvals.get(approvalKey(srv.url, raw.name));
      if (v === undefined || v === null) {
        const old = approvals.get(legacyKey(srv.url, raw.name));
        if (old !== undefined && old !== null) {
          approvals.set(approvalKey(srv.url, raw.name), old);
          approvals.delete(legacyKey(srv.url, raw.name));
          v = old;
        }
      }
    } catch (err) {
      logger?.warn?.("mcplive: hub: reading an approval failed", { server: srv.id, tool: raw.name, err });
    }
    if (v === undefined || v === null) return "none";
    return v === fp ? "approved" : "changed";
  }

  // ---- one server's segment of one kind -----------------------------------

  function isStale(srv, value) {
    return value.status === "stale" || srv.client.status.get() !== "ready";
  }

  /** wrap makes the hub's item of a server's item. */
  function wrap(srv, kind, raw, hubName, stale, fp) {
    const extra = { server: srv.id, fingerprint: fp };
    if (kind === "tools" || kind === "prompts") Object.assign(extra, { name: hubName, serverName: raw.name });
    if (kind === "tools") extra.approval = approvalOf(srv, raw, fp);
    extra.stale = stale;
    return Object.freeze({ ...raw, ...extra });
  }

  /**
   * sync publishes server srv's kind from its client's store. Its names
   * come first: a name of srv's that clashes with another server's renames
   * items of that server too (both take suffixes, or one gets its plain
   * name back), so every server whose names changed is re-wrapped before
   * the merged store is set, once: no value of it ever shows a name that
   * resolve does not map back. also: more servers whose names changed
   * already (register's names-first check). Each server whose segment
   * changed gets its own change event, all of them at the same version.
   */
  function sync(srv, kind, also) {
    const namer = namers[kind];
    const touched = [srv];
    if (namer) {
      const ids = new Set([srv.id]);
      const queue = [srv.id, ...(also ?? [])];
      // A renamed server's names are brought up to date with its own store
      // too (a no-op when the namer holds them already), so the loop ends.
      while (queue.length) {
        const id = queue.shift();
        const s = servers.get(id);
        if (!s) continue;
        if (!ids.has(id)) (ids.add(id), touched.push(s));
        const { renamed, errors } = namer.update(id, s.client[kind].get().items.map((i) => i.name));
        for (const err of errors) {
          s.nameErrors.push(err);
          logger?.error?.(err.message, { server: id, kind });
        }
        for (const other of renamed) if (!ids.has(other)) queue.push(other);
      }
    }
    const diffs = [];
    for (const s of touched) diffs.push(segment(s, kind));
    commit(kind, diffs);
  }

  /**
   * segment re-wraps server srv's items of kind from its client's store and
   * sets its visible segment: items whose object, hub name, staleness and
   * approval are unchanged keep their hub item. It returns the diff against
   * what the segment showed before (the merged store is not set here).
   */
  function segment(srv, kind) {
    const value = srv.client[kind].get();
    const seg = srv.segs[kind];
    const namer = namers[kind];
    const stale = isStale(srv, value);
    const keyField = KEY_FIELD[kind];
    const all = [];
    const byKey = new Map();
    for (const raw of value.items) {
      const key = raw[keyField];
      if (byKey.has(key)) continue;
      const hubName = namer ? namer.get(srv.id, raw.name) : undefined;
      if (namer && hubName === undefined) continue; // refused by names(): left out
      const prev = seg.byKey.get(key);
      const m = prev && srv.meta.get(prev);
      const fp = m && m.raw === raw ? m.fp : fingerprint(kind, raw);
      let item = prev;
      if (!(m && m.raw === raw && prev.stale === stale && (!namer || prev.name === hubName) && (kind !== "tools" || prev.approval === approvalOf(srv, raw, fp)))) {
        item = wrap(srv, kind, raw, hubName, stale, fp);
        srv.meta.set(item, { raw, fp });
      }
      byKey.set(key, item);
      all.push(item);
    }
    seg.byKey = byKey;
    seg.status = value.status;
    seg.error = value.error;
    return setVisible(srv, kind, filterFn ? all.filter((i) => filterFn(i, kind)) : all);
  }

  /** setVisible sets a server's visible segment; returns its diff. */
  function setVisible(srv, kind, visible) {
    const seg = srv.segs[kind];
    const keyField = KEY_FIELD[kind];
    const before = new Map(seg.visible.map((i) => [i[keyField], i]));
    const added = [];
    const changed = [];
    const seen = new Set();
    for (const item of visible) {
      const k = item[keyField];
      seen.add(k);
      const prev = before.get(k);
      if (prev === undefined) added.push(item);
      else if (prev !== item) changed.push(Object.freeze({ item, previous: prev, fields: Object.freeze(fieldsChanged(prev, item)) }));
    }
    const removed = seg.visible.filter((i) => !seen.has(i[keyField]));
    const reordered = !added.length && !removed.length && !changed.length && visible.some((i, n) => i !== seg.visible[n]);
    seg.visible = visible;
    return { server: srv.id, added, removed, changed, itemsChanged: Boolean(added.length || removed.length || changed.length || reordered) };
  }

  /** commit sets the merged store of kind once for the segments' diffs, then sends one change event per server that changed. */
  function commit(kind, diffs) {
    republish(kind, diffs.some((d) => d.itemsChanged));
    const { version } = merged[kind].store.get();
    for (const { server, added, removed, changed } of diffs) {
      if (!added.length && !removed.length && !changed.length) continue;
      events.emit("change", Object.freeze({ kind, server, version, added: Object.freeze(added), removed: Object.freeze(removed), changed: Object.freeze(changed) }));
    }
  }

  /** republish sets a merged store from the segments (items only when they changed). */
  function republish(kind, itemsChanged) {
    const cur = merged[kind].store.get();
    let status = "ready";
    let error = null;
    let any = false;
    let supported = servers.size === 0;
    for (const srv of servers.values()) {
      const seg = srv.segs[kind];
      any = true;
      if (seg.status !== "unsupported") supported = true;
      if (seg.status === "error" && status !== "error") (status = "error"), (error = seg.error);
      else if ((seg.status === "stale" || seg.status === "loading" || srv.client.status.get() !== "ready") && status === "ready") status = "stale";
    }
    if (any && !supported) status = "unsupported";
    let items = cur.items;
    let version = cur.version;
    if (itemsChanged) {
      const parts = [];
      for (const srv of servers.values()) parts.push(srv.segs[kind].visible);
      items = Object.freeze(parts.flat());
      version++;
    }
    if (items === cur.items && status === cur.status && error === cur.error) return;
    merged[kind].set(Object.freeze({ items, status, error, version }));
  }

  // ---- servers ------------------------------------------------------------

  function serverEntry(srv) {
    const c = srv.client;
    const auth = c.auth ? c.auth.get() : null;
    let status = c.status.get();
    if (auth && (auth.status === "needs-authorization" || auth.status === "authorizing") && status !== "closed") status = "unauthorized";
    let error = srv.nameErrors.at(-1) ?? auth?.error ?? null;
    for (const kind of KINDS) error ??= srv.segs[kind].error ?? null;
    return Object.freeze({ id: srv.id, url: srv.url, status, error, serverInfo: c.serverInfo, protocolVersion: c.protocolVersion, auth });
  }

  function publishServers() {
    const list = [];
    for (const p of pending.values()) if (!servers.has(p.id)) list.push(p.entry);
    for (const srv of servers.values()) {
      const e = serverEntry(srv);
      const prev = srv.entry;
      srv.entry = prev && jsonEqualEntry(prev, e) ? prev : e;
      list.push(srv.entry);
    }
    const cur = serversStore.store.get();
    if (list.length === cur.length && list.every((e, i) => e === cur[i])) return;
    serversStore.set(Object.freeze(list));
  }

  function checkId(id) {
    if (typeof id !== "string" || !ID.test(id)) throw new TypeError(`mcplive: hub: a server id must match ${ID} (the app's short name for it), got ${JSON.stringify(id)}`);
  }

  async function add(id, url, opts = {}) {
    if (closed) throw namedError("ClosedError", "mcplive: the hub is closed");
    checkId(id);
    if (servers.has(id) || pending.has(id)) throw new TypeError(`mcplive: hub: there is a server ${JSON.stringify(id)} already (remove it first)`);
    if (opts === null || typeof opts !== "object") throw new TypeError("mcplive: hub.add: the options must be an object");
    const ac = new AbortController();
    const outer = opts.signal;
    if (outer?.aborted) throw outer.reason ?? namedError("AbortError", "the operation was aborted");
    const onAbort = () => ac.abort(outer.reason);
    outer?.addEventListener?.("abort", onAbort, { once: true });
    const p = { id, url: String(url), ac, entry: Object.freeze({ id, url: String(url), status: "connecting", error: null, serverInfo: null, protocolVersion: null, auth: null }) };
    pending.set(id, p);
    publishServers();
    let client;
    let early = null; // the server, registered before its first sync to show its kept catalog
    try {
      const o = { ...opts, signal: ac.signal };
      if (clientInfo !== undefined && o.clientInfo === undefined) o.clientInfo = clientInfo;
      if (logger !== undefined && o.logger === undefined) o.logger = logger;
      client = open(url, o);
      // A kept catalog (the cache option) joins the hub's lists at once,
      // stale, as a lone client shows it; the first sync reconciles it.
      if ((await keptCatalogFirst(client)) && pending.get(id) === p && !closed) early = register(p, client);
      await client.ready;
    } catch (err) {
      if (early && servers.get(id) === early) await unregister(early).catch(() => {});
      else client?.close().catch(() => {});
      if (pending.get(id) === p) pending.delete(id);
      publishServers();
      throw err;
    } finally {
      outer?.removeEventListener?.("abort", onAbort);
    }
    if (early) {
      if (servers.get(id) !== early) throw namedError("AbortError", `mcplive: hub: the server ${JSON.stringify(id)} was removed while connecting`);
      publishServers();
      return client;
    }
    if (pending.get(id) !== p || closed) {
      // removed (or the hub closed) while connecting
      client.close().catch(() => {});
      throw namedError("AbortError", `mcplive: hub: the server ${JSON.stringify(id)} was removed while connecting`);
    }
    register(p, client);
    return client;
  }

  /**
   * keptCatalogFirst resolves true when one of client's lists shows a kept
   * catalog (source "cache") before its first sync ends, false when the
   * sync ends (or fails) first.
   */
  function keptCatalogFirst(client) {
    return new Promise((resolve) => {
      const offs = KINDS.map((k) => client[k].subscribe((v) => v.source === "cache" && resolve(true)));
      const done = () => {
        for (const off of offs) off();
        resolve(false);
      };
      client.ready.then(done, done);
    });
  }

  /**
   * register adds a connected (or connecting) client to the hub as server
   * p.id: its names first (with a names() option, a clash refuses the
   * server whole: it is closed and the clash thrown), then its lists.
   */
  function register(p, client) {
    const { id } = p;
    const srv = { id, url: p.url, client, segs: {}, meta: new WeakMap(), offs: [], nameErrors: [], entry: null };
    for (const kind of KINDS) srv.segs[kind] = { byKey: new Map(), visible: EMPTY, status: "loading", error: null };
    // Names first: with a names() option, a clash refuses the server whole.
    const errors = [];
    const renamed = {};
    for (const kind of ["tools", "prompts"]) {
      const r = namers[kind].update(id, client[kind].get().items.map((i) => i.name));
      errors.push(...r.errors);
      renamed[kind] = r.renamed;
    }
    if (errors.length) {
      for (const kind of ["tools", "prompts"]) namers[kind].remove(id);
      pending.delete(id);
      publishServers();
      client.close().catch(() => {});
      throw errors[0];
    }
    pending.delete(id);
    servers.set(id, srv);
    for (const kind of KINDS) {
      srv.offs.push(client[kind].listen(() => sync(srv, kind)));
    }
    const onStatus = () => {
      for (const kind of KINDS) sync(srv, kind);
      publishServers();
    };
    srv.offs.push(client.status.listen(onStatus));
    if (client.auth) srv.offs.push(client.auth.listen(() => publishServers()));
    // The servers that the new names renamed are re-wrapped with it.
    for (const kind of KINDS) sync(srv, kind, renamed[kind]);
    publishServers();
    return srv;
  }

  async function remove(id) {
    checkId(id);
    const p = pending.get(id);
    if (p) {
      pending.delete(id);
      p.ac.abort(namedError("AbortError", `mcplive: hub: the server ${JSON.stringify(id)} was removed while connecting`));
      publishServers();
      return;
    }
    const srv = servers.get(id);
    if (srv) await unregister(srv);
  }

  /**
   * unregister takes srv's items out of the hub's lists (one change per
   * kind, with the renames it causes: a server whose name was suffixed
   * only because of srv's gets its plain name back in the same merged
   * value), then closes its client.
   */
  async function unregister(srv) {
    const { id } = srv;
    for (const off of srv.offs) off();
    servers.delete(id);
    for (const kind of KINDS) {
      const renamed = namers[kind]?.remove(id) ?? new Set();
      srv.segs[kind].byKey = new Map();
      const diffs = [setVisible(srv, kind, EMPTY)];
      for (const other of renamed) if (servers.has(other)) diffs.push(segment(servers.get(other), kind));
      commit(kind, diffs);
    }
    publishServers();
    await srv.client.close();
  }

  // ---- routing ------------------------------------------------------------

  function resolve(name) {
    for (const kind of ["tools", "prompts"]) {
      const r = namers[kind].resolve(name);
      if (r && servers.has(r.server)) return Object.freeze({ server: r.server, name: r.name });
    }
    return undefined;
  }

  function target(kind, name) {
    const r = typeof name === "string" ? namers[kind].resolve(name) : undefined;
    const srv = r && servers.get(r.server);
    if (!srv) throw namedError("NotFoundError", `mcplive: hub: no ${kind.slice(0, -1)} is named ${JSON.stringify(name)} in the hub`);
    return { srv, name: r.name };
  }

  function callTool(name, args, opts) {
    try {
      const { srv, name: own } = target("tools", name);
      const item = srv.segs.tools.byKey.get(own);
      if (item?.approval === "changed") {
        throw namedError("ApprovalError", `mcplive: hub: the tool ${JSON.stringify(name)} changed since it was approved (description, schemas or annotations): approve it again`);
      }
      return srv.client.callTool(own, args, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  function getPrompt(name, args, opts) {
    try {
      const { srv, name: own } = target("prompts", name);
      return srv.client.getPrompt(own, args, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** serverFor picks the server of a URI: the one given, the one that lists it, or the one whose template matches. */
  function serverFor(uri, server) {
    const u = String(uri);
    if (server !== undefined) {
      const srv = servers.get(server);
      if (!srv) throw new TypeError(`mcplive: hub: no server ${JSON.stringify(server)} in the hub`);
      return srv;
    }
    const listing = [...servers.values()].filter((s) => s.segs.resources.byKey.has(u));
    if (listing.length === 1) return listing[0];
    if (listing.length > 1) throw new TypeError(`mcplive: hub: the servers ${listing.map((s) => JSON.stringify(s.id)).join(", ")} all list ${u}: pass { server }`);
    const matching = [...servers.values()].filter((s) => [...s.segs.resourceTemplates.byKey.keys()].some((t) => templateMatches(t, u)));
    if (matching.length === 1) return matching[0];
    if (servers.size === 1) return servers.values().next().value;
    throw new TypeError(`mcplive: hub: ${matching.length ? "several servers' templates match" : "no server lists"} ${u}: pass { server }`);
  }

  function splitServer(opts) {
    if (opts === undefined || opts === null) return { server: undefined, rest: undefined };
    const { server, ...rest } = opts;
    return { server, rest: Object.keys(rest).length ? rest : undefined };
  }

  function readResource(uri, opts) {
    try {
      const { server, rest } = splitServer(opts);
      return serverFor(uri, server).client.readResource(String(uri), rest);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  function subscribeResource(uri, fn, opts) {
    const { server, rest } = splitServer(opts);
    return serverFor(uri, server).client.subscribeResource(String(uri), fn, rest);
  }

  // ---- filters, approvals, model APIs ------------------------------------

  function filter(spec) {
    filterFn = spec == null ? null : toFilter(spec);
    for (const srv of servers.values()) for (const kind of KINDS) sync(srv, kind);
  }

  function approve(name) {
    const { srv, name: own } = target("tools", name);
    const item = srv.segs.tools.byKey.get(own);
    approvals.set(approvalKey(srv.url, own), item.fingerprint);
    sync(srv, "tools");
  }

  function revoke(name) {
    const { srv, name: own } = target("tools", name);
    approvals.delete(approvalKey(srv.url, own));
    approvals.delete(legacyKey(srv.url, own));
    sync(srv, "tools");
  }

  /** One memo per API: the same tool list until the merged tools change. */
  const memo = new Map();
  function toolsFor(api) {
    checkAPI(api);
    const value = merged.tools.store.get();
    const hit = memo.get(api);
    if (hit && hit.value === value) return hit.out;
    const offered = value.items.filter((i) => i.approval !== "changed");
    let out;
    if (api === "ai-sdk") {
      out = {};
      for (const item of offered) out[item.name] = aiSDKTool(item, callTool);
      out = Object.freeze(out);
    } else {
      out = Object.freeze(offered.map((i) => toolFor(api, i)));
    }
    memo.set(api, { value, out });
    return out;
  }

  async function runTool(api, call, opts) {
    const { id, name, args } = callOf(api, call);
    let result;
    try {
      result = await callTool(name, args, opts);
    } catch (err) {
      if (err?.name === "AbortError") throw err;
      result = { content: [{ type: "text", text: err?.message ?? String(err) }], isError: true };
    }
    return toolResultFor(api, result, id);
  }

  async function close() {
    if (closed) return;
    closed = true;
    for (const p of pending.values()) p.ac.abort(namedError("AbortError", "mcplive: the hub was closed"));
    pending.clear();
    const clients = [...servers.values()].map((s) => s.client);
    await Promise.allSettled(clients.map((c) => c.close()));
    publishServers();
  }

  const hub = {
    tools: merged.tools.store,
    prompts: merged.prompts.store,
    resources: merged.resources.store,
    resourceTemplates: merged.resourceTemplates.store,
    servers: serversStore.store,
    get ids() {
      return [...servers.keys()];
    },
    client: (id) => servers.get(id)?.client,
    on: events.on,
    add,
    remove,
    resolve,
    callTool,
    getPrompt,
    readResource,
    subscribeResource,
    filter,
    approve,
    revoke,
    toolsFor,
    runTool,
    close,
  };
  if (typeof Symbol.asyncDispose === "symbol") hub[Symbol.asyncDispose] = close;
  return Object.freeze(hub);
}

export { toolResultFor };

function fieldsChanged(a, b) {
  const out = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === "fingerprint") continue;
    if (!jsonEqual(a[k] ?? null, b[k] ?? null)) out.push(k);
  }
  return out;
}

function jsonEqualEntry(a, b) {
  return a.status === b.status && a.error === b.error && a.serverInfo === b.serverInfo && a.protocolVersion === b.protocolVersion && a.auth === b.auth && a.url === b.url;
}

/** toFilter makes the predicate of hub.filter's argument. */
function toFilter(spec) {
  if (typeof spec === "function") return spec;
  if (typeof spec !== "object") throw new TypeError("mcplive: hub.filter takes { server?, include?, exclude? }, a function (item, kind) => boolean, or null");
  const list = (v, what) => {
    if (v === undefined) return null;
    const a = Array.isArray(v) ? v : [v];
    for (const x of a) if (typeof x !== "string" && !(x instanceof RegExp)) throw new TypeError(`mcplive: hub.filter: ${what} takes strings and RegExps`);
    return a;
  };
  const servers = list(spec.server, "server");
  const include = list(spec.include, "include");
  const exclude = list(spec.exclude, "exclude");
  const hit = (pats, item) => {
    const names = [item.name, item.serverName, item.uri, item.uriTemplate].filter((x) => typeof x === "string");
    return pats.some((p) => names.some((n) => (typeof p === "string" ? globMatch(p, n) : p.test(n))));
  };
  return (item) => {
    if (servers && !servers.some((s) => (typeof s === "string" ? s === item.server : s.test(item.server)))) return false;
    if (include && !hit(include, item)) return false;
    if (exclude && hit(exclude, item)) return false;
    return true;
  };
}

/** globMatch: a string pattern matches exactly, with "*" as any run of characters. */
function globMatch(p, s) {
  if (!p.includes("*")) return p === s;
  const re = new RegExp(`^${p.split("*").map((x) => x.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return re.test(s);
}

/** templateMatches tells whether uri fits an RFC 6570 template (its variables as any text). */
function templateMatches(template, uri) {
  const re = template
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith("{") ? (/^\{[+#]/.test(part) ? ".*" : "[^/?#]*") : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${re}$`).test(uri);
}

