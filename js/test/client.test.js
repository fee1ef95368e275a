// The npm package in Node with the real wasm against the real go-sdk test
// server over a real WebSocket.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { connect } from "../index.js";
import { startServer, waitFor, nextEvent, sleep, keys } from "./helpers.js";

describe("a connected client", () => {
  let server, client;
  before(async () => {
    server = await startServer();
    client = await connect(server.ws, { clientInfo: { name: "mcplive-js-test", version: "1.0.0" } });
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test("connect resolves ready, with server info", () => {
    assert.equal(client.status.get(), "ready");
    assert.equal(client.serverInfo.name, "mcplive-testserver");
    assert.equal(client.serverInfo.version, "1.0.0");
    assert.equal(client.protocolVersion, "2025-11-25");
    assert.equal(client.instructions, "A server for the mcplive JS tests.");
    assert.deepEqual(client.capabilities.resources, { listChanged: true, subscribe: true });
    assert.ok(Object.isFrozen(client));
  });

  test("each store's first value is the server's full list", () => {
    const tools = client.tools.get();
    assert.equal(tools.status, "ready");
    assert.equal(tools.error, null);
    assert.equal(tools.version, 1);
    // The server pages by 2: these lists took several pages.
    assert.deepEqual(keys(tools), ["add", "echo", "fail", "slow"]);
    assert.deepEqual(tools.items.find((t) => t.name === "echo").inputSchema.required, ["text"]);
    assert.deepEqual(keys(client.prompts.get()), ["greet"]);
    assert.deepEqual(keys(client.resources.get(), "uri"), ["test://notes", "test://readme"]);
    assert.deepEqual(keys(client.resourceTemplates.get(), "uriTemplate"), ["test://items/{id}"]);
    for (const store of [client.tools, client.prompts, client.resources, client.resourceTemplates]) {
      const v = store.get();
      assert.equal(v, store.get(), "get() returns the same object until a change");
      assert.ok(Object.isFrozen(v) && Object.isFrozen(v.items) && v.items.every(Object.isFrozen));
    }
  });

  test("subscribe calls at once and on changes; listen only on changes", async () => {
    const seen = [];
    const heard = [];
    const off1 = client.prompts.subscribe((v) => seen.push(v.version));
    const off2 = client.prompts.listen((v) => heard.push(v.version));
    assert.deepEqual(seen, [client.prompts.get().version]);
    assert.deepEqual(heard, []);
    await server.control("add-prompt", { name: "sub-test" });
    await waitFor(client.prompts, (v) => v.items.some((p) => p.name === "sub-test"));
    off1();
    off2();
    assert.equal(seen.length, 2);
    assert.equal(heard.length, 1);
    await server.control("remove-prompt", { name: "sub-test" });
    await waitFor(client.prompts, (v) => !v.items.some((p) => p.name === "sub-test"));
    assert.equal(seen.length, 2, "no calls after unsubscribe");
  });

  // One list_changed per kind: the store updates, one change event with the
  // right diff, and the items that did not change keep their identity.
  const cases = [
    { kind: "tools", field: "name", add: ["add-tool", { name: "t-new", description: "new" }], remove: ["remove-tool", { name: "t-new" }], key: "t-new" },
    { kind: "prompts", field: "name", add: ["add-prompt", { name: "p-new" }], remove: ["remove-prompt", { name: "p-new" }], key: "p-new" },
    { kind: "resources", field: "uri", add: ["add-resource", { uri: "test://new", name: "new", text: "x" }], remove: ["remove-resource", { uri: "test://new" }], key: "test://new" },
    { kind: "resourceTemplates", field: "uriTemplate", add: ["add-template", { uriTemplate: "test://new/{x}", name: "newt" }], remove: ["remove-template", { uriTemplate: "test://new/{x}" }], key: "test://new/{x}" },
  ];
  for (const c of cases) {
    test(`a ${c.kind} list_changed updates the store and fires one change event`, async () => {
      const store = client[c.kind];
      const before = store.get();
      const events = [];
      const off = client.on("change", (ev) => ev.kind === c.kind && events.push(ev));
      try {
        await server.control(...c.add);
        const after = await waitFor(store, (v) => v.items.some((i) => i[c.field] === c.key), 5000, `${c.key} in ${c.kind}`);
        await sleep(150); // a second event would arrive by now
        assert.equal(events.length, 1, "one change event");
        const [ev] = events;
        assert.equal(ev.kind, c.kind);
        assert.equal(ev.version, before.version + 1);
        assert.equal(after.version, before.version + 1);
        assert.deepEqual(ev.added.map((i) => i[c.field]), [c.key]);
        assert.deepEqual([...ev.removed, ...ev.changed], []);
        assert.equal(ev.added[0], after.items.find((i) => i[c.field] === c.key), "the event's item is the store's object");
        for (const old of before.items) {
          assert.ok(after.items.includes(old), `unchanged ${old[c.field]} keeps its identity`);
        }

        events.length = 0;
        await server.control(...c.remove);
        const gone = await waitFor(store, (v) => !v.items.some((i) => i[c.field] === c.key));
        await sleep(150);
        assert.equal(events.length, 1);
        assert.deepEqual(events[0].removed, [ev.added[0]], "removed holds the object the store had");
        assert.deepEqual(gone.items, before.items, "back to the same objects");
        assert.ok(gone.items.every((i, n) => i === before.items[n]));
      } finally {
        off();
      }
    });
  }

  test("a list can become empty and fill again", async () => {
    const greet = client.prompts.get().items.find((p) => p.name === "greet");
    await server.control("remove-prompt", { name: "greet" });
    const empty = await waitFor(client.prompts, (v) => v.items.length === 0);
    assert.equal(empty.status, "ready");
    await server.control("add-prompt", { name: "greet", description: "Greets someone.", arguments: [{ name: "name", required: true }] });
    const again = await waitFor(client.prompts, (v) => v.items.length === 1);
    assert.deepEqual(again.items[0], greet);
    assert.equal(again.version, empty.version + 1);
  });

  test("a changed item: a new object in changed, the others keep identity", async () => {
    const before = client.tools.get();
    const echo = before.items.find((t) => t.name === "echo");
    const evp = nextEvent(client, "change", (e) => e.kind === "tools");
    await server.control("add-tool", { name: "echo", description: "Echoes, now differently." });
    const ev = await evp;
    assert.deepEqual([ev.added, ev.removed], [[], []]);
    assert.equal(ev.changed.length, 1);
    assert.equal(ev.changed[0].description, "Echoes, now differently.");
    const after = client.tools.get();
    const echo2 = after.items.find((t) => t.name === "echo");
    assert.notEqual(echo2, echo);
    assert.equal(echo2, ev.changed[0]);
    for (const t of before.items) if (t.name !== "echo") assert.ok(after.items.includes(t));
  });

  test("calls: callTool, getPrompt, readResource, complete, ping, refresh", async () => {
    assert.deepEqual(await client.callTool("echo", { text: "hi" }), { content: [{ type: "text", text: "hi" }] });
    const sum = await client.callTool("add", { a: 2, b: 3 });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    const p = await client.getPrompt("greet", { name: "Ada" });
    assert.equal(p.messages[0].content.text, "Hello, Ada!");
    const r = await client.readResource("test://items/42");
    assert.equal(r.contents[0].text, "item 42");
    const done = await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "al" } });
    assert.deepEqual(done.completion.values, ["alpha", "alps"]);
    assert.equal(await client.ping(), undefined);
    const v = client.tools.get();
    await client.refresh("tools");
    await client.refresh();
    assert.equal(client.tools.get(), v, "a re-list with the same content changes nothing");
    await assert.rejects(client.refresh("nope"), TypeError);
  });

  test("errors are real Errors; RPC errors carry code and data", async () => {
    await assert.rejects(client.callTool("fail", {}), (err) => {
      assert.ok(err instanceof Error);
      assert.equal(err.name, "RPCError");
      assert.equal(err.code, -32001);
      assert.deepEqual(err.data, { reason: "test" });
      assert.match(err.message, /this tool always fails/);
      return true;
    });
    await assert.rejects(client.callTool("no-such-tool"), (err) => err instanceof Error && err.code === -32602);
    await assert.rejects(client.readResource("test://missing"), (err) => {
      assert.ok(err instanceof Error);
      assert.equal(typeof err.code, "number");
      assert.deepEqual(err.data, { uri: "test://missing" });
      return true;
    });
    await assert.rejects(client.getPrompt("greet", { name: { nested: true } }), TypeError);
  });

  test("progress, timeoutMs and AbortSignal", async () => {
    const progress = [];
    const res = await client.callTool("slow", { steps: 3 }, { onProgress: (p) => progress.push(p) });
    assert.equal(res.content[0].text, "done");
    assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3]);
    assert.equal(progress[2].total, 3);
    assert.equal(progress[2].message, "step 3");

    await assert.rejects(client.callTool("slow", {}, { timeoutMs: 100 }), (err) => err instanceof Error && err.name === "TimeoutError");

    const ac = new AbortController();
    const seen = [];
    const call = client.callTool("slow", {}, {
      signal: ac.signal,
      onProgress: (p) => {
        seen.push(p);
        if (seen.length === 2) ac.abort();
      },
    });
    await assert.rejects(call, (err) => err instanceof Error && err.name === "AbortError");
    // The server saw notifications/cancelled: its handler's context ended.
    for (let i = 0; i < 50 && !server.log.some((l) => l.includes("slow: cancelled")); i++) await sleep(20);
    assert.ok(server.log.some((l) => l.includes("slow: cancelled")), "server observed the cancellation");
    await assert.rejects(client.ping({ signal: AbortSignal.abort() }), { name: "AbortError" });
    assert.equal(await client.ping(), undefined, "the client works on");
  });

  test("subscribeResource gives fresh contents on every update", async () => {
    const got = [];
    const errors = [];
    const stop = client.subscribeResource("test://readme", (contents) => got.push(contents[0].text), { onError: (e) => errors.push(e) });
    for (let i = 0; i < 100 && got.length < 1; i++) await sleep(20);
    assert.deepEqual(got, ["hello"]);
    await server.control("update-resource", { uri: "test://readme", text: "hello 2" });
    for (let i = 0; i < 100 && got.at(-1) !== "hello 2"; i++) await sleep(20);
    assert.equal(got.at(-1), "hello 2");
    stop();
    const n = got.length;
    await server.control("update-resource", { uri: "test://readme", text: "hello 3" });
    await sleep(200);
    assert.equal(got.length, n, "nothing after unsubscribe");
    assert.deepEqual(errors, []);
  });

  test("log and notification events", async () => {
    await client.setLoggingLevel("info");
    const logp = nextEvent(client, "log");
    const notep = nextEvent(client, "notification", (n) => n.method === "notifications/message");
    await server.control("log", { level: "warning", data: { hello: "world" } });
    const log = await logp;
    assert.equal(log.level, "warning");
    assert.deepEqual(log.data, { hello: "world" });
    assert.equal(log.logger, "testserver");
    const note = await notep;
    assert.equal(note.params.level, "warning");
    assert.throws(() => client.on("nope", () => {}), TypeError);
  });

  test("a Go panic rejects the call and the runtime lives on", async (t) => {
    const errors = [];
    t.mock.method(console, "error", (...a) => errors.push(a.join(" ")));
    // debugPanic exists for this test: with client id 0 it panics in the
    // exported function itself (wasm/bridge.go), with a client's id in the
    // goroutine that runs the call (wasm/client.go). This describe's client
    // is the first of this process: id 1.
    const { loadRuntime } = await import("../src/loader.js");
    const rt = await loadRuntime();
    for (const id of [0, 1]) {
      errors.length = 0;
      await assert.rejects(rt.call(() => rt.api.call(id, 0, "debugPanic", "{}")), (err) => err instanceof Error && /internal error/.test(err.message));
      assert.ok(errors.some((e) => e.includes("debugPanic")), "the panic is logged with its stack");
    }
    assert.equal(await client.ping(), undefined);
  });
});

