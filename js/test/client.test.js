// The npm package in Node with the real wasm against the real go-sdk test
// server, over a real WebSocket and over Streamable HTTP, in both protocol
// revisions (MODES).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { createServer } from "node:http";
import { connect } from "../index.js";
import { startServer, waitFor, nextEvent, keys, recorder, sentinel, MODES, urlFor } from "./helpers.js";

for (const mode of MODES) describe(`a connected client (${mode.name})`, () => {
  let server, client;
  before(async () => {
    server = await startServer();
    client = await connect(urlFor(server, mode), { ...mode.options, clientInfo: { name: "mcplive-js-test", version: "1.0.0" } });
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test("connect resolves ready, with server info", () => {
    assert.equal(client.status.get(), "ready");
    assert.equal(client.serverInfo.name, "mcplive-testserver");
    assert.equal(client.serverInfo.version, "1.0.0");
    // Unless pinned, the client tries the current revision first; go-sdk v1.8 speaks it.
    assert.equal(client.protocolVersion, mode.version);
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
        assert.equal(events.length, 1, "one change event");
        const [ev] = events;
        assert.deepEqual(await sentinel(server, client, c.kind), [], "nothing else happened");
        assert.equal(ev.kind, c.kind);
        assert.equal(ev.version, before.version + 1);
        assert.equal(after.version, before.version + 1);
        assert.deepEqual(ev.added.map((i) => i[c.field]), [c.key]);
        assert.deepEqual([...ev.removed, ...ev.changed], []);
        assert.equal(ev.cause, "notification");
        assert.ok(typeof ev.latencyMs === "number" && ev.latencyMs >= 0, `latencyMs ${ev.latencyMs}`);
        assert.ok(Object.isFrozen(ev));
        assert.equal(ev.added[0], after.items.find((i) => i[c.field] === c.key), "the event's item is the store's object");
        for (const old of before.items) {
          assert.ok(after.items.includes(old), `unchanged ${old[c.field]} keeps its identity`);
        }

        events.length = 0;
        const withX = store.get();
        await server.control(...c.remove);
        const gone = await waitFor(store, (v) => !v.items.some((i) => i[c.field] === c.key));
        assert.equal(events.length, 1, "one change event");
        assert.deepEqual(await sentinel(server, client, c.kind), [], "nothing else happened");
        assert.deepEqual(events[0].removed, [ev.added[0]], "removed holds the object the store had");
        assert.equal(events[0].version, withX.version + 1);
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

  test("large and non-ASCII messages arrive whole, byte for byte", async () => {
    // Over WebSocket a text frame is encoded into Go's memory through a
    // buffer that starts at 64 KB: these frames take the grow path (more
    // than 64 KB; multi-byte characters make the encoding longer than the
    // string) and the fit path (a small one after it).
    const sizes = [
      ["big", "é€😀 ".repeat(30000)],
      ["small", "naïve café ✓"],
      ["ascii", "x".repeat(100000)],
    ];
    for (const [name, description] of sizes) {
      const tool = `frame-${name}`;
      // A generous bound for 300 KB on a busy machine: it only keeps a lost
      // message from hanging the test.
      const evp = nextEvent(client, "change", (e) => e.kind === "tools" && e.added.some((t) => t.name === tool), 30000);
      await server.control("add-tool", { name: tool, description });
      const ev = await evp;
      assert.equal(ev.added.find((t) => t.name === tool).description, description, `${name}: the description as sent`);
    }
    for (const [name] of sizes) {
      const evp = nextEvent(client, "change", (e) => e.kind === "tools" && e.removed.some((t) => t.name === `frame-${name}`), 30000);
      await server.control("remove-tool", { name: `frame-${name}` });
      await evp;
    }
  });

  test("large and non-ASCII messages leave whole, byte for byte", async () => {
    // Over WebSocket a text frame leaves Go as bytes that the loader decodes
    // from Go's memory: multi-byte characters, a large frame, an empty string
    // and a NUL all make the round trip.
    for (const text of ["é€😀 ".repeat(30000), "naïve café ✓", "x".repeat(100000), "", "a\u0000b"]) {
      const r = await client.callTool("echo", { text });
      assert.equal(r.content[0].text, text, `echo of ${text.length} characters`);
    }
  });

  test("calls: callTool, getPrompt, readResource, complete, ping, refresh", async () => {
    const echo = await client.callTool("echo", { text: "hi" });
    assert.deepEqual(echo.content, [{ type: "text", text: "hi" }]);
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
    assert.equal(client.tools.get(), v, "a re-list with the same content changes nothing (receivedAt included)");
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

    await assert.rejects(client.callTool("slow", { steps: 250 }, { timeoutMs: 100 }), (err) => {
      assert.ok(err instanceof Error);
      assert.equal(err.name, "TimeoutError");
      assert.equal(err.message, "tools/call: no answer within 100 ms");
      return true;
    });

    const ac = new AbortController();
    const seen = [];
    const call = client.callTool("slow", { steps: 250 }, {
      signal: ac.signal,
      onProgress: (p) => {
        seen.push(p);
        if (seen.length === 2) ac.abort();
      },
    });
    await assert.rejects(call, (err) => err instanceof Error && err.name === "AbortError");
    // The server saw the cancellation (notifications/cancelled; over
    // Streamable HTTP in 2026-07-28 the closed response stream): its
    // handler's context ended. go-sdk v1.8's stateless HTTP handler does
    // not end it when the stream closes (a plain fetch aborted mid-stream
    // does not either), so that mode cannot show it.
    if (!(mode.transport === "http" && mode.version === "2026-07-28")) await server.waitForLog("slow: cancelled");
    await assert.rejects(client.ping({ signal: AbortSignal.abort() }), { name: "AbortError" });
    assert.equal(await client.ping(), undefined, "the client works on");
  });

  test("subscribeResource gives fresh contents on every update", async () => {
    const got = recorder();
    const errors = [];
    const stop = client.subscribeResource("test://readme", (contents) => got.push(contents[0].text), { onError: (e) => errors.push(e) });
    await got.next((t) => t === "hello");
    await server.control("update-resource", { uri: "test://readme", text: "hello 2" });
    await got.next((t) => t === "hello 2");
    stop();
    const n = got.seen.length;
    // The sentinel: a second subscription that sees the next two updates.
    const other = recorder();
    const stopOther = client.subscribeResource("test://readme", (contents) => other.push(contents[0].text));
    await other.next((t) => t === "hello 2");
    await server.control("update-resource", { uri: "test://readme", text: "hello 3" });
    await other.next((t) => t === "hello 3");
    await server.control("update-resource", { uri: "test://readme", text: "hello" });
    await other.next((t) => t === "hello", { from: 2 });
    stopOther();
    assert.equal(got.seen.length, n, "nothing after unsubscribe");
    assert.deepEqual(errors, []);
  });

  test("log and notification events", async () => {
    await client.setLoggingLevel("info");
    const logp = nextEvent(client, "log");
    const notep = nextEvent(client, "notification", (n) => n.method === "notifications/message");
    const dropped = recorder();
    const off = client.on("log", dropped.push);
    // A server logs while it serves a request (all that 2026-07-28 allows).
    await client.callTool("echo", { text: "x", log: { level: "debug", data: "below the level" } });
    await client.callTool("echo", { text: "x", log: { level: "warning", data: { hello: "world" } } });
    const log = await logp;
    off();
    assert.equal(dropped.seen.length, 1, "the debug message stayed on the server");
    assert.equal(log.level, "warning");
    assert.deepEqual(log.data, { hello: "world" });
    assert.equal(log.logger, "testserver");
    const note = await notep;
    assert.equal(note.params.level, "warning");
    assert.throws(() => client.on("nope", () => {}), TypeError);
  });
});

// A failed dial rejects at once in Node (20 and 22), whose WebSocket fires
// only `error` when a handshake fails: js/src/dial.js. dialTimeoutMs is a
// minute, so only the test's own timeout (20 s) could end a wait for it.
describe("a failed connect rejects at once, with a DialError", { timeout: 20000 }, () => {
  const DIAL = { dialTimeoutMs: 60000, reconnect: false };
  let server, http, tls;
  before(async () => {
    server = await startServer();
    // An HTTP server that answers a WebSocket upgrade by its path: 403 (a
    // refused Origin or token), 200 with a page (not MCP).
    http = createServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" }).end("hello, I am not MCP");
    });
    http.on("upgrade", (req, socket) => {
      const status = req.url.startsWith("/forbidden") ? "403 Forbidden" : "200 OK";
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
    await new Promise((r) => http.listen(0, "127.0.0.1", r));
  });
  after(async () => {
    http?.close();
    await server?.stop();
  });

  // In Node: no browser words (CORS, this page's Origin).
  const isDialError = (url) => (err) => {
    assert.ok(err instanceof Error);
    assert.equal(err.name, "DialError", err.message);
    assert.ok(err.message.startsWith(`could not connect to ${url}: `), err.message);
    for (const cause of ["server is down", "path", "token", "HTTP status"]) assert.ok(err.message.includes(cause), err.message);
    assert.doesNotMatch(err.message, /mcplive:|closed network|failed to|context|CORS|Origin|page/);
    assert.doesNotMatch(err.stack, /wasm:\/\//, "the stack has no wasm frames");
    return true;
  };

  // Node's fetch (the probe of the same path over http://) tells the
  // system's error, which its WebSocket does not.
  for (const scheme of ["ws", "http"]) {
    test(`a refused port (${scheme}://): ECONNREFUSED, as the cause too`, async () => {
      const url = `${scheme}://127.0.0.1:${await freePort()}/mcp`;
      await assert.rejects(connect(url, DIAL), (err) => {
        assert.equal(err.name, "DialError", err.message);
        assert.match(err.message, new RegExp(`^could not connect to ${url.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+ \\(ECONNREFUSED\\): is the server up and the URL right\\?$`));
        assert.equal(err.cause?.code, "ECONNREFUSED");
        assert.doesNotMatch(err.message, /CORS|Origin|page/);
        return true;
      });
    });
  }

  test("a ws:// URL of a Streamable HTTP server: try http://", async () => {
    // An HTTP-only MCP server: a JSON-RPC answer to a POST, no upgrade.
    const only = createServer((req, res) => {
      res.writeHead(req.method === "POST" ? 400 : 405, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "initialize first" } }));
    });
    only.on("upgrade", (req, socket) => socket.end("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
    await new Promise((r) => only.listen(0, "127.0.0.1", r));
    try {
      const httpURL = `http://127.0.0.1:${only.address().port}/mcp`;
      const url = httpURL.replace(/^http:/, "ws:");
      await assert.rejects(connect(url, DIAL), (err) => {
        assert.equal(err.name, "DialError", err.message);
        assert.equal(err.message, `could not connect to ${url}: the server answered a Streamable HTTP POST to ${httpURL} as an MCP endpoint does: it may speak Streamable HTTP and not WebSocket; try ${httpURL}`);
        return true;
      });
    } finally {
      only.close();
    }
  });

  test("a wrong path (404)", async () => {
    const url = server.ws.replace(/\/mcp$/, "/not-here");
    await assert.rejects(connect(url, DIAL), isDialError(url));
  });

  test("403 (a refused Origin or token)", async () => {
    const url = `ws://127.0.0.1:${http.address().port}/forbidden`;
    await assert.rejects(connect(url, DIAL), isDialError(url));
  });

  test("an HTTP server that is not MCP", async () => {
    const url = `ws://127.0.0.1:${http.address().port}/mcp`;
    await assert.rejects(connect(url, DIAL), isDialError(url));
  });

  test("wss:// to a plain port", async () => {
    const url = `wss://127.0.0.1:${http.address().port}/mcp`;
    await assert.rejects(connect(url, DIAL), isDialError(url));
  });

  test("https:// to a plain port (Streamable HTTP)", async () => {
    const url = `https://127.0.0.1:${http.address().port}/mcp`;
    await assert.rejects(connect(url, DIAL), (err) => {
      assert.equal(err.name, "DialError", err.message);
      assert.ok(err.message.startsWith(`could not connect to ${url}: `), err.message);
      assert.doesNotMatch(err.message, /mcplive:|context|fetch\(\)|net\/http|CORS/);
      return true;
    });
  });

  test("the WebSocket global is the original again after each dial", () => {
    assert.equal(globalThis.WebSocket, originalWebSocket);
  });
});

const originalWebSocket = globalThis.WebSocket;

describe("mistakes are TypeErrors or rejections the caller can catch", () => {
  let server, client;
  before(async () => {
    server = await startServer();
    client = await connect(server.ws);
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test("callTool without a name, or with arguments that are not an object", async () => {
    await assert.rejects(client.callTool(), TypeError);
    await assert.rejects(client.callTool(""), TypeError);
    await assert.rejects(client.callTool(42), TypeError);
    await assert.rejects(client.callTool("echo", [1]), TypeError);
    await assert.rejects(client.getPrompt(), TypeError);
    await assert.rejects(client.readResource(), TypeError);
    await assert.rejects(client.complete({}), TypeError);
    assert.equal(server.log.filter((l) => l.includes("undefined")).length, 0);
  });

  test("setLoggingLevel with a level MCP does not have", async () => {
    await assert.rejects(client.setLoggingLevel("loud"), (err) => err instanceof TypeError && /"loud" is not a level/.test(err.message));
    assert.equal(await client.setLoggingLevel("debug"), undefined);
  });

  test("unknown options", async () => {
    await assert.rejects(connect(server.ws, { timeout: 5 }), (err) => err instanceof TypeError && /"timeout"/.test(err.message));
    await assert.rejects(connect(server.ws, { reconnect: { initialDelay: 5 } }), TypeError);
    await assert.rejects(connect(server.ws, { heartbeat: { interval: 5 } }), TypeError);
    await assert.rejects(connect(server.ws, { clientInfo: { name: "x", verison: "1" } }), TypeError);
    await assert.rejects(client.callTool("echo", { text: "x" }, { timeout: 5 }), TypeError);
    await assert.rejects(client.ping({ signal: AbortSignal.abort(), retries: 1 }), TypeError);
    assert.throws(() => client.subscribeResource("test://readme", () => {}, { onErr: () => {} }), TypeError);
  });

  test("bad option values and URLs", async () => {
    await assert.rejects(connect(server.ws, { requestTimeoutMs: -1 }), TypeError);
    await assert.rejects(connect(server.ws, { reconnect: "yes" }), TypeError);
    await assert.rejects(connect(server.ws, { clientInfo: {} }), TypeError);
    await assert.rejects(connect(server.ws, null), TypeError);
    await assert.rejects(connect("127.0.0.1:8080/mcp"), TypeError);
    await assert.rejects(connect("ftp://127.0.0.1/mcp"), TypeError);
  });

  test("a wasmUrl other than the one this process loaded", async () => {
    await assert.rejects(connect(server.ws, { wasmUrl: new URL("../node_modules/other.wasm", import.meta.url) }), (err) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /wasmUrl .*other\.wasm differs from the URL this realm loaded the wasm from/);
      return true;
    });
    // The same URL as the first connect's (the default) is fine.
    const same = await connect(server.ws, { wasmUrl: new URL("../mcplive.wasm", import.meta.url) });
    await same.close();
  });

  for (const mode of MODES) {
    test(`${mode.name}: a closed client's lists are stale and not live, every one, as close() resolves`, async () => {
      const c = await connect(urlFor(server, mode), mode.options);
      assert.equal(c.tools.get().live, true);
      const seen = [];
      const offs = ["tools", "prompts", "resources", "resourceTemplates"].map((k) => c[k].listen((v) => seen.push([k, v.status, v.live])));
      await c.close();
      for (const k of ["tools", "prompts", "resources", "resourceTemplates"]) {
        const v = c[k].get();
        assert.ok(v.status === "stale" || v.status === "unsupported", `${k}: ${v.status}`);
        assert.equal(v.live, false, `${k} live after close()`);
      }
      assert.deepEqual(seen.filter(([, status, live]) => status === "stale" && live), [], "no value stale and live");
      for (const off of offs) off();
    });
  }

  test("subscribeResource after close() throws a ClosedError; nothing is printed", async (t) => {
    const printed = [];
    t.mock.method(console, "error", (...a) => printed.push(a.join(" ")));
    const c = await connect(server.ws);
    // One in flight while closing: its failure is the close, not news.
    const errors = [];
    c.subscribeResource("test://readme", () => {}, { onError: (e) => errors.push(e) });
    await c.close();
    assert.throws(
      () => c.subscribeResource("test://readme", () => {}),
      (err) => err instanceof Error && err.name === "ClosedError",
    );
    await assert.rejects(c.ping(), { name: "ClosedError", message: "ping: connection closed (the client is closed)" });
    await sentinel(server, client, "tools"); // anything still coming has arrived
    assert.deepEqual(errors, []);
    assert.deepEqual(printed, []);
  });
});

describe("errors read as JS", () => {
  let server;
  before(async () => (server = await startServer()));
  after(() => server?.stop());

  test("the client's request timeout: TimeoutError, in seconds or ms, no Go wording", async () => {
    const c = await connect(server.ws, { requestTimeoutMs: 300 });
    try {
      await assert.rejects(c.callTool("slow", { steps: 1000 }), (err) => {
        assert.equal(err.name, "TimeoutError");
        assert.equal(err.message, "tools/call: no answer within 300 ms");
        assert.doesNotMatch(err.stack, /wasm:\/\//);
        return true;
      });
    } finally {
      await c.close();
    }
  });

  // A server that accepts and never answers: the same name, the same
  // words and the same dialTimeoutMs over both transports (over Streamable
  // HTTP the probe and the retry with initialize share the dial timeout).
  for (const scheme of ["ws", "http"]) {
    test(`a dial timeout over ${scheme}://: TimeoutError naming the URL and the timeout`, async () => {
      const silent = await silentServer();
      const url = silent.url.replace(/^ws:/, `${scheme}:`);
      try {
        await assert.rejects(connect(url, { dialTimeoutMs: 300, reconnect: false }), (err) => {
          assert.equal(err.name, "TimeoutError", err.message);
          assert.equal(err.message, `could not connect to ${url}: no answer within 300 ms (dialTimeoutMs)`);
          assert.doesNotMatch(err.stack, /wasm:\/\//);
          return true;
        });
      } finally {
        silent.close();
      }
    });
  }

  test("an RPC error: the server's message, code and data", async () => {
    const c = await connect(server.ws);
    try {
      await assert.rejects(c.callTool("fail"), (err) => {
        assert.equal(err.name, "RPCError");
        assert.equal(err.message, "tools/call: this tool always fails");
        assert.equal(err.code, -32001);
        return true;
      });
    } finally {
      await c.close();
    }
  });
});

describe("reconnecting", () => {
  // Over Streamable HTTP in 2025-11-25 the server forgets the session: its
  // next request (the GET stream's resumption) gets 404, and the client
  // opens a new session. In 2026-07-28 the listen stream ends.
  for (const mode of MODES) test(`reconnect after the server drops the connection (${mode.name})`, async () => {
    const server = await startServer();
    const client = await connect(urlFor(server, mode), { ...mode.options, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    try {
      const states = [];
      client.status.listen((s) => states.push(s));
      const listStates = [];
      client.tools.listen((v) => listStates.push(v.status));
      const changes = recorder();
      client.on("change", changes.push);
      const before = client.tools.get();
      const readme = recorder();
      client.subscribeResource("test://readme", (c) => readme.push(c[0].text));
      await readme.next((t) => t === "hello");

      // Drop the connection and change the server's lists while away.
      const drop = await server.control("drop");
      assert.equal(drop.dropped, 1);
      await server.control("add-tool", { name: "while-away" });
      await server.control("update-resource", { uri: "test://readme", text: "changed while away" });
      await waitFor(client.tools, (v) => v.items.some((t) => t.name === "while-away") && v.status === "ready", 10000);
      await waitFor(client.status, (s) => s === "ready");
      assert.ok(states.includes("reconnecting"), `states: ${states}`);
      assert.ok(listStates.includes("stale"), `list states: ${listStates}`);
      const ev = await changes.next((e) => e.kind === "tools" && e.added.some((t) => t.name === "while-away"));
      assert.equal(ev.cause, "reconnect");
      assert.equal(ev.latencyMs, null);
      const after = client.tools.get();
      for (const t of before.items) assert.ok(after.items.includes(t), "identity survives a reconnect");
      await readme.next((t) => t === "changed while away", { what: "the resource read again after the reconnect" });
      // The subscription was re-established on the new connection.
      await server.control("update-resource", { uri: "test://readme", text: "after" });
      await readme.next((t) => t === "after");
      assert.equal((await client.callTool("echo", { text: "back" })).content[0].text, "back");
    } finally {
      await client.close();
      await server.stop();
    }
  });

  for (const mode of MODES) test(`a server restarted on the same port: Node reconnects as soon as it is back (${mode.name})`, { timeout: 20000 }, async () => {
    // A dial the server refuses fails at once (js/src/dial.js), so with a
    // minute of dial timeout the client still tries every few hundred ms.
    const first = await startServer();
    const addr = new URL(first.ws).host;
    const [host, port] = [addr.split(":")[0], Number(addr.split(":")[1])];
    const client = await connect(urlFor(first, mode), { ...mode.options, dialTimeoutMs: 60000, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    const before = client.tools.get();
    let second, notMCP;
    try {
      await first.stop();
      await waitFor(client.status, (s) => s === "reconnecting");
      // While down, an HTTP server that is not MCP takes the port: it counts
      // the client's attempts, each of which must fail at once.
      const attempts = recorder();
      notMCP = createServer((req, res) => (attempts.push(req.url), res.writeHead(404).end("not MCP")));
      notMCP.on("upgrade", (req, socket) => (attempts.push(req.url), socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")));
      await new Promise((r) => notMCP.listen(port, host, r));
      await attempts.next(() => true, { from: 2, ms: 15000, what: "three attempts" });
      await new Promise((r) => (notMCP.close(r), notMCP.closeAllConnections()));
      notMCP = null;
      second = await startServer(["-addr", addr]);
      await waitFor(client.status, (s) => s === "ready", 15000);
      assert.equal((await client.callTool("echo", { text: "back" })).content[0].text, "back");
      // A new server with the same lists: re-listed, nothing changed, same objects.
      const after = await waitFor(client.tools, (v) => v.status === "ready");
      assert.equal(after.version, before.version);
      assert.equal(after.items, before.items);
      assert.equal(client.protocolVersion, mode.version);
    } finally {
      notMCP?.close();
      await client.close();
      await second?.stop();
    }
  });

  for (const mode of MODES) test(`without reconnect a drop closes the client (${mode.name})`, async () => {
    const server = await startServer();
    const client = await connect(urlFor(server, mode), { ...mode.options, reconnect: false });
    try {
      // Over Streamable HTTP in 2026-07-28 there is no connection to drop:
      // a server that ends the subscriptions/listen stream is listened to
      // again (reconnect concerns connections); a server that is gone
      // closes the client.
      if (mode.transport === "http" && mode.version === "2026-07-28") await server.stop();
      else await server.control("drop");
      await waitFor(client.status, (s) => s === "closed");
      await assert.rejects(client.callTool("echo", { text: "x" }), (err) => err instanceof Error && err.name === "ClosedError");
      assert.equal(client.tools.get().items.length, 4, "lists keep their last items");
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test("an AbortSignal aborts the connecting", async () => {
    const silent = await silentServer();
    try {
      const ac = new AbortController();
      const p = connect(silent.url, { signal: ac.signal, dialTimeoutMs: 60000 });
      await silent.connections.next();
      ac.abort();
      await assert.rejects(p, { name: "AbortError" });
      await assert.rejects(connect("ws://127.0.0.1:1/mcp", { signal: AbortSignal.abort() }), { name: "AbortError" });
    } finally {
      silent.close();
    }
  });

  test("two clients to two servers work independently", async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const [ca, cb] = await Promise.all([connect(a.ws), connect(b.ws)]);
    try {
      await a.control("add-tool", { name: "only-a" });
      await b.control("add-tool", { name: "only-b" });
      await waitFor(ca.tools, (v) => v.items.some((t) => t.name === "only-a"));
      await waitFor(cb.tools, (v) => v.items.some((t) => t.name === "only-b"));
      await Promise.all([sentinel(a, ca, "tools"), sentinel(b, cb, "tools")]);
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

/** silentServer accepts TCP connections and never answers a WebSocket handshake. */
async function silentServer() {
  const srv = net.createServer(() => {});
  const sockets = [];
  const connections = recorder();
  srv.on("connection", (s) => (sockets.push(s), connections.push(1)));
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return {
    url: `ws://127.0.0.1:${srv.address().port}/mcp`,
    connections,
    close() {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}
