// Live list values: applying the Go side's list messages (wasm/lists.go)
// with structural sharing (an item whose key is not in a message's added or
// changed keeps its object, so UI frameworks re-render only what changed).

import { createStore } from "./store.js";
import { toError } from "./errors.js";
import { KEY_FIELD, KINDS } from "./kinds.js";

const EMPTY = Object.freeze([]);

/**
 * hints picks what a list value says besides its items from a message:
 * whether the server tells of changes (live) and the caching hints of the
 * last walk (2026-07-28: ttlMs, cacheScope; receivedAt, ms since the epoch).
 */
function hints(msg) {
  return { live: msg.live === true, ttlMs: msg.ttlMs ?? null, cacheScope: msg.cacheScope ?? null, receivedAt: msg.receivedAt ?? null, source: "server" };
}

function sameHints(a, b) {
  return a.live === b.live && a.ttlMs === b.ttlMs && a.cacheScope === b.cacheScope && a.receivedAt === b.receivedAt && a.source === b.source;
}

const utf8 = new TextDecoder();

/**
 * createLists holds the list of every kind and the hook the Go side hands
 * each list message to (wasm/lists.go: the bytes of its JSON in a
 * Uint8Array that Go reuses, the first length of them, or a string): the
 * message is decoded and applied to its kind's list, whose changes go to
 * events ("change"). A message that does not fit what the list holds goes
 * to onMisfit(kind), which asks Go for the whole list again; onApplied(kind),
 * when given, runs after every message.
 * @param {{ emit: (type: string, event: unknown) => void }} events
 * @param {(kind: string) => void} onMisfit
 * @param {((kind: string) => void) | null} onApplied
 */
export function createLists(events, onMisfit, onApplied) {
  const change = (ev) => events.emit("change", ev);
  const lists = Object.fromEntries(KINDS.map((kind) => [kind, createList(kind, change)]));
  const hook = (bytes, length) => {
    const msg = JSON.parse(typeof bytes === "string" ? bytes : utf8.decode(bytes.subarray(0, length)));
    if (!lists[msg.kind].apply(msg)) onMisfit(msg.kind);
    if (onApplied) onApplied(msg.kind);
  };
  return { lists, hook };
}

/**
 * createList holds one kind's store and applies messages to it. onChange
 * gets the frozen change event of every applied change of the items:
 * { kind, version, added, removed, changed, cause, latencyMs }.
 */