describe("connecting", () => {
  test("a refused port rejects within the dial timeout", async () => {
    const port = await freePort();
    const t0 = Date.now();
    await assert.rejects(connect(`ws://127.0.0.1:${port}/mcp`, { dialTimeoutMs: 1000, reconnect: false }), (err) => err instanceof Error);
    assert.ok(Date.now() - t0 < 3000, `rejected after ${Date.now() - t0} ms`);
  });

  test("an AbortSignal aborts the connecting", async () => {
    // A server that accepts TCP and never answers the WebSocket handshake.
    const silent = net.createServer(() => {});
    await new Promise((r) => silent.listen(0, "127.0.0.1", r));
    const sockets = [];
    silent.on("connection", (s) => sockets.push(s));
    try {
      const ac = new AbortController();
      const t0 = Date.now();
      setTimeout(() => ac.abort(), 100);
      await assert.rejects(connect(`ws://127.0.0.1:${silent.address().port}/mcp`, { signal: ac.signal }), { name: "AbortError" });
      assert.ok(Date.now() - t0 < 2000);
      await assert.rejects(connect("ws://127.0.0.1:1/mcp", { signal: AbortSignal.abort() }), { name: "AbortError" });
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  test("bad options throw TypeError", async () => {
    await assert.rejects(connect("ws://127.0.0.1:1/mcp", { requestTimeoutMs: -1 }), TypeError);
    await assert.rejects(connect("ws://127.0.0.1:1/mcp", { reconnect: "yes" }), TypeError);
    await assert.rejects(connect("ws://127.0.0.1:1/mcp", { clientInfo: {} }), TypeError);
  });

  test("two clients to two servers work independently", async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const [ca, cb] = await Promise.all([connect(a.ws), connect(b.ws)]);
    try {
      await a.control("add-tool", { name: "only-a" });
      await b.control("add-tool", { name: "only-b" });
      await waitFor(ca.tools, (v) => v.items.some((t) => t.name === "only-a"));
      await waitFor(cb.tools, (v) => v.items.some((t) => t.name === "only-b"));
      await sleep(100);
      assert.ok(!ca.tools.get().items.some((t) => t.name === "only-b"));
      assert.ok(!cb.tools.get().items.some((t) => t.name === "only-a"));
      await ca.close();
      assert.equal(ca.status.get(), "closed");
      assert.equal(ca.tools.get().status, "stale", "a closed client's lists are no longer kept in sync");
      assert.ok(ca.tools.get().items.some((t) => t.name === "only-a"), "and keep their last items");
      await assert.rejects(ca.ping(), { name: "ClosedError" });
      assert.equal(cb.status.get(), "ready", "closing one leaves the other");
      assert.equal((await cb.callTool("echo", { text: "b" })).content[0].text, "b");
    } finally {
      await Promise.all([ca.close(), cb.close()]);
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  test("reconnect after the server drops the connection", async () => {
    const server = await startServer();
    const client = await connect(server.ws, { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    try {
      const states = [];
      client.status.listen((s) => states.push(s));
      const listStates = [];
      client.tools.listen((v) => listStates.push(v.status));
      const before = client.tools.get();
      const readme = [];
      client.subscribeResource("test://readme", (c) => readme.push(c[0].text));
      for (let i = 0; i < 100 && readme.length < 1; i++) await sleep(20);

      // Drop the connection and change the server's lists while away.
      const drop = await server.control("drop");
      assert.equal(drop.dropped, 1);
      await server.control("add-tool", { name: "while-away" });
      await server.control("update-resource", { uri: "test://readme", text: "changed while away" });
      await waitFor(client.tools, (v) => v.items.some((t) => t.name === "while-away") && v.status === "ready", 10000);
      await waitFor(client.status, (s) => s === "ready");
      assert.ok(states.includes("reconnecting"), `states: ${states}`);
      assert.ok(listStates.includes("stale"), `list states: ${listStates}`);
      const after = client.tools.get();
      for (const t of before.items) assert.ok(after.items.includes(t), "identity survives a reconnect");
      for (let i = 0; i < 100 && readme.at(-1) !== "changed while away"; i++) await sleep(20);
      assert.equal(readme.at(-1), "changed while away", "subscribed resources are read again after a reconnect");
      // The subscription was re-established on the new connection.
      await server.control("update-resource", { uri: "test://readme", text: "after" });
      for (let i = 0; i < 100 && readme.at(-1) !== "after"; i++) await sleep(20);
      assert.equal(readme.at(-1), "after");
      assert.equal((await client.callTool("echo", { text: "back" })).content[0].text, "back");
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test("a server restarted on the same port: Node reconnects soon, not after the whole dial timeout", async () => {
    // Node 20's WebSocket never reports a refused connection, so a reconnect
    // attempt made while the server is down lasts its whole dial timeout
    // (10 s by default). Early attempts use short ones (1 s, 2 s, …).
    const first = await startServer();
    const addr = new URL(first.ws).host;
    const client = await connect(first.ws, { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    let second;
    try {
      await first.stop();
      await waitFor(client.status, (s) => s === "reconnecting");
      await sleep(1500); // an attempt or two while nobody listens
      second = await startServer(["-addr", addr]);
      await waitFor(client.status, (s) => s === "ready", 8000, "ready within 8 s of the restart (the default dial timeout alone is 10 s)");
      assert.equal((await client.callTool("echo", { text: "back" })).content[0].text, "back");
    } finally {
      await client.close();
      await second?.stop();
    }
  });

  test("without reconnect a drop closes the client", async () => {
    const server = await startServer();
    const client = await connect(server.ws, { reconnect: false });
    try {
      await server.control("drop");
      await waitFor(client.status, (s) => s === "closed");
      await assert.rejects(client.callTool("echo", { text: "x" }), (err) => err instanceof Error && err.name === "ClosedError");
      assert.equal(client.tools.get().items.length, 4, "lists keep their last items");
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.once("error", reject);
  });
}
