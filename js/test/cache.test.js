// The catalog cache (the cache option) and open(), in Node with the real
// wasm against the go-sdk test server: a reload shows the kept catalog
// before the server answers, then reconciles it; a fresh list is not
// walked until a notification; private results of two tokens never cross;
// bad storage is ignored with a warning. A "reload" is a new client over
// the same storage (an adapter over one Map).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect, open, createHub } from "../index.js";
import { startServer, waitFor, nextEvent } from "./helpers.js";

/** mapStorage is a cache adapter over a Map; written() resolves at the next set. */
function mapStorage(map = new Map()) {
  let waiters = [];
  return {
    map,
    async get(k) {
      return map.get(k);
    },
    async set(k, v) {
      map.set(k, v);
      for (const w of waiters) w(k);
      waiters = [];
    },
    async delete(k) {
      map.delete(k);
    },
    /** written resolves once a record whose key includes part has been written. */
    written(part = "") {
      return new Promise((resolve) => {
        const w = (k) => (k.includes(part) ? resolve(k) : waiters.push(w));
        waiters.push(w);
      });
    },
  };
}

/** warnings is a logger that records its warnings. */
function warnings() {
  const seen = [];
  let waiters = [];
  return {
    seen,
    warn(msg) {
      seen.push(msg);
      for (const w of waiters) w();
    },
    info() {},
    error() {},
    next(re) {
      return new Promise((resolve) => {
        const check = () => (seen.some((m) => re.test(m)) ? (resolve(), true) : false);
        if (!check()) waiters.push(check);
      });
    },
  };
}

const names = (v) => v.items.map((t) => t.name).sort();
const count = async (server, rpc, from) => (await server.control("requests")).requests.slice(from).filter((r) => r.rpc === rpc).length;

