// lists.js alone: the messages the Go side sends (wasm/lists.go), applied
// without wasm or server. Also the client's mismatch → resync path, with a
// fake Go runtime standing in for the wasm.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createList, jsonEqual } from "../src/lists.js";
import { createClient } from "../src/client.js";

const tool = (name, description = "") => ({ name, description, inputSchema: { type: "object" } });
// What JSON.parse of a Go message gives: fresh objects each time.
const copy = (v) => JSON.parse(JSON.stringify(v));

function full(version, items, extra = {}) {
  return copy({ kind: "tools", version, status: "ready", error: null, full: true, keys: items.map((t) => t.name), added: items, cause: "initial", latencyMs: null, ...extra });
}

function diff(version, keys, { added = [], changed = [], removed = [], cause = "notification", latencyMs = 3.5 } = {}) {
  return copy({ kind: "tools", version, status: "ready", error: null, keys, added, changed, removed, cause, latencyMs });
}

function seqMsg(version, base, seq, { added = [], changed = [], removedAt = [], cause = "notification", latencyMs = 3.5 } = {}) {
  return copy({ kind: "tools", version, status: "ready", error: null, base, seq, added, changed, removedAt, cause, latencyMs });
}

function newList() {
  const events = [];
  const list = createList("tools", (ev) => events.push(ev));
  return { ...list, events };
}

