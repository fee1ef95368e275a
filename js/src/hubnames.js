// Hub names (hub.js): one namespace per kind (tools, prompts) across the
// servers of a hub. A name must fit what the model APIs accept; resolve maps
// a hub name back through the table, never by parsing it.

import { fnv1a } from "./hash.js";

/** What the OpenAI and Anthropic tool APIs accept as a tool name. */
export const HUB_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX = 64;
const SUFFIX = 9; // "_" + 8 hex digits

const sanitize = (s) => s.replace(/[^a-zA-Z0-9_-]/g, "_");
const keyOf = (id, name) => `${id}\n${name}`; // an id has no line break

/**
 * createNamer keeps the hub names of one kind. Default names are
 * `<id>__<name>` with characters outside HUB_NAME's set made `_`; a name
 * too long after that, or one that clashes, gets `_` and 8 hex digits of a
 * hash of (id, name). In a clash, the one name that needed no change keeps
 * the plain name (so a tool named `a_b` is not renamed when a tool `a.b`
 * appears beside it); if none or several did, all take suffixes. The result
 * depends only on the set of (id, name) pairs, never on the order they came
 * in. custom(id, name, kind), when given, replaces this; its results must
 * fit HUB_NAME and be unique.
 */
export function createNamer(kind, custom) {
  /** id → Map(server name → hub name) */
  const byServer = new Map();
  /** hub name → { server, name } */
  const byHub = new Map();
  /** default naming: base → Map(key → { id, name, exact }) */
  const groups = new Map();

  const get = (id, name) => byServer.get(id)?.get(name);
  const resolve = (hub) => byHub.get(hub);

  function suffixed(base, id, name, salt = "") {
    return `${base.slice(0, MAX - SUFFIX)}_${fnv1a(`${id}\0${name}${salt}`)}`;
  }

  /** assignGroup names every member of one base's group; returns the ids whose names changed. */
  function assignGroup(base, changedIds) {
    const members = groups.get(base);
    if (!members) return;
    const list = [...members.values()];
    const exact = list.filter((m) => m.exact);
    const plain = base.length <= MAX && (list.length === 1 || exact.length === 1) ? (list.length === 1 ? list[0] : exact[0]) : null;
    // Free the group's names first: one member's old name may be another's new one.
    for (const m of list) {
      const old = byServer.get(m.id)?.get(m.name);
      if (old !== undefined && byHub.get(old)?.key === m.key) byHub.delete(old);
    }
    for (const m of list) {
      let hub = m === plain ? base : suffixed(base, m.id, m.name);
      // A suffixed name that another item holds already (vanishingly rare): salt it.
      for (let salt = 1; m !== plain && byHub.has(hub) && byHub.get(hub).key !== m.key; salt++) hub = suffixed(base, m.id, m.name, `\0${salt}`);
      set(m.id, m.name, m.key, hub, changedIds);
    }
  }

  function set(id, name, key, hub, changedIds) {
    let names = byServer.get(id);
    if (!names) byServer.set(id, (names = new Map()));
    const old = names.get(name);
    if (old !== undefined && old !== hub && byHub.get(old)?.key === key) byHub.delete(old);
    names.set(name, hub);
    byHub.set(hub, Object.freeze({ server: id, name, key }));
    if (old !== hub) changedIds?.add(id);
  }

  function drop(id, name) {
    const names = byServer.get(id);
    const hub = names?.get(name);
    if (hub === undefined) return;
    names.delete(name);
    if (byHub.get(hub)?.key === keyOf(id, name)) byHub.delete(hub);
  }

  /**
   * update sets server id's names to names (its whole list). It returns {
   * renamed, errors }: the other servers whose hub names changed (they must
   * be published again), and the names custom refused (left out of the
   * table: an item without a hub name is not published).
   */
  function update(id, names) {
    const held = byServer.get(id) ?? new Map();
    const next = new Set(names);
    const gone = [...held.keys()].filter((n) => !next.has(n));
    const fresh = [...next].filter((n) => !held.has(n));
    const renamed = new Set();
    const errors = [];
    if (custom) {
      for (const n of gone) drop(id, n);
      for (const n of fresh) {
        let hub;
        try {
          hub = custom(id, n, kind);
        } catch (err) {
          errors.push(err);
          continue;
        }
        if (typeof hub !== "string" || !HUB_NAME.test(hub)) {
          errors.push(new TypeError(`mcplive: hub: names(${JSON.stringify(id)}, ${JSON.stringify(n)}) gave ${JSON.stringify(hub)}, which does not fit ${HUB_NAME}`));
          continue;
        }
        const holder = byHub.get(hub);
        if (holder) {
          errors.push(new Error(`mcplive: hub: names gave ${JSON.stringify(hub)} to the ${kind.slice(0, -1)} ${JSON.stringify(n)} of ${JSON.stringify(id)} and to ${JSON.stringify(holder.name)} of ${JSON.stringify(holder.server)}`));
          continue;
        }
        set(id, n, keyOf(id, n), hub, null);
      }
      return { renamed, errors };
    }
    const touched = new Set();
    for (const n of gone) {
      const base = sanitize(`${id}__${n}`);
      groups.get(base)?.delete(keyOf(id, n));
      if (groups.get(base)?.size === 0) groups.delete(base);
      drop(id, n);
      touched.add(base);
    }
    for (const n of fresh) {
      const raw = `${id}__${n}`;
      const base = sanitize(raw);
      const key = keyOf(id, n);
      if (!groups.has(base)) groups.set(base, new Map());
      groups.get(base).set(key, { id, name: n, key, exact: base === raw });
      touched.add(base);
    }
    for (const base of touched) assignGroup(base, renamed);
    renamed.delete(id);
    return { renamed, errors };
  }

  /** remove drops a server's names; returns the other servers whose names changed. */
  const remove = (id) => {
    const { renamed } = update(id, []);
    byServer.delete(id);
    return renamed;
  };

  return { get, resolve, update, remove };
}
