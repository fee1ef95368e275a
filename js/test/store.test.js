// store.js alone: no wasm, no server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createStore, createEmitter } from "../src/store.js";

test("get returns the same value until set changes it", () => {
  const initial = { n: 0 };
  const { store, set } = createStore(initial);
  assert.equal(store.get(), initial);
  assert.equal(store.get(), store.get());
  set(initial); // the same object: no change
  assert.equal(store.get(), initial);
  const next = { n: 1 };
  set(next);
  assert.equal(store.get(), next);
});

test("subscribe calls at once, then on every change; listen only on changes", () => {
  const { store, set } = createStore(1);
  const sub = [];
  const lis = [];
  const offSub = store.subscribe((v) => sub.push(v));
  const offLis = store.listen((v) => lis.push(v));
  assert.deepEqual([sub, lis], [[1], []]);
  set(2);
  set(2); // Object.is-equal: nothing
  set(3);
  assert.deepEqual([sub, lis], [[1, 2, 3], [2, 3]]);
  offSub();
  offSub(); // twice is fine
  set(4);
  assert.deepEqual([sub, lis], [[1, 2, 3], [2, 3, 4]]);
  offLis();
  set(5);
  assert.deepEqual(lis, [2, 3, 4]);
});

test("a store is a frozen object of functions without this", () => {
  const { store, set } = createStore("a");
  assert.ok(Object.isFrozen(store));
  const { get, subscribe } = store; // detached
  const seen = [];
  subscribe((v) => seen.push(v));
  set("b");
  assert.equal(get(), "b");
  assert.deepEqual(seen, ["a", "b"]);
});

test("a listener that unsubscribes another during a change: the other is not called", () => {
  const { store, set } = createStore(0);
  const calls = [];
  let offB = () => {};
  store.listen((v) => {
    calls.push(`a${v}`);
    offB();
  });
  offB = store.listen((v) => calls.push(`b${v}`));
  store.listen((v) => calls.push(`c${v}`));
  set(1);
  set(2);
  assert.deepEqual(calls, ["a1", "c1", "a2", "c2"]);
});

test("a listener added during a change gets the next change, not this one", () => {
  const { store, set } = createStore(0);
  const calls = [];
  store.listen((v) => {
    calls.push(`a${v}`);
    if (v === 1) store.listen((w) => calls.push(`late${w}`));
  });
  set(1);
  set(2);
  assert.deepEqual(calls, ["a1", "a2", "late2"]);
});

test("a throwing listener is reported and the others still run", (t) => {
  const reported = [];
  const had = Object.hasOwn(globalThis, "reportError");
  const old = globalThis.reportError;
  globalThis.reportError = (err) => reported.push(err.message);
  t.after(() => (had ? (globalThis.reportError = old) : delete globalThis.reportError));
  const { store, set } = createStore(0);
  const seen = [];
  store.listen(() => {
    throw new Error("boom");
  });
  store.listen((v) => seen.push(v));
  set(1);
  assert.deepEqual(seen, [1]);
  assert.deepEqual(reported, ["boom"]);
});

test("a listener must be a function", () => {
  const { store } = createStore(0);
  assert.throws(() => store.listen(42), TypeError);
  assert.throws(() => store.subscribe(null), TypeError);
});

test("the emitter: on returns an unsubscribe, unknown types and non-functions are TypeErrors", () => {
  const ev = createEmitter(["change", "log"]);
  const seen = [];
  const off = ev.on("change", (e) => seen.push(e));
  assert.equal(ev.has("change"), true);
  assert.equal(ev.has("log"), false);
  ev.emit("change", 1);
  ev.emit("log", 2);
  off();
  ev.emit("change", 3);
  assert.deepEqual(seen, [1]);
  assert.equal(ev.has("change"), false);
  assert.throws(() => ev.on("nope", () => {}), TypeError);
  assert.throws(() => ev.on("log", "x"), TypeError);
});