describe("createList", () => {
  test("starts loading and empty; the first full message is no change event", () => {
    const l = newList();
    assert.deepEqual(l.store.get(), { items: [], status: "loading", error: null, version: 0, live: false, ttlMs: null, cacheScope: null, receivedAt: null, source: null });
    assert.ok(l.apply(full(1, [tool("a"), tool("b")])));
    const v = l.store.get();
    assert.deepEqual(v.items.map((t) => t.name), ["a", "b"]);
    assert.equal(v.version, 1);
    assert.equal(v.status, "ready");
    assert.ok(Object.isFrozen(v) && Object.isFrozen(v.items) && Object.isFrozen(v.items[0].inputSchema));
    assert.deepEqual(l.events, []);
  });

  test("a change: unchanged items keep their identity; one frozen event with cause and latency", () => {
    const l = newList();
    l.apply(full(1, [tool("a"), tool("b"), tool("c")]));
    const before = l.store.get();
    const [a, b, c] = before.items;
    assert.ok(l.apply(diff(2, ["a", "b", "d"], { added: [tool("d")], changed: [tool("b", "new")], removed: ["c"] })));
    const after = l.store.get();
    assert.equal(after.version, 2);
    assert.equal(after.items[0], a, "a kept its object");
    assert.notEqual(after.items[1], b);
    assert.equal(after.items[1].description, "new");
    assert.equal(l.events.length, 1);
    const ev = l.events[0];
    assert.ok(Object.isFrozen(ev));
    assert.deepEqual(
      { kind: ev.kind, version: ev.version, cause: ev.cause, latencyMs: ev.latencyMs },
      { kind: "tools", version: 2, cause: "notification", latencyMs: 3.5 },
    );
    assert.equal(ev.added[0], after.items[2], "the event's items are the store's objects");
    assert.equal(ev.changed[0], after.items[1]);
    assert.deepEqual(ev.removed, [c], "removed holds the object the store had");
  });

  test("latencyMs is null unless the cause is a notification", () => {
    const l = newList();
    l.apply(full(1, [tool("a")]));
    l.apply(diff(2, ["a", "b"], { added: [tool("b")], cause: "reconnect", latencyMs: 12 }));
    l.apply(diff(3, ["a"], { removed: ["b"], cause: "refresh", latencyMs: null }));
    assert.deepEqual(l.events.map((e) => [e.cause, e.latencyMs]), [["reconnect", null], ["refresh", null]]);
  });

  test("a pure reordering: new items, version + 1, an empty diff", () => {
    const l = newList();
    l.apply(full(1, [tool("a"), tool("b")]));
    const [a, b] = l.store.get().items;
    l.apply(diff(2, ["b", "a"]));
    assert.deepEqual(l.store.get().items, [b, a]);
    assert.equal(l.store.get().items[0], b);
    assert.deepEqual([l.events[0].added, l.events[0].removed, l.events[0].changed], [[], [], []]);
  });

  test("a status or error alone: same items, same version, a new value only when something differs", () => {
    const l = newList();
    l.apply(full(1, [tool("a")]));
    const v1 = l.store.get();
    const err = { name: "RPCError", message: "tools/list: boom", code: -32603, data: { x: 1 } };
    l.apply({ kind: "tools", version: 1, status: "error", error: err, keys: null });
    const v2 = l.store.get();
    assert.notEqual(v2, v1);
    assert.equal(v2.items, v1.items);
    assert.equal(v2.version, 1);
    assert.ok(v2.error instanceof Error);
    assert.deepEqual([v2.error.name, v2.error.message, v2.error.code, v2.error.data], ["RPCError", "tools/list: boom", -32603, { x: 1 }]);
    l.apply({ kind: "tools", version: 1, status: "error", error: copy(err), keys: null });
    assert.equal(l.store.get(), v2, "the same status and error: the same value");
    l.apply({ kind: "tools", version: 1, status: "stale", error: null, keys: null });
    assert.equal(l.store.get().status, "stale");
    assert.deepEqual(l.events, []);
  });

  test("liveness and caching hints: on every value; a change of them alone is a new value with the same version", () => {
    const l = newList();
    l.apply(full(1, [tool("a")], { live: true, ttlMs: 60000, cacheScope: "private", receivedAt: 1000 }));
    const v1 = l.store.get();
    assert.deepEqual([v1.live, v1.ttlMs, v1.cacheScope, v1.receivedAt], [true, 60000, "private", 1000]);
    // The server stopped acknowledging the kind (2026-07-28): not live any more.
    l.apply({ kind: "tools", version: 1, status: "ready", error: null, live: false, ttlMs: 60000, cacheScope: "private", receivedAt: 1000, keys: null });
    const v2 = l.store.get();
    assert.notEqual(v2, v1);
    assert.equal(v2.items, v1.items);
    assert.deepEqual([v2.version, v2.live, v2.ttlMs], [1, false, 60000]);
    // A refresh that changed nothing but when the list was received.
    l.apply({ kind: "tools", version: 1, status: "ready", error: null, live: false, ttlMs: 60000, cacheScope: "private", receivedAt: 2000, keys: null });
    const v3 = l.store.get();
    assert.notEqual(v3, v2);
    assert.deepEqual([v3.version, v3.receivedAt], [1, 2000]);
    l.apply({ kind: "tools", version: 1, status: "ready", error: null, live: false, ttlMs: 60000, cacheScope: "private", receivedAt: 2000, keys: null });
    assert.equal(l.store.get(), v3, "the same hints: the same value");
    // A change carries the hints of its walk; a resync with only other hints is a new value without an event.
    l.apply(diff(2, ["a", "b"], { added: [tool("b")] }));
    assert.deepEqual([l.store.get().live, l.store.get().ttlMs, l.store.get().cacheScope, l.store.get().receivedAt], [false, null, null, null]);
    const v4 = l.store.get();
    l.apply(full(2, [tool("a"), tool("b")], { cause: "resync", live: true }));
    assert.notEqual(l.store.get(), v4);
    assert.equal(l.store.get().items, v4.items);
    assert.equal(l.store.get().live, true);
    assert.equal(l.events.length, 1, "only the change of the items is an event");
  });

  test("an update the store already holds is skipped", () => {
    const l = newList();
    l.apply(full(2, [tool("a")]));
    const v = l.store.get();
    assert.ok(l.apply(diff(2, ["a", "b"], { added: [tool("b")] })));
    assert.ok(l.apply(diff(1, [], { removed: ["a"] })));
    assert.equal(l.store.get(), v);
    assert.deepEqual(l.events, []);
  });

  test("version mismatch: an update that names an item the store lacks is refused; the resync is diffed", () => {
    const l = newList();
    l.apply(full(1, [tool("a"), tool("b")]));
    const before = l.store.get();
    const [a, b] = before.items;
    // Go's v2 added c, but that message never came: v3 names c as kept.
    assert.equal(l.apply(diff(3, ["a", "c", "d"], { added: [tool("d")], removed: ["b"] })), false);
    assert.equal(l.store.get(), before, "no half list: the last good one stays");
    assert.deepEqual(l.events, []);
    // The caller asks for the whole list again: it comes as a full message.
    assert.ok(l.apply(full(3, [tool("a"), tool("c"), tool("d")], { cause: "resync" })));
    const after = l.store.get();
    assert.deepEqual(after.items.map((t) => t.name), ["a", "c", "d"]);
    assert.equal(after.version, 3);
    assert.equal(after.items[0], a, "an item whose JSON did not change keeps its object");
    assert.equal(l.events.length, 1);
    const ev = l.events[0];
    assert.equal(ev.cause, "resync");
    assert.equal(ev.latencyMs, null);
    assert.deepEqual(ev.added.map((t) => t.name), ["c", "d"]);
    assert.deepEqual(ev.removed, [b]);
    assert.deepEqual(ev.changed, []);
    // Later diffs apply on top of the resynced list.
    assert.ok(l.apply(diff(4, ["a", "c"], { removed: ["d"] })));
    assert.equal(l.store.get().items[1], after.items[1]);
  });

  test("a resync that changes nothing: no new value, no event", () => {
    const l = newList();
    l.apply(full(1, [tool("a"), tool("b")]));
    const v = l.store.get();
    l.apply(full(1, [tool("a"), tool("b")], { cause: "resync" }));
    assert.equal(l.store.get(), v);
    assert.deepEqual(l.events, []);
  });

  test("a resync with a changed item: a new object in changed", () => {
    const l = newList();
    l.apply(full(1, [tool("a"), tool("b")]));
    const [a] = l.store.get().items;
    l.apply(full(2, [tool("a"), tool("b", "changed")], { cause: "resync" }));
    assert.equal(l.store.get().items[0], a);
    assert.deepEqual(l.events.map((e) => e.changed.map((t) => t.description)), [["changed"]]);
  });

  test("the positional form: runs of held items and fresh ones; identity kept; removed from positions", () => {
    const l = newList();
    l.apply(full(1, [tool("a"), tool("b"), tool("c"), tool("d")]));
    const [a, b, c, d] = l.store.get().items;
    // x new at the front, b dropped, c changed, then d.
    assert.ok(l.apply(seqMsg(2, 1, [-1, 0, 1, -2, 3, 1], { added: [tool("x")], changed: [tool("c", "new")], removedAt: [1] })));
    const after = l.store.get();
    assert.deepEqual(after.items.map((t) => [t.name, t.description]), [["x", ""], ["a", ""], ["c", "new"], ["d", ""]]);
    assert.equal(after.items[1], a);
    assert.equal(after.items[3], d);
    assert.notEqual(after.items[2], c);
    assert.ok(Object.isFrozen(after.items) && Object.isFrozen(after.items[0].inputSchema));
    assert.equal(after.version, 2);
    const ev = l.events[0];
    assert.deepEqual([ev.added, ev.changed, ev.removed], [[after.items[0]], [after.items[2]], [b]]);
    assert.equal(ev.latencyMs, 3.5);
    // A message by keys after it: the key map is made from the items held.
    assert.ok(l.apply(diff(3, ["x", "d"], { removed: ["a", "c"] })));
    assert.deepEqual(l.store.get().items, [after.items[0], d]);
    assert.deepEqual(l.events[1].removed, [a, after.items[2]]);
    // An update already applied is skipped.
    assert.ok(l.apply(seqMsg(3, 2, [0, 1])));
    assert.equal(l.store.get().version, 3);
  });

  test("the positional form is refused when it does not fit: a base not held, a position or fresh index out of range", () => {
    const l = newList();
    assert.ok(!l.apply(seqMsg(1, 0, [])), "before the first full message");
    l.apply(full(1, [tool("a"), tool("b")]));
    const before = l.store.get();
    for (const [what, msg] of [
      ["a base that is not the version held", seqMsg(3, 2, [0, 2])],
      ["a run past the end", seqMsg(2, 1, [1, 2])],
      ["a run without its count", seqMsg(2, 1, [0])],
      ["an empty run", seqMsg(2, 1, [0, 0])],
      ["a fractional position", seqMsg(2, 1, [0.5, 1])],
      ["a fresh index past added and changed", seqMsg(2, 1, [-2], { added: [tool("x")] })],
      ["a removed position out of range", seqMsg(2, 1, [0, 1], { removedAt: [2] })],
    ]) {
      assert.ok(!l.apply(msg), what);
      assert.equal(l.store.get(), before, `${what}: nothing applied`);
    }
    assert.deepEqual(l.events, []);
  });

  test("jsonEqual ignores member order, not values", () => {
    assert.ok(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!jsonEqual([1, 2], { 0: 1, 1: 2 }));
    assert.ok(!jsonEqual({ a: "1" }, { a: 1 }));
  });
});

