// The hub's segments and their merging (hub.js is the face): each server's
// lists are wrapped (hub name, server, fingerprint, approval, stale) into
// its own segment; a change of one server's list re-wraps only the items
// whose objects changed in that server's store, and the merged stores are
// the segments side by side, in the order the servers were added.

import { createStore } from "./store.js";
import { KEY_FIELD, KINDS } from "./kinds.js";
import { jsonEqual } from "./lists.js";
import { sha256, canonical } from "./hash.js";

const EMPTY = Object.freeze([]);

/** What a fingerprint covers, per kind: what a model or user relies on. */
const PRINTED = {
  tools: ["name", "title", "description", "inputSchema", "outputSchema", "annotations"],
  prompts: ["name", "title", "description", "arguments"],
  resources: ["uri", "name", "title", "description", "mimeType"],
  resourceTemplates: ["uriTemplate", "name", "title", "description", "mimeType"],
};

/** fingerprint is the SHA-256 of the canonical JSON of what PRINTED names. */
export function fingerprint(kind, raw) {
  const o = {};
  for (const k of PRINTED[kind]) if (raw[k] !== undefined) o[k] = raw[k];
  return sha256(canonical(o));
}

/** newSegments is a new server's empty segment of every kind. */
export function newSegments() {
  const segs = {};
  for (const kind of KINDS) segs[kind] = { byKey: new Map(), visible: EMPTY, status: "loading", error: null };
  return segs;
}

/**
 * createSegments keeps the merged store of every kind (merged[kind]: {
 * store, set }) from the segments of the hub's servers (id → server state,
 * in the order added), named by namers (hubnames.js, tools and prompts),
 * the approvals of tools read with approvalOf (hubapprovals.js), each
 * change of a server's segment sent to events ("change"). sync(srv, kind)
 * publishes a server's kind from its client's store; clear(srv, kind) takes
 * a removed server's out; filter(spec) sets hub.filter's predicate.
 */
export function createSegments({ servers, namers, events, logger, approvalOf }) {
  let filterFn = null;
  const merged = Object.fromEntries(
    KINDS.map((kind) => {
      const { store, set } = createStore(Object.freeze({ items: EMPTY, status: "ready", error: null, version: 0 }));
      return [kind, { store, set }];
    }),
  );

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

  /**
   * clear takes srv's items of kind out of the merged store (srv is out of
   * servers already), with the servers its removal renamed re-wrapped in
   * the same merged value: one change.
   */
  function clear(srv, kind, renamed) {
    srv.segs[kind].byKey = new Map();
    const diffs = [setVisible(srv, kind, EMPTY)];
    for (const other of renamed) if (servers.has(other)) diffs.push(segment(servers.get(other), kind));
    commit(kind, diffs);
  }

  /** filter sets hub.filter's predicate (null: none) and re-wraps every segment. */
  function filter(spec) {
    filterFn = spec == null ? null : toFilter(spec);
    for (const srv of servers.values()) for (const kind of KINDS) sync(srv, kind);
  }

  return { merged, sync, clear, filter };
}

function fieldsChanged(a, b) {
  const out = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === "fingerprint") continue;
    if (!jsonEqual(a[k] ?? null, b[k] ?? null)) out.push(k);
  }
  return out;
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
