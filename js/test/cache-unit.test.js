// The catalog cache's resources/read rules over a fake Go runtime (no wasm):
// a fresh result answers readResource; a result of a retried request (Go
// hands it over in an array: wasm/ops.go) is never kept; an update of the
// resource drops what was kept. And the kept server/discover result (prior).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../src/client.js";
import { openCache } from "../src/cache.js";

function fakeRuntime(answers) {
  const calls = [];
  let hooks;
  const api = {
    connect(url, options, h) {
      hooks = h;
      return Promise.resolve(JSON.stringify({ serverInfo: { name: "fake", version: "1" }, capabilities: { resources: {} }, protocolVersion: "2026-07-28", instructions: "" }));
    },
    call(id, reqId, op, argsJSON) {
      const { uri } = JSON.parse(argsJSON);
      calls.push(uri);
      return Promise.resolve(JSON.stringify(answers[uri]));
    },
    close: () => Promise.resolve(undefined),
    abort() {},
  };
  let ids = 0;
  const rt = { api, requestId: () => 1, clientId: () => ++ids, call: (fn) => Promise.resolve().then(fn), hold: () => () => {} };
  return { rt, calls, hooks: () => hooks };
}

test("readResource: a fresh kept result answers; a retried one is never kept; an update drops it", async () => {
  const fresh = { resultType: "complete", ttlMs: 60000, cacheScope: "public", contents: [{ uri: "mem://a", text: "a" }] };
  const retried = [{ resultType: "complete", ttlMs: 60000, cacheScope: "public", contents: [{ uri: "mem://r", text: "r" }] }];
  const stale = { contents: [{ uri: "mem://s", text: "s" }] }; // no ttlMs: stale at once
  const { rt, calls, hooks } = fakeRuntime({ "mem://a": fresh, "mem://r": retried, "mem://s": stale });
  const url = `ws://fake/${Math.random()}`;
  const cache = openCache("memory", url, Promise.resolve("anonymous"), undefined);
  const client = createClient(async () => ({ rt, early: null }), { url, goOptions: {}, cache, cached: cache.load() });
  await client.ready;

  assert.deepEqual(await client.readResource("mem://a"), fresh);
  const again = await client.readResource("mem://a");
  assert.deepEqual(again, fresh);
  assert.deepEqual(calls, ["mem://a"], "the second read came from the cache");

  assert.deepEqual(await client.readResource("mem://r"), retried[0], "a retried result is handed over unwrapped");
  await client.readResource("mem://r");
  assert.deepEqual(calls, ["mem://a", "mem://r", "mem://r"], "a retried result is never kept");

  await client.readResource("mem://s");
  await client.readResource("mem://s");
  assert.equal(calls.filter((u) => u === "mem://s").length, 2, "a result without ttlMs is not kept");

  hooks().notification("notifications/resources/updated", JSON.stringify({ uri: "mem://a" }));
  await client.readResource("mem://a");
  assert.equal(calls.filter((u) => u === "mem://a").length, 2, "an update drops the kept result");
  await client.close();
});

test("the kept server/discover result: by its cacheScope, handed to the next connect as prior, never written again while fresh, forgotten for a legacy server", async () => {
  const url = `ws://fake/${Math.random()}`;
  const connects = [];
  const fakeWith = (info) => {
    const { rt } = fakeRuntime({});
    rt.api.connect = (u, options) => {
      connects.push(options);
      return Promise.resolve(JSON.stringify(info));
    };
    return rt;
  };
  const modern = (discover) => ({ serverInfo: { name: "fake", version: "1" }, capabilities: {}, protocolVersion: "2026-07-28", instructions: "", discover });
  const run = async (info, context = "anonymous") => {
    const cache = openCache("memory", url, Promise.resolve(context), undefined);
    const rt = fakeWith(info);
    const client = createClient(async () => ({ rt, early: null }), { url, goOptions: {}, cache, cached: cache.load() });
    await client.ready;
    await client.close();
    await new Promise((r) => setTimeout(r, 0)); // the write's task
    await cache.settled();
    return connects.at(-1);
  };

  const stale = { supportedVersions: ["2026-07-28"], capabilities: {}, ttlMs: 0, cacheScope: "private" };
  let opts = await run(modern(stale));
  assert.equal(opts.prior, undefined, "nothing kept yet");
  opts = await run(modern(stale));
  assert.deepEqual(JSON.parse(opts.prior), stale, "the kept result is the next connect's prior");
  const t1 = opts.priorReceivedAt;
  assert.ok(t1 > 0 && t1 <= Date.now());
  opts = await run(modern(stale), "token:other");
  assert.equal(opts.prior, undefined, "a private result is not another context's");

  const fresh = { ...stale, ttlMs: 600000, cacheScope: "public" };
  await run(modern(fresh)); // asked (the private one was stale): kept, public now
  opts = await run(modern(fresh), "token:third");
  assert.deepEqual(JSON.parse(opts.prior), fresh, "a public result is every context's");
  const t2 = opts.priorReceivedAt;
  await new Promise((r) => setTimeout(r, 5));
  opts = await run(modern(fresh));
  assert.equal(opts.priorReceivedAt, t2, "a fresh result used as it is is not written again with a new time");

  await run({ serverInfo: { name: "fake", version: "1" }, capabilities: {}, protocolVersion: "2025-11-25", instructions: "" });
  opts = await run(modern(fresh));
  assert.equal(opts.prior, undefined, "a server that spoke 2025-11-25 leaves nothing kept");
});