// A stand-in for the Go runtime of loader.js: it records the calls and lets
// the test play the Go side's hook calls.
function fakeRuntime() {
  const calls = [];
  let hooks;
  const api = {
    connect(url, optionsJSON, h, reqId, id) {
      hooks = h;
      calls.push({ op: "connect", id });
      return Promise.resolve(JSON.stringify({ serverInfo: { name: "fake", version: "1" }, capabilities: { tools: { listChanged: true } }, protocolVersion: "2025-11-25", instructions: "" }));
    },
    call(id, reqId, op, argsJSON, timeoutMs) {
      calls.push({ op, id, args: JSON.parse(argsJSON), timeoutMs });
      if (op === "resync") {
        // Go answers a resync with the whole list, through the hook.
        hooks.list(JSON.stringify(full(3, [tool("a"), tool("c")], { cause: "resync" })));
      }
      return Promise.resolve(undefined);
    },
    close(id) {
      calls.push({ op: "close", id });
      return Promise.resolve(undefined);
    },
    abort() {},
  };
  let ids = 0;
  const rt = { api, requestId: () => 1, clientId: () => ++ids, call: (fn) => Promise.resolve().then(fn), hold: () => () => {} };
  return { rt, calls, hook: () => hooks };
}

describe("the client's hooks, over a fake Go runtime", { timeout: 5000 }, () => {
  test("a list update that does not fit asks Go for a resync, and the resync reaches change listeners", async () => {
    const { rt, calls, hook } = fakeRuntime();
    const client = createClient(async () => ({ rt, early: null }), { url: "ws://fake/mcp", goOptions: {} });
    // Hooks may fire before connect resolves: JS chose the id already.
    while (!hook()) await Promise.resolve();
    hook().list(JSON.stringify(full(1, [tool("a"), tool("b")])));
    await client.ready;
    const events = [];
    client.on("change", (ev) => events.push(ev));
    const sentinel = new Promise((resolve) => client.tools.listen((v) => v.version === 3 && resolve(v)));
    // v2 never came; v3 keeps c, which this side never saw.
    hook().list(JSON.stringify(diff(3, ["a", "c"], { removed: ["b"] })));
    await sentinel;
    assert.deepEqual(
      calls.filter((c) => c.op === "resync"),
      [{ op: "resync", id: calls[0].id, args: { kind: "tools" }, timeoutMs: 0 }],
    );
    assert.deepEqual(client.tools.get().items.map((t) => t.name), ["a", "c"]);
    assert.deepEqual(events.map((e) => [e.cause, e.added.map((t) => t.name), e.removed.map((t) => t.name)]), [["resync", ["c"], ["b"]]]);
    assert.equal(client.capabilities.tools.listChanged, true);
    await client.close();
    assert.equal(calls.at(-1).op, "close");
  });

  test("a client that closes by itself before connect resolved is freed", async () => {
    const { rt, calls, hook } = fakeRuntime();
    const client = createClient(async () => ({ rt, early: null }), { url: "ws://fake/mcp", goOptions: {} });
    while (!hook()) await Promise.resolve();
    hook().status("closed");
    await client.ready;
    assert.equal(client.status.get(), "closed");
    assert.deepEqual(calls.map((c) => c.op), ["connect", "close"]);
  });
});
