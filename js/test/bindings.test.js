// src/bindings.js, what mcplive/react and mcplive/vue share: the key that
// says when options need a new client, and the options handed to open()
// with callbacks that are always the latest. Pure functions: no runtime.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clientKey, latest, serverKeys, LOADING } from "../src/bindings.js";

test("clientKey: the same values in new objects give the same key; a changed value, url or option another", () => {
  const opts = () => ({ clientInfo: { name: "app", version: "1.0.0" }, reconnect: { initialDelayMs: 100 }, headers: { "X-A": "1" }, token: () => "t" });
  const k = clientKey("ws://x/mcp", opts());
  assert.equal(clientKey("ws://x/mcp", opts()), k);
  assert.equal(clientKey(new URL("ws://x/mcp"), opts()), k, "a URL object and its string");
  // Key order does not matter; an undefined option is no option.
  assert.equal(clientKey("ws://x/mcp", { headers: { "X-A": "1" }, reconnect: { initialDelayMs: 100 }, token: () => "u", clientInfo: { version: "1.0.0", name: "app" }, logger: undefined }), k);
  assert.notEqual(clientKey("ws://y/mcp", opts()), k);
  assert.notEqual(clientKey("ws://x/mcp", { ...opts(), clientInfo: { name: "app", version: "1.0.1" } }), k);
  assert.notEqual(clientKey("ws://x/mcp", { ...opts(), reconnect: false }), k);
  assert.notEqual(clientKey("ws://x/mcp", { ...opts(), token: undefined }), k, "a callback's presence matters");
  assert.equal(clientKey(null, opts()), null);
  assert.equal(clientKey(undefined), null);
  assert.equal(clientKey("ws://x/mcp"), clientKey("ws://x/mcp", {}));
});

test("clientKey: auth, cache and signal by identity", () => {
  const auth = { a: 1 };
  const cache = { get() {}, set() {}, delete() {} };
  const signal = new AbortController().signal;
  const k = clientKey("https://x/mcp", { auth, cache, signal });
  assert.equal(clientKey("https://x/mcp", { auth, cache, signal }), k);
  assert.notEqual(clientKey("https://x/mcp", { auth: { a: 1 }, cache, signal }), k);
  assert.notEqual(clientKey("https://x/mcp", { auth, cache: { ...cache }, signal }), k);
  assert.notEqual(clientKey("https://x/mcp", { auth, cache, signal: new AbortController().signal }), k);
  assert.equal(clientKey("https://x/mcp", { cache: "memory" }), clientKey("https://x/mcp", { cache: "memory" }), "a cache by name is a value");
});

test("latest: callbacks call the latest options' callback; values are copied; auth, cache and signal passed as they are", async () => {
  let current = { token: () => "first", logger: { warn: (m) => `first ${m}` }, clientInfo: { name: "a" }, auth: { id: 1 }, signal: new AbortController().signal };
  const given = latest(() => current);
  assert.equal(await given.token(), "first");
  assert.equal(given.logger.warn("x"), "first x");
  assert.deepEqual(given.clientInfo, { name: "a" });
  assert.notEqual(given.clientInfo, current.clientInfo, "a copy");
  assert.equal(given.auth, current.auth);
  assert.equal(given.signal, current.signal);
  const before = given.token;
  current = { ...current, token: () => "second", logger: { warn: (m) => `second ${m}` } };
  assert.equal(given.token, before);
  assert.equal(await given.token(), "second");
  assert.equal(given.logger.warn("y"), "second y");
  // A callback the latest options no longer have is not called.
  current = { clientInfo: { name: "a" } };
  assert.equal(given.token(), undefined);
  assert.deepEqual(latest(() => undefined), {});
});

test("serverKeys: a url or { url, options } per id; a falsy entry is no server", () => {
  const keys = serverKeys({ a: "ws://a/mcp", b: { url: "ws://b/mcp", options: { requestTimeoutMs: 5 } }, c: null, d: false });
  assert.deepEqual([...keys.keys()], ["a", "b"]);
  assert.equal(keys.get("a"), clientKey("ws://a/mcp"));
  assert.equal(keys.get("b"), clientKey("ws://b/mcp", { requestTimeoutMs: 5 }));
});

test("LOADING is a frozen list value as a new client's", () => {
  assert.ok(Object.isFrozen(LOADING) && Object.isFrozen(LOADING.items));
  assert.deepEqual({ ...LOADING, items: [...LOADING.items] }, { items: [], status: "loading", error: null, version: 0, live: false, ttlMs: null, cacheScope: null, receivedAt: null, source: null });
});
