// Live list values: applying the Go side's list messages with structural
// sharing (an item whose key is not in a message's added or changed keeps
// its object, so UI frameworks re-render only what changed).

import { createStore } from "./store.js";
import { toError } from "./errors.js";

/** The key field of each list kind, as the Go side keys them. */
export const KEY_FIELD = Object.freeze({
  tools: "name",
  prompts: "name",
  resources: "uri",
  resourceTemplates: "uriTemplate",
});

export const KINDS = Object.freeze(Object.keys(KEY_FIELD));

const EMPTY = Object.freeze([]);

/**
 * createList holds one kind's store and applies messages to it. onChange
 * gets the frozen change event of every applied change of the items.
 */
export function createList(kind, onChange) {
  const keyField = KEY_FIELD[kind];
  const { store, set } = createStore(Object.freeze({ items: EMPTY, status: "loading", error: null, version: 0 }));
  /** key → item object of the current items */
  let byKey = new Map();

  /**
   * apply takes one message: {kind, version, status, error, full?, keys?,
   * added?, changed?, removed?}. It returns false when the message does
   * not fit what this store holds (a key it has no item for), so the
   * caller can ask for a full re-list.
   */
  function apply(msg) {
    const cur = store.get();
    const error = msg.error ? toError(msg.error) : null;
    if (!msg.keys) {
      // Status or error alone: same items, same version.
      if (cur.status === msg.status && sameError(cur.error, error)) return true;
      set(Object.freeze({ items: cur.items, status: msg.status, error, version: cur.version }));
      return true;
    }
    if (!msg.full && msg.version <= cur.version) return true; // already applied

    const fresh = new Map();
    const added = freezeAll(msg.added, fresh);
    const changed = freezeAll(msg.changed, fresh);
    const next = new Map();
    const items = [];
    let ok = true;
    for (const key of msg.keys) {
      const item = fresh.get(key) ?? (msg.full ? undefined : byKey.get(key));
      if (item === undefined) {
        ok = false;
        continue;
      }
      items.push(item);
      if (!next.has(key)) next.set(key, item);
    }
    const removed = msg.full ? EMPTY : Object.freeze((msg.removed ?? []).map((k) => byKey.get(k)).filter((x) => x !== undefined));
    byKey = next;
    set(Object.freeze({ items: Object.freeze(items), status: msg.status, error, version: msg.version }));
    if (!msg.full) onChange(Object.freeze({ kind, version: msg.version, added, removed, changed }));
    return ok;
  }

  function freezeAll(raws, into) {
    if (!raws || raws.length === 0) return EMPTY;
    const out = raws.map((raw) => {
      const item = deepFreeze(raw);
      into.set(item[keyField], item);
      return item;
    });
    return Object.freeze(out);
  }

  return { store, apply };
}

function sameError(a, b) {
  if (a === null || b === null) return a === b;
  return a.message === b.message && a.code === b.code;
}

/** deepFreeze freezes a parsed JSON value (no cycles, no exotic objects). */
export function deepFreeze(v) {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
}