export function createList(kind, onChange) {
  const keyField = KEY_FIELD[kind];
  const { store, set } = createStore(
    Object.freeze({ items: EMPTY, status: "loading", error: null, version: 0, live: false, ttlMs: null, cacheScope: null, receivedAt: null, source: null }),
  );
  /** key → item object of the current items; null until a message by keys needs it */
  let byKey = new Map();
  let started = false; // the first full message arrived
  let seeded = false; // the items shown are a kept catalog's (cache.js), not yet reconciled

  /** keyMap returns byKey, made from the current items when it is not kept. */
  function keyMap(items) {
    if (byKey === null) {
      byKey = new Map();
      for (const item of items) if (!byKey.has(item[keyField])) byKey.set(item[keyField], item);
    }
    return byKey;
  }

  /**
   * apply takes one message: {kind, version, status, error, full?, keys,
   * added?, changed?, removed?, cause?, latencyMs?}, or in place of keys
   * and removed the positional form {base, seq, removedAt?} (see
   * wasm/lists.go). It returns false when the message does not fit what
   * this store holds (a key it has no item for, a position out of range,
   * a base that is not its version), so the caller can ask for the whole
   * list again: a full message, which apply diffs against what it holds
   * (cause "resync").
   */
  function apply(msg) {
    const cur = store.get();
    const error = msg.error ? toError(msg.error) : null;
    const h = hints(msg);
    if (msg.seq) return applySeq(msg, cur, error, h);
    if (!msg.keys) {
      // Status, error, liveness or caching hints alone: same items, same version.
      if (cur.status === msg.status && sameError(cur.error, error) && sameHints(cur, h)) return true;
      set(Object.freeze({ items: cur.items, status: msg.status, error, version: cur.version, ...h }));
      return true;
    }
    if (msg.full) {
      applyFull(msg, cur, error);
      return true;
    }
    if (msg.version <= cur.version) return true; // already applied

    const fresh = new Map();
    const added = freezeAll(msg.added, fresh);
    const changed = freezeAll(msg.changed, fresh);
    const held = keyMap(cur.items);
    const next = new Map();
    const items = [];
    for (const key of msg.keys) {
      const item = fresh.get(key) ?? held.get(key);
      // Not ours to guess: keep showing the last good list until the
      // whole list comes again (no half list is ever visible).
      if (item === undefined) return false;
      items.push(item);
      if (!next.has(key)) next.set(key, item);
    }
    const removed = Object.freeze((msg.removed ?? []).map((k) => held.get(k)).filter((x) => x !== undefined));
    byKey = next;
    set(Object.freeze({ items: Object.freeze(items), status: msg.status, error, version: msg.version, ...h }));
    onChange(event(msg, added, removed, changed));
    return true;
  }

  /** applySeq applies a change in the positional form. */
  function applySeq(msg, cur, error, h) {
    if (msg.version <= cur.version) return true; // already applied
    if (msg.base !== cur.version || !started) return false;
    const old = cur.items;
    const added = freezeAll(msg.added, null);
    const changed = freezeAll(msg.changed, null);
    const nAdded = added.length;
    const { seq } = msg;
    const items = [];
    for (let i = 0; i < seq.length; i++) {
      const x = seq[i];
      if (x < 0) {
        const k = -x - 1;
        const item = k < nAdded ? added[k] : changed[k - nAdded];
        if (item === undefined) return false;
        items.push(item);
        continue;
      }
      const end = x + seq[++i];
      if (!(Number.isInteger(x) && end > x && end <= old.length)) return false;
      for (let j = x; j < end; j++) items.push(old[j]);
    }
    const removed = [];
    for (const j of msg.removedAt ?? EMPTY) {
      if (!(Number.isInteger(j) && j >= 0 && j < old.length)) return false;
      removed.push(old[j]);
    }
    byKey = null; // made again when a message by keys needs it
    set(Object.freeze({ items: Object.freeze(items), status: msg.status, error, version: msg.version, ...h }));
    onChange(event(msg, added, Object.freeze(removed), changed));
    return true;
  }

  /**
   * applyFull takes a full list: the first one (no change event), or a
   * resync, diffed against what the store holds; items whose JSON did not
   * change keep their objects.
   */
  function applyFull(msg, cur, error) {
    // The first full list after a kept catalog is a reconciliation: diffed
    // against what was shown, its change event a resync.
    const first = !started && !seeded;
    if (seeded && !started) msg = { ...msg, cause: "resync" };
    started = true;
    seeded = false;
    const next = new Map();
    const items = [];
    const added = [];
    const changed = [];
    const held = keyMap(cur.items);
    for (const raw of msg.added ?? []) {
      const key = raw[keyField];
      const old = held.get(key);
      let item = old;
      if (old === undefined || !jsonEqual(old, raw)) {
        item = deepFreeze(raw);
        if (!first) (old === undefined ? added : changed).push(item);
      }
      items.push(item);
      if (!next.has(key)) next.set(key, item);
    }
    const removed = first ? [] : [...held].filter(([k]) => !next.has(k)).map(([, item]) => item);
    byKey = next;
    const same = !first && items.length === cur.items.length && items.every((it, i) => it === cur.items[i]);
    const h = hints(msg);
    if (same && msg.version === cur.version && msg.status === cur.status && sameError(cur.error, error) && sameHints(cur, h)) return;
    set(Object.freeze({ items: same ? cur.items : Object.freeze(items), status: msg.status, error, version: msg.version, ...h }));
    if (!first && !same) onChange(event(msg, Object.freeze(added), Object.freeze(removed), Object.freeze(changed)));
  }

  function event(msg, added, removed, changed) {
    return Object.freeze({
      kind,
      version: msg.version,
      added,
      removed,
      changed,
      cause: msg.cause ?? null,
      latencyMs: msg.cause === "notification" && typeof msg.latencyMs === "number" ? msg.latencyMs : null,
    });
  }

  function freezeAll(raws, into) {
    if (!raws || raws.length === 0) return EMPTY;
    const out = raws.map((raw) => {
      const item = deepFreeze(raw);
      into?.set(item[keyField], item);
      return item;
    });
    return Object.freeze(out);
  }

  /**
   * seed shows a kept catalog's items (cache.js) before the server has
   * said anything: status "stale", source "cache"; nothing once a message
   * of the server came.
   */
  function seed(entry) {
    if (started) return;
    seeded = true;
    byKey = null;
    const items = Object.freeze(entry.items.map((it) => deepFreeze(it)));
    set(Object.freeze({ items, status: "stale", error: null, version: 0, live: false, ttlMs: entry.ttlMs, cacheScope: entry.cacheScope, receivedAt: entry.receivedAt, source: "cache" }));
  }

  return { store, apply, seed };
}

function sameError(a, b) {
  if (a === null || b === null) return a === b;
  return a.name === b.name && a.message === b.message && a.code === b.code;
}

/** jsonEqual compares two parsed JSON values (member order aside). */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/** deepFreeze freezes a parsed JSON value (no cycles, no exotic objects). */
export function deepFreeze(v) {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
}
