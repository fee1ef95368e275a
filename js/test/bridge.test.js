// mcplive-bridge (cmd/mcplive-bridge) in Node with the real wasm: the live
// stores follow third-party and go-sdk stdio servers through it, over
// Streamable HTTP (the fetch option with viaBridge) and WebSocket (?token=);
// the refusals reach the page as errors.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect, createHub, viaBridge } from "../index.js";
import { startServer, waitFor, nextEvent, keys } from "./helpers.js";
import { startBridge, EVERYTHING, GO_STDIO } from "./bridge-helpers.js";

/**
 * The ways a page reaches a stdio server the bridge serves, each with the
 * revision the client ends up speaking: `modern` is what a server that
 * speaks 2026-07-28 gets (over Streamable HTTP sessionless, through the
 * bridge's shared process), else 2025-11-25; pinned to 2025-11-25 over
 * Streamable HTTP, a session and a process per client.
 */
function ways(bridge, modern = "2026-07-28") {
  const fetch = viaBridge(bridge.origin, { token: bridge.token });
  return [
    { name: "Streamable HTTP", url: bridge.http, options: { fetch }, revision: modern },
    { name: "Streamable HTTP, 2025-11-25", url: bridge.http, options: { fetch, protocolVersion: "2025-11-25" }, revision: "2025-11-25" },
    { name: "WebSocket", url: `${bridge.ws}?token=${encodeURIComponent(bridge.token)}`, options: {}, revision: modern },
  ];
}

describe("a third-party stdio server (@modelcontextprotocol/server-everything) through mcplive-bridge", () => {
  let bridge;
  before(async () => (bridge = await startBridge(["--", ...EVERYTHING])));
  after(() => bridge?.stop());

  test("tools listed, a call, a resource subscription's update, over both transports", async () => {
    // It speaks 2025-11-25 only: a 2026-07-28 request over Streamable HTTP
    // is answered UnsupportedProtocolVersion, and the client falls back.
    for (const way of ways(bridge, "2025-11-25")) {
      const client = await connect(way.url, { ...way.options, dialTimeoutMs: 30000 });
      try {
        assert.equal(client.protocolVersion, way.revision, way.name);
        assert.equal(client.tools.get().status, "ready", way.name);
        assert.ok(keys(client.tools.get()).includes("echo"), `${way.name}: ${keys(client.tools.get())}`);
        assert.equal(client.serverInfo.name, "mcp-servers/everything");
        const res = await client.callTool("echo", { message: "through the bridge" });
        assert.match(res.content[0].text, /through the bridge/, way.name);

        const uri = client.resources.get().items.find((r) => r.uri.startsWith("demo://resource/static/document/"))?.uri;
        assert.ok(uri, `${way.name}: a static document resource`);
        // Each read of the subscribed resource resolves the next waiter.
        const reads = [];
        let onRead = () => {};
        const nextRead = () => new Promise((resolve) => (onRead = resolve));
        let read = nextRead();
        const stop = client.subscribeResource(uri, (contents) => (reads.push(contents), onRead()));
        try {
          await read; // the first read, at subscribing
          read = nextRead();
          const updated = nextEvent(client, "notification", (n) => n.method === "notifications/resources/updated" && n.params?.uri === uri, 20000);
          await client.callTool("toggle-subscriber-updates", {});
          await updated;
          await read; // read again after the update
          assert.ok(reads.length >= 2 && reads.at(-1)[0].uri === uri, way.name);
        } finally {
          stop();
        }
      } finally {
        await client.close();
      }
    }
  });
});