describe("open() and the catalog cache", { timeout: 30000 }, () => {
  let server;
  before(async () => (server = await startServer()));
  after(() => server?.stop());

  test("open returns the client at once; ready resolves as connect does; a ready that nobody awaits rejects quietly", async () => {
    const c = open(server.ws);
    assert.equal(c.tools.get().status, "loading");
    assert.equal(c.status.get(), "connecting");
    await c.ready;
    assert.equal(c.tools.get().status, "ready");
    assert.equal(c.tools.get().source, "server");
    await c.close();

    let unhandled = 0;
    const onUnhandled = () => unhandled++;
    process.on("unhandledRejection", onUnhandled);
    try {
      const bad = open("ws://127.0.0.1:1/mcp", { dialTimeoutMs: 2000 });
      await waitFor(bad.status, (s) => s === "closed", 10000);
      await assert.rejects(bad.ready, { name: "DialError" });
      const closedEarly = open(server.ws);
      await closedEarly.close();
      await assert.rejects(closedEarly.ready, { name: "AbortError" });
      await new Promise(setImmediate); // an unhandled rejection is reported before the next turn
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.equal(unhandled, 0, "no unhandled rejection");
    assert.throws(() => open(server.ws, { cache: "disk" }), TypeError);
  });

  for (const transport of ["ws", "http"]) {
    test(`a reload shows the kept catalog before the server answers, then reconciles it (${transport})`, async () => {
      const url = transport === "ws" ? server.ws : server.mcp;
      const storage = mapStorage();
      await server.control("add-tool", { name: `gone-${transport}` });
      const written = storage.written();
      const c1 = await connect(url, { cache: storage });
      await written;
      const shown = names(c1.tools.get());
      await c1.close();
      // While the page was closed, the server changed its tools.
      await server.control("remove-tool", { name: `gone-${transport}` });
      await server.control("add-tool", { name: `new-${transport}` });
      await server.control("hold", { on: true });
      let c2;
      try {
        c2 = open(url, { cache: storage });
        const v = await waitFor(c2.tools, (x) => x.source === "cache", 5000, "the kept tools");
        assert.equal(v.status, "stale");
        assert.deepEqual(names(v), shown);
        assert.equal(c2.status.get(), "connecting", "nothing answered yet");
      } finally {
        await server.control("hold", { on: false });
      }
      const echo = c2.tools.get().items.find((t) => t.name === "echo");
      const ev = nextEvent(c2, "change", (e) => e.kind === "tools");
      await c2.ready;
      const e = await ev;
      assert.equal(e.cause, "resync");
      assert.deepEqual(e.added.map((t) => t.name), [`new-${transport}`]);
      assert.deepEqual(e.removed.map((t) => t.name), [`gone-${transport}`]);
      assert.equal(c2.tools.get().status, "ready");
      assert.equal(c2.tools.get().source, "server");
      assert.equal(c2.tools.get().items.find((t) => t.name === "echo"), echo, "an unchanged item keeps its identity");
      await c2.close();
      await server.control("remove-tool", { name: `new-${transport}` });
    });
  }

  test("a fresh list is not walked at connect; a notification invalidates it; readResource answers a fresh read from the cache", async () => {
    await server.control("cache", { ttlMs: 600000, scope: "public" });
    await server.control("add-resource", { uri: "mem://cached", name: "cached", text: "one" });
    try {
      const storage = mapStorage();
      const written = storage.written();
      const c1 = await connect(server.mcp, { cache: storage });
      await written;
      await c1.close();
      const from = (await server.control("requests")).requests.length;
      const c2 = await connect(server.mcp, { cache: storage });
      assert.equal(await count(server, "tools/list", from), 0, "fresh tools are not walked");
      assert.equal(await count(server, "prompts/list", from), 0, "fresh prompts are not walked");
      assert.equal(c2.tools.get().status, "ready");
      const ev = nextEvent(c2, "change", (e) => e.kind === "tools");
      await server.control("add-tool", { name: "fresh-x" });
      await ev;
      assert.ok((await count(server, "tools/list", from)) >= 1, `the notification walked the tools (${await count(server, "tools/list", from)})`);

      const r1 = await c2.readResource("mem://cached");
      const r2 = await c2.readResource("mem://cached");
      assert.deepEqual(r2.contents, r1.contents);
      assert.equal(await count(server, "resources/read", from), 1, "the second read came from the cache");
      await c2.close();
      await server.control("remove-tool", { name: "fresh-x" });
    } finally {
      await server.control("cache", {});
      await server.control("remove-resource", { uri: "mem://cached" });
    }
  });

  test("the kept server/discover result: the next connect lists at once and asks beside; a fresh one is not asked again", async () => {
    const u = server.mcp + "?prior=1";
    const storage = mapStorage();
    let written = storage.written();
    const c1 = await connect(u, { cache: storage });
    assert.equal(c1.protocolVersion, "2026-07-28");
    await written;
    await c1.close();
    assert.match([...storage.map.values()].join("\n"), /"discover":\{"result":\{[^]*"supportedVersions"/, "the record keeps the discover result");

    // server/discover's answer held: a client that waited for it would
    // list nothing.
    let from = (await server.control("requests")).requests.length;
    await server.control("hold", { on: true, method: "server/discover" });
    let c2;
    try {
      c2 = open(u, { cache: storage });
      for (;;) {
        const rpcs = (await server.control("requests")).requests.slice(from).map((r) => r.rpc);
        if (rpcs.includes("tools/list")) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await server.control("hold", { on: false });
    }
    await c2.ready;
    assert.equal(await count(server, "server/discover", from), 1, "server/discover asked beside the first requests");
    assert.equal(c2.serverInfo.name, "mcplive-testserver");
    await c2.close();

    // A discover result with a ttlMs: kept, then not asked while fresh.
    await server.control("cache", { ttlMs: 600000, scope: "public" });
    try {
      written = storage.written();
      const c3 = await connect(u, { cache: storage });
      await written;
      await c3.close();
      from = (await server.control("requests")).requests.length;
      const c4 = await connect(u, { cache: storage });
      assert.equal(await count(server, "server/discover", from), 0, "a fresh discover result is not asked again");
      assert.equal(c4.protocolVersion, "2026-07-28");
      assert.deepEqual(c4.capabilities.tools, { listChanged: true });
      await c4.close();
    } finally {
      await server.control("cache", {});
    }
  });

  test("private results are kept under a hash of the authorization context and never shown to another", async () => {
    await server.control("cache", { ttlMs: 600000, scope: "private" });
    try {
      const storage = mapStorage();
      const written = storage.written("#");
      const c1 = await connect(server.mcp, { cache: storage, token: () => "alice-token" });
      await written;
      await c1.close();
      for (const v of storage.map.values()) assert.doesNotMatch(v, /alice-token/, "no token in a record");
      for (const k of storage.map.keys()) assert.doesNotMatch(k, /alice/, "no token in a key");

      const seen = [];
      await server.control("hold", { on: true });
      let bob, alice;
      try {
        bob = open(server.mcp, { cache: storage, token: () => "bob-token" });
        bob.tools.subscribe((v) => seen.push(v.source));
        alice = open(server.mcp, { cache: storage, token: () => "alice-token" });
        await waitFor(alice.tools, (v) => v.source === "cache", 5000, "alice's kept tools");
      } finally {
        await server.control("hold", { on: false });
      }
      await Promise.all([bob.ready, alice.ready]);
      assert.ok(!seen.includes("cache"), `bob never saw alice's kept tools: ${seen}`);
      await Promise.all([bob.close(), alice.close()]);
    } finally {
      await server.control("cache", {});
    }
  });

  test("a token for another context removes the private record of the one before", async () => {
    await server.control("cache", { ttlMs: 600000, scope: "private" });
    try {
      const storage = mapStorage();
      let token = "alice-token";
      const written = storage.written("#");
      const c = await connect(server.mcp, { cache: storage, token: () => token });
      const aliceKey = await written;
      token = "bob-token";
      await c.callTool("echo", { text: "as bob" }); // asks for the token again: another context
      await c.close();
      assert.ok(!storage.map.has(aliceKey), "alice's private record is removed");
    } finally {
      await server.control("cache", {});
    }
  });

  test("a hub's servers take the cache option", async () => {
    const storage = mapStorage();
    const written = storage.written();
    const hub = createHub();
    try {
      await hub.add("a", server.ws, { cache: storage });
      await written;
      assert.ok(storage.map.size >= 1);
    } finally {
      await hub.close();
    }
  });

  test("a hub shows a server's kept catalog before the server answers, stale, then the server's", async () => {
    const storage = mapStorage();
    const written = storage.written();
    const c1 = await connect(server.ws, { cache: storage });
    await written;
    const shown = names(c1.tools.get());
    await c1.close();
    await server.control("add-tool", { name: "hub-new" });
    await server.control("hold", { on: true });
    const hub = createHub();
    try {
      let added;
      try {
        added = hub.add("a", server.ws, { cache: storage });
        const v = await waitFor(hub.tools, (x) => x.items.length > 0, 5000, "the hub's kept tools");
        assert.deepEqual(v.items.map((t) => t.name).sort(), shown.map((n) => `a__${n}`).sort(), "the kept catalog, without the tool added since");
        assert.ok(v.items.every((t) => t.stale === true), "every kept item is marked stale");
        assert.equal(hub.servers.get()[0]?.status, "connecting");
      } finally {
        await server.control("hold", { on: false });
      }
      await added;
      await waitFor(hub.tools, (x) => x.items.some((t) => t.name === "a__hub-new") && x.items.every((t) => !t.stale), 5000, "the server's tools");
    } finally {
      await hub.close();
      await server.control("remove-tool", { name: "hub-new" });
    }
  });

  test("bad storage is ignored with a warning: throws, corrupt, truncated, foreign, older version, full; no IndexedDB in Node", async () => {
    const good = mapStorage();
    const w0 = good.written();
    const c0 = await connect(server.ws, { cache: good });
    await w0;
    await c0.close();
    const [key, record] = [...good.map].find(([k]) => !k.includes("#"));
    const cases = {
      "storage that throws": { get: async () => { throw new Error("SecurityError: denied"); }, set: async () => {}, delete: async () => {} },
      "a corrupt record": mapStorage(new Map([[key, record.replace("echo", "ecno")]])),
      "a truncated record": mapStorage(new Map([[key, record.slice(0, record.length / 2)]])),
      "a foreign record": mapStorage(new Map([[key, { tools: [1, 2] }]])),
      "an older format version": mapStorage(new Map([[key, record.replace(/^mcplive-catalog 1 /, "mcplive-catalog 0 ")]])),
      "a full quota": { get: async () => undefined, set: async () => { throw Object.assign(new Error("quota"), { name: "QuotaExceededError" }); }, delete: async () => {} },
      "no IndexedDB": "indexeddb",
    };
    for (const [what, cache] of Object.entries(cases)) {
      const logger = warnings();
      const c = await connect(server.ws, { cache, logger });
      try {
        assert.equal(c.tools.get().status, "ready", what);
        assert.equal(c.tools.get().source, "server", what);
        assert.ok(c.tools.get().items.some((t) => t.name === "echo"), what);
        await logger.next(/mcplive: cache:/);
      } finally {
        await c.close();
      }
    }

    // Two clients writing the same record at once leave one whole record.
    const shared = mapStorage();
    const [a, b] = await Promise.all([connect(server.ws, { cache: shared }), connect(server.ws, { cache: shared })]);
    await Promise.all([a.close(), b.close()]);
    const logger = warnings();
    await server.control("hold", { on: true });
    let c;
    try {
      c = open(server.ws, { cache: shared, logger });
      await waitFor(c.tools, (v) => v.source === "cache", 5000, "the kept tools");
    } finally {
      await server.control("hold", { on: false });
    }
    await c.ready;
    await c.close();
    assert.deepEqual(logger.seen, []);
  });

  test("the revision a server spoke is tried first on the next connect: no server/discover for a 2025-11-25 server", async () => {
    await server.control("legacy", { on: true });
    try {
      const u = server.mcp + "?rev=1";
      let from = (await server.control("requests")).requests.length;
      const c1 = await connect(u);
      assert.equal(c1.protocolVersion, "2025-11-25");
      assert.equal(await count(server, "server/discover", from), 1, "the first connect probes");
      await c1.close();
      from = (await server.control("requests")).requests.length;
      const c2 = await connect(u);
      assert.equal(c2.protocolVersion, "2025-11-25", "the remembered revision");
      assert.equal(await count(server, "server/discover", from), 0, "no probe");
      await c2.close();
    } finally {
      await server.control("legacy", { on: false });
    }
    // The server moved on to 2026-07-28 only? It still connects (Go: TestSeedRevisionHint).
  });
});
