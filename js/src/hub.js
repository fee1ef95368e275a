// createHub: many clients of the one Go runtime as one live catalog. This
// file is its face: the options, the servers added and removed (the
// servers store, each server's client and its subscriptions), approve,
// revoke and close. Each server's lists are wrapped into its own segment
// and the merged stores are the segments side by side (hubsegments.js); a
// hub name or URI is routed to its server (hubroutes.js); the approvals
// are kept by hubapprovals.js and the names by hubnames.js. Nothing of
// this is in the wasm: it composes clients (connect.js) and their stores.

import { open } from "./connect.js";
import { createStore, createEmitter } from "./store.js";
import { KINDS } from "./kinds.js";
import { createNamer } from "./hubnames.js";
import { toolResultFor } from "./modelapis.js";
import { namedError } from "./errors.js";
import { createSegments, newSegments, fingerprint } from "./hubsegments.js";
import { createRouting } from "./hubroutes.js";
import { createApprovalBook, memoryApprovals, localStorageApprovals } from "./hubapprovals.js";

export { memoryApprovals, localStorageApprovals, fingerprint, toolResultFor };

const ID = /^[A-Za-z0-9_-]{1,32}$/;
const HUB_OPTIONS = ["clientInfo", "names", "logger", "approvals"];
const EMPTY = Object.freeze([]);

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
  let closed = false;

  const book = createApprovalBook(approvals, logger);
  const { merged, sync, clear, filter } = createSegments({ servers, namers, events, logger, approvalOf: book.of });
  const serversStore = createStore(EMPTY);
  const routes = createRouting({ servers, namers, tools: merged.tools.store });
  const { target, callTool } = routes;

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
    const srv = { id, url: p.url, client, segs: newSegments(), meta: new WeakMap(), offs: [], nameErrors: [], entry: null };
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
    for (const kind of KINDS) clear(srv, kind, namers[kind]?.remove(id) ?? new Set());
    publishServers();
    await srv.client.close();
  }

  // ---- approvals ----------------------------------------------------------

  function approve(name) {
    const { srv, name: own } = target("tools", name);
    const item = srv.segs.tools.byKey.get(own);
    book.approve(srv.url, own, item.fingerprint);
    sync(srv, "tools");
  }

  function revoke(name) {
    const { srv, name: own } = target("tools", name);
    book.revoke(srv.url, own);
    sync(srv, "tools");
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
    resolve: routes.resolve,
    callTool,
    getPrompt: routes.getPrompt,
    readResource: routes.readResource,
    subscribeResource: routes.subscribeResource,
    filter,
    approve,
    revoke,
    toolsFor: routes.toolsFor,
    runTool: routes.runTool,
    close,
  };
  if (typeof Symbol.asyncDispose === "symbol") hub[Symbol.asyncDispose] = close;
  return Object.freeze(hub);
}

function jsonEqualEntry(a, b) {
  return a.status === b.status && a.error === b.error && a.serverInfo === b.serverInfo && a.protocolVersion === b.protocolVersion && a.auth === b.auth && a.url === b.url;
}