describe("a go-sdk stdio server through mcplive-bridge", () => {
  let bridge;
  // -v: the bridge logs the server's stderr ("hang started").
  before(async () => (bridge = await startBridge(["-v", "--", ...GO_STDIO()])));
  after(() => bridge?.stop());

  test("list_changed: tools added and removed by the server are followed, over both transports", async () => {
    for (const way of ways(bridge)) {
      const client = await connect(way.url, way.options);
      try {
        assert.equal(client.protocolVersion, way.revision, way.name);
        assert.ok(keys(client.tools.get()).includes("add_tool"), way.name);
        const added = nextEvent(client, "change", (e) => e.kind === "tools" && e.added.some((t) => t.name === "late"));
        await client.callTool("add_tool", { name: "late" });
        await added;
        await waitFor(client.tools, (v) => keys(v).includes("late"));
        const removed = nextEvent(client, "change", (e) => e.kind === "tools" && e.removed.some((t) => t.name === "late"));
        await client.callTool("remove_tool", { name: "late" });
        await removed;
        assert.ok(!keys(client.tools.get()).includes("late"), way.name);
      } finally {
        await client.close();
      }
    }
  });

  test("a server process that exits mid-call: the call rejects with its last stderr line, the client reconnects to a new process", async () => {
    for (const way of ways(bridge)) {
      const client = await connect(way.url, { ...way.options, reconnect: { initialDelayMs: 10, maxDelayMs: 100 } });
      try {
        await assert.rejects(client.callTool("crash", {}), (err) => /crashing on purpose/.test(err.message), way.name);
        // Over HTTP the next request finds the session gone (404) and
        // starts a new one; over WebSocket the socket closed.
        let res;
        for (let i = 0; !res; i++) {
          res = await client.callTool("echo", { text: "again" }).catch((err) => (i > 200 ? Promise.reject(err) : null));
          if (!res) await waitFor(client.status, (s) => s === "ready", 20000);
        }
        assert.equal(res.content[0].text, "again", way.name);
      } finally {
        await client.close();
      }
    }
  });

  test("2026-07-28 over Streamable HTTP: two pages share the server's process; each one's stores follow its changes, a call's progress reaches its caller, a subscribed resource's update reaches its subscriber", async () => {
    const fetch = viaBridge(bridge.origin, { token: bridge.token });
    const a = await connect(bridge.http, { fetch });
    const b = await connect(bridge.http, { fetch });
    try {
      assert.equal(a.protocolVersion, "2026-07-28");
      assert.equal(b.protocolVersion, "2026-07-28");
      // A change one page causes: both stores follow (each page's listen stream).
      await a.callTool("add_tool", { name: "shared_js" });
      await waitFor(a.tools, (v) => keys(v).includes("shared_js"), 20000);
      await waitFor(b.tools, (v) => keys(v).includes("shared_js"), 20000);
      await b.callTool("remove_tool", { name: "shared_js" });
      await waitFor(a.tools, (v) => !keys(v).includes("shared_js"), 20000);
      await waitFor(b.tools, (v) => !keys(v).includes("shared_js"), 20000);

      // Both pages call at once with progress: each hears its own (the
      // bridge gives each request its own id and token towards the process).
      const progress = { a: [], b: [] };
      const [ra, rb] = await Promise.all([
        a.callTool("slow", {}, { onProgress: (p) => progress.a.push(p.progress) }),
        b.callTool("slow", {}, { onProgress: (p) => progress.b.push(p.progress) }),
      ]);
      assert.equal(ra.content[0].text, "done");
      assert.equal(rb.content[0].text, "done");
      assert.deepEqual(progress, { a: [1, 2], b: [1, 2] });

      // Page a subscribes to a resource, page b changes it.
      let onRead = () => {};
      const reads = [];
      let read = new Promise((resolve) => (onRead = resolve));
      const stop = a.subscribeResource("test://counter", (contents) => (reads.push(contents[0].text), onRead()));
      try {
        await read;
        read = new Promise((resolve) => (onRead = resolve));
        const res = await b.callTool("bump", {});
        await read;
        assert.equal(reads.at(-1), res.content[0].text, "a read the value b set");
        // The subscription replaced a's listen stream: list changes still reach both pages.
        await b.callTool("add_tool", { name: "after_subscribe" });
        await waitFor(a.tools, (v) => keys(v).includes("after_subscribe"), 20000);
        await waitFor(b.tools, (v) => keys(v).includes("after_subscribe"), 20000);
      } finally {
        stop();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("2026-07-28 over Streamable HTTP: the shared process exits mid-call; every page's call in flight rejects with its last stderr line, and the stores follow the new process", async () => {
    const fetch = viaBridge(bridge.origin, { token: bridge.token });
    const reconnect = { initialDelayMs: 10, maxDelayMs: 100 };
    const a = await connect(bridge.http, { fetch, reconnect });
    const b = await connect(bridge.http, { fetch, reconnect });
    try {
      await a.callTool("add_tool", { name: "before_the_crash" });
      await waitFor(b.tools, (v) => keys(v).includes("before_the_crash"), 20000);
      const started = () => bridge.log.filter((l) => l.includes("hang started")).length;
      const before = started();
      const hanging = b.callTool("hang", {});
      hanging.catch(() => {});
      while (started() === before) await new Promise((resolve) => setTimeout(resolve, 10)); // the call is in the process
      await assert.rejects(a.callTool("crash", {}), (err) => /crashing on purpose/.test(err.message));
      await assert.rejects(hanging, (err) => /crashing on purpose/.test(err.message));
      // A new process: the tool added to the first one is gone from both pages' stores.
      for (const c of [a, b]) await waitFor(c.tools, (v) => keys(v).includes("echo") && !keys(v).includes("before_the_crash"), 20000);
      assert.equal((await b.callTool("echo", { text: "again" })).content[0].text, "again");
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("the fetch option: a function, for http(s) URLs; viaBridge checks its arguments", async () => {
    await assert.rejects(connect(bridge.http, { fetch: "nope" }), (err) => err instanceof TypeError && /fetch must be a function/.test(err.message));
    await assert.rejects(connect(bridge.ws, { fetch: globalThis.fetch }), (err) => err instanceof TypeError && /WebSocket/.test(err.message));
    assert.throws(() => viaBridge("not a url"), TypeError);
    assert.throws(() => viaBridge("ws://127.0.0.1:1"), TypeError);
    assert.throws(() => viaBridge(bridge.origin, { tokn: "x" }), /unknown option/);
  });

  test("without the token the bridge refuses, and the error says how to fix it", async () => {
    await assert.rejects(connect(bridge.http, { reconnect: false, dialTimeoutMs: 5000 }), (err) => /401/.test(err.message), "no token");
    await assert.rejects(
      connect(bridge.http, { fetch: viaBridge(bridge.origin, { token: "wrong" }), reconnect: false, dialTimeoutMs: 5000 }),
      (err) => /401/.test(err.message),
      "a wrong token",
    );
    // What the bridge answered, as a page's script would read it.
    const res = await viaBridge(bridge.origin)(bridge.http, { method: "POST", body: "{}" });
    assert.equal(res.status, 401);
    assert.match(await res.text(), /X-Bridge-Token.*-insecure-no-token/);
  });
});

describe("a remote server reached through mcplive-bridge -upstream (its URL stays the client's)", () => {
  let server, bridge;
  before(async () => {
    server = await startServer();
    bridge = await startBridge(["-upstream", server.mcp]);
  });
  after(async () => {
    await bridge?.stop();
    server?.stop();
  });

  test("connect and hub.add with the fetch option: lists, a call, a list change through the forwarded event stream", async () => {
    const fetch = viaBridge(bridge.origin, { token: bridge.token });
    const forwarded = [];
    const counting = (input, init) => (forwarded.push(String(input)), fetch(input, init));
    // 2025-11-25: the session's GET stream; 2026-07-28: the listen stream.
    for (const protocolVersion of ["2025-11-25", "2026-07-28"]) {
      const client = await connect(server.mcp, { fetch: counting, protocolVersion });
      try {
        assert.ok(forwarded.length > 0 && forwarded.every((u) => u === server.mcp), "every request names the server's URL");
        assert.ok(keys(client.tools.get()).includes("echo"));
        const res = await client.callTool("echo", { text: "forwarded" });
        assert.match(res.content[0].text, /forwarded/);
        const added = nextEvent(client, "change", (e) => e.kind === "tools" && e.added.some((t) => t.name === "via_bridge_" + protocolVersion));
        await server.control("add-tool", { name: "via_bridge_" + protocolVersion });
        await added;
      } finally {
        await client.close();
      }
    }
    const hub = createHub();
    try {
      const c = await hub.add("remote", server.mcp, { fetch });
      assert.ok(keys(c.tools.get()).includes("via_bridge_2025-11-25"));
    } finally {
      await hub.close();
    }
  });

  test("another server through the same bridge is refused, naming -upstream", async () => {
    const other = "http://127.0.0.1:1/mcp";
    await assert.rejects(
      connect(other, { fetch: viaBridge(bridge.origin, { token: bridge.token }), reconnect: false, dialTimeoutMs: 5000 }),
      (err) => /403/.test(err.message),
    );
    const res = await viaBridge(bridge.origin, { token: bridge.token })(other, { method: "POST", body: "{}" });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /-upstream http:\/\/127\.0\.0\.1:1\/mcp/);
  });
});
