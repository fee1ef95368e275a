// The connect-and-change test in headless Chromium (Debian's chromium,
// driven by playwright-core), over both transports and both protocol
// revisions: the page imports /js/index.js from the Go test server, which
// serves the package (-static) and the MCP endpoint on one origin. A server
// built on the TypeScript SDK v2 on another origin (CORS), and one without
// CORS headers. Also: the loader's fallback for a wrong wasm MIME type, and a
// module Web Worker.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startServer, MODES, urlFor, NO_CHROMIUM, launchChromium } from "./helpers.js";
import { startTSServer } from "./ts-server.js";
import { startHostileHTTP } from "./hostile-http.js";

const skip = NO_CHROMIUM;

describe("in headless Chromium", { skip }, () => {
  let server, browser;
  const problems = [];
  before(async () => {
    server = await startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function openPage() {
    const page = await browser.newPage();
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    page.on("console", (msg) => msg.type() === "error" && problems.push(`console: ${msg.text()}`));
    await page.goto(`${server.http}/js/test/browser/page.html`);
    await page.waitForFunction(() => document.title === "ready");
    return page;
  }

  for (const mode of MODES) test(`connect, first values, a list_changed with identity kept, close (${mode.name})`, async () => {
    const page = await openPage();
    const first = await page.evaluate(async ([url, options]) => {
      const client = await window.mcplive.connect(url, options);
      window.client = client;
      window.events = [];
      client.on("change", (ev) =>
        window.events.push({
          kind: ev.kind,
          added: ev.added.map((t) => t.name),
          removed: ev.removed.map((t) => t.name),
          version: ev.version,
          cause: ev.cause,
          latency: typeof ev.latencyMs,
        }),
      );
      window.before = client.tools.get();
      return {
        status: client.status.get(),
        tools: client.tools.get().items.map((t) => t.name).sort(),
        prompts: client.prompts.get().items.map((p) => p.name),
        resources: client.resources.get().items.length,
        templates: client.resourceTemplates.get().status,
        server: client.serverInfo.name,
        version: client.protocolVersion,
        live: client.tools.get().live,
      };
    }, [urlFor(server, mode), mode.options]);
    assert.deepEqual(first, {
      status: "ready",
      tools: ["add", "echo", "fail", "slow"],
      prompts: ["greet"],
      resources: 2,
      templates: "ready",
      server: "mcplive-testserver",
      version: mode.version,
      live: true,
    });

    const toolName = `browser-tool-${mode.transport}-${mode.version}`;
    await server.control("add-tool", { name: toolName });
    await page.waitForFunction((name) => window.client.tools.get().items.some((t) => t.name === name), toolName, { timeout: 5000 });
    const withTool = await page.evaluate(() => ((window.now = window.client.tools.get()), window.events.length));
    assert.equal(withTool, 1);
    // The sentinel: its removal must be the next event, so nothing else came in between.
    await server.control("remove-tool", { name: toolName });
    await page.waitForFunction(() => window.events.length >= 2, null, { timeout: 5000 });
    const after = await page.evaluate(async () => {
      const now = window.now;
      const kept = window.before.items.every((t) => now.items.includes(t));
      const echo = await window.client.callTool("echo", { text: "from the page" });
      let error = null;
      try {
        await window.client.callTool("fail");
      } catch (err) {
        error = { isError: err instanceof Error, name: err.name, code: err.code, data: err.data };
      }
      await window.client.close();
      return { events: window.events, kept, version: now.version, before: window.before.version, echo: echo.content[0].text, error, status: window.client.status.get() };
    });
    assert.deepEqual(after.events, [
      { kind: "tools", added: [toolName], removed: [], version: after.before + 1, cause: "notification", latency: "number" },
      { kind: "tools", added: [], removed: [toolName], version: after.before + 2, cause: "notification", latency: "number" },
    ]);
    assert.equal(after.version, after.before + 1);
    assert.ok(after.kept, "unchanged tools keep their identity");
    assert.equal(after.echo, "from the page");
    assert.deepEqual(after.error, { isError: true, name: "RPCError", code: -32001, data: { reason: "test" } });
    assert.equal(after.status, "closed");
    await page.close();
    assert.deepEqual(problems, []);
  });

  // Over Streamable HTTP in 2025-11-25 the server forgets the session (its
  // next request gets 404): a new session, the lists re-listed with the
  // change made while away, the resource subscription re-established.
  for (const mode of MODES) test(`a dropped connection or expired session: reconnect, full resync, re-subscribe (${mode.name})`, async () => {
    const page = await openPage();
    await page.evaluate(async ([url, options]) => {
      const client = await window.mcplive.connect(url, { ...options, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      window.client = client;
      window.states = [];
      client.status.listen((s) => window.states.push(s));
      window.readme = [];
      client.subscribeResource("test://readme", (c) => window.readme.push(c[0].text));
    }, [urlFor(server, mode), mode.options]);
    await page.waitForFunction(() => window.readme.length > 0, null, { timeout: 5000 });
    const away = `while-away-${mode.transport}-${mode.version}`;
    const text = `changed while away ${mode.name}`;
    await server.control("drop");
    await server.control("add-tool", { name: away });
    await server.control("update-resource", { uri: "test://readme", text });
    await page.waitForFunction(
      ([name, text]) => window.client.status.get() === "ready" && window.client.tools.get().items.some((t) => t.name === name) && window.readme.includes(text),
      [away, text],
      { timeout: 15000 },
    );
    const after = `${text}, after`;
    await server.control("update-resource", { uri: "test://readme", text: after });
    await page.waitForFunction((t) => window.readme.includes(t), after, { timeout: 5000 });
    const r = await page.evaluate(async () => {
      const echo = (await window.client.callTool("echo", { text: "back" })).content[0].text;
      await window.client.close();
      return { states: window.states, echo };
    });
    await server.control("remove-tool", { name: away });
    await server.control("update-resource", { uri: "test://readme", text: "hello" });
    assert.ok(r.states.includes("reconnecting"), JSON.stringify(r.states));
    assert.equal(r.echo, "back");
    await page.close();
    // Chromium logs the 404 of the expired session itself: not ours.
    const ours = problems.filter((p) => !/status of 404 \(Not Found\)/.test(p));
    problems.length = 0;
    assert.deepEqual(ours, []);
  });

  test("a failed dial is a DialError that names the likely causes", async () => {
    const page = await openPage();
    const r = await page.evaluate(async (ws) => {
      const describe = async (url) => {
        try {
          await window.mcplive.connect(url, { reconnect: false, dialTimeoutMs: 60000 });
          return { resolved: true };
        } catch (err) {
          return { name: err.name, message: err.message, isError: err instanceof Error, wasmFrames: /wasm:\/\//.test(err.stack) };
        }
      };
      const wrongPath = ws.replace(/\/mcp$/, "/not-here");
      return { url: wrongPath, result: await describe(wrongPath), globalRestored: /native code/.test(String(WebSocket)) };
    }, server.ws);
    assert.equal(r.result.name, "DialError", JSON.stringify(r));
    assert.ok(r.result.isError);
    assert.ok(!r.result.wasmFrames, "no wasm frames in the stack");
    assert.ok(r.result.message.startsWith(`could not connect to ${r.url}: `), r.result.message);
    for (const cause of ["server is down", "path", "Origin", "token", "HTTP status"]) assert.ok(r.result.message.includes(cause), r.result.message);
    assert.doesNotMatch(r.result.message, /closed network|mcplive:/);
    assert.ok(r.globalRestored);
    await page.close();
    // Chromium logs the failed handshake itself ("WebSocket connection to … failed"),
    // and the 404 of the POST that asks whether the path speaks Streamable HTTP
    // instead (it does not): nothing else.
    const ours = problems.filter((p) => !/WebSocket connection to .* failed|Failed to load resource: the server responded with a status of 404/.test(p));
    problems.length = 0;
    assert.deepEqual(ours, []);
  });

  test("a server built on the TypeScript SDK v2 on another origin (CORS), over Streamable HTTP in 2026-07-28, with a token and a header", async () => {
    const ts = await startTSServer({ cors: true });
    try {
      const page = await openPage();
      const first = await page.evaluate(async (url) => {
        // An async token callback (Go awaits it while the page's event loop runs) and an extra header.
        const token = () => new Promise((resolve) => setTimeout(() => resolve("page-token"), 1));
        const client = await window.mcplive.connect(url, { token, headers: { "X-Api-Key": "page-key" } });
        window.ts = client;
        return { version: client.protocolVersion, server: client.serverInfo.name, tools: client.tools.get().items.map((t) => t.name).sort(), live: client.tools.get().live };
      }, ts.url);
      assert.deepEqual(first, { version: "2026-07-28", server: "ts-sdk-test-server", tools: ["add", "echo"], live: true });
      ts.addTool("from-ts-browser");
      await page.waitForFunction(() => window.ts.tools.get().items.some((t) => t.name === "from-ts-browser"), null, { timeout: 5000 });
      const r = await page.evaluate(async () => {
        const res = await window.ts.callTool("echo", { text: "cross-origin" });
        await window.ts.close();
        return res.content[0].text;
      });
      assert.equal(r, "cross-origin");
      assert.ok(ts.requests.some((q) => q.headers["mcp-method"] === "subscriptions/listen"), "the change came through subscriptions/listen");
      const posts = ts.requests.filter((q) => q.method === "POST");
      assert.ok(posts.length > 0);
      for (const q of posts) {
        assert.equal(q.headers.authorization, "Bearer page-token", JSON.stringify(q.headers));
        assert.equal(q.headers["x-api-key"], "page-key");
      }
      await page.close();
      assert.deepEqual(problems, []);
    } finally {
      await ts.close();
    }
  });

  test("a Streamable HTTP server on another origin without CORS headers: a DialError that names CORS and the headers", async () => {
    const ts = await startTSServer({ cors: false });
    try {
      const page = await openPage();
      const r = await page.evaluate(async (url) => {
        try {
          await window.mcplive.connect(url, { reconnect: false });
          return { resolved: true };
        } catch (err) {
          return { name: err.name, message: err.message };
        }
      }, ts.url);
      assert.equal(r.name, "DialError", JSON.stringify(r));
      assert.ok(r.message.startsWith(`could not connect to ${ts.url}: `), r.message);
      for (const want of ["CORS", "Access-Control-Allow-Origin", "Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-ID", "expose Mcp-Session-Id"]) {
        assert.ok(r.message.includes(want), `${want}: ${r.message}`);
      }
      await page.close();
      // Chromium logs the CORS refusal itself: not ours.
      const ours = problems.filter((p) => !/CORS|Failed to load resource|net::ERR_FAILED/.test(p));
      problems.length = 0;
      assert.deepEqual(ours, []);
    } finally {
      await ts.close();
    }
  });

  // Issue 31: the optional GET stream's failures are its own; redirects.
  for (const get of ["nocors", "cut"]) {
    test(`a GET stream refused by CORS or cut (${get}) does not fail connect: the lists are listed, not live`, async () => {
      const h = await startHostileHTTP({ get, origin: server.http });
      try {
        const page = await openPage();
        const r = await page.evaluate(async (url) => {
          const c = await window.mcplive.connect(url, { protocolVersion: "2025-11-25", reconnect: false });
          const v = c.tools.get();
          const call = await c.callTool("ok", {});
          await c.close();
          return { status: v.status, n: v.items.length, live: v.live, text: call.content[0].text };
        }, h.url);
        assert.deepEqual(r, { status: "ready", n: 6, live: false, text: "ok" });
        await page.close();
        // Chromium logs the refused or cut GET itself: not ours.
        const ours = problems.filter((p) => !/CORS|Failed to load resource|net::ERR_/.test(p));
        problems.length = 0;
        assert.deepEqual(ours, []);
      } finally {
        await h.stop();
      }
    });
  }

  test("redirects on another origin's server: a 307 on its own origin is followed; one to a third origin is refused; a loop is named", async () => {
    // The third origin allows any origin: a browser sends a redirected
    // request's Origin as "null", and refuses it itself otherwise.
    const third = await startHostileHTTP({ origin: "*" });
    const h = await startHostileHTTP({ origin: server.http, away: third.url });
    try {
      const page = await openPage();
      const r = await page.evaluate(async (base) => {
        const out = {};
        const c = await window.mcplive.connect(`${base}/same`, { protocolVersion: "2025-11-25", reconnect: false });
        out.tools = c.tools.get().items.length;
        await c.close();
        for (const path of ["/away", "/loop"]) {
          try {
            await window.mcplive.connect(`${base}${path}`, { protocolVersion: "2025-11-25", reconnect: false });
            out[path] = "resolved";
          } catch (err) {
            out[path] = `${err.name}: ${err.message}`;
          }
        }
        return out;
      }, h.base);
      assert.equal(r.tools, 6);
      assert.ok(h.requests.some((q) => q.path === "/mcp" && q.rpc === "initialize"), "the initialize reached the new path with its body");
      assert.match(r["/away"], /another origin/);
      assert.ok(r["/away"].includes(third.url), r["/away"]);
      // A browser follows redirects itself: the loop ends as fetch's own
      // failure, whose words come first.
      assert.match(r["/loop"], /^DialError: could not connect to .*\/loop: .*Failed to fetch/);
      await page.close();
      const ours = problems.filter((p) => !/CORS|Failed to load resource|net::ERR_/.test(p));
      problems.length = 0;
      assert.deepEqual(ours, []);
    } finally {
      await h.stop();
      await third.stop();
    }
  });

  test("connect, a call and close abort no POST whose answer was read", async () => {
    const page = await openPage();
    const failed = [];
    page.on("requestfailed", (req) => {
      const body = req.postData() ?? "";
      // The 2026-07-28 listen stream is ended by close: that one is aborted on purpose.
      if (req.method() === "POST" && !body.includes("subscriptions/listen")) failed.push(`${body.slice(0, 80)}: ${req.failure()?.errorText}`);
    });
    for (const mode of MODES.filter((m) => m.transport === "http")) {
      await page.evaluate(async ([url, options]) => {
        const c = await window.mcplive.connect(url, options);
        await c.callTool("echo", { text: "x" });
        await c.close();
      }, [server.mcp, mode.options]);
    }
    await page.close();
    assert.deepEqual(failed, []);
  });

  test("a wasm served with the wrong MIME type still loads", async () => {
    const page = await openPage();
    const r = await page.evaluate(async (ws) => {
      const url = "/js/mcplive.wasm?mime=wrong";
      const type = (await fetch(url, { method: "HEAD" })).headers.get("Content-Type");
      const client = await window.mcplive.connect(ws, { wasmUrl: url });
      const n = client.tools.get().items.length;
      await client.close();
      return { type, n };
    }, server.ws);
    assert.deepEqual(r, { type: "application/octet-stream", n: 4 });
    await page.close();
    assert.deepEqual(problems, []);
  });

  test("in a module Web Worker", async () => {
    const page = await openPage();
    const r = await page.evaluate(
      (ws) =>
        new Promise((resolve) => {
          const w = new Worker(`/js/test/browser/worker.js?ws=${encodeURIComponent(ws)}`, { type: "module" });
          w.onmessage = (e) => resolve(e.data);
          w.onerror = (e) => resolve({ error: e.message });
        }),
      server.ws,
    );
    assert.equal(r.error, undefined, r.error);
    assert.deepEqual(r.names.sort(), ["add", "echo", "fail", "slow"]);
    assert.equal(r.echo, "from a worker");
    assert.equal(r.status, "closed");
    await page.close();
    assert.deepEqual(problems, []);
  });

  for (const mode of MODES) test(`onElicit: a form accepted with the schema's defaults, a handler that rejects (${mode.name})`, async () => {
    await server.control("add-tool", { name: "ask", ask: true });
    try {
      const page = await openPage();
      const r = await page.evaluate(async ([url, options]) => {
        let fail = false;
        const client = await window.mcplive.connect(url, {
          ...options,
          onElicit: async (request) => {
            if (fail) throw new Error("no user here");
            return { action: "accept", content: { name: request.message === "Who are you?" ? "Ada" : "?" } };
          },
        });
        try {
          const accepted = JSON.parse((await client.callTool("ask", {})).content[0].text);
          fail = true;
          const rejected = await client.callTool("ask", {}).then(
            () => "resolved",
            (err) => `${err.name}: ${err.message}`,
          );
          return { accepted, rejected };
        } finally {
          await client.close();
        }
      }, [urlFor(server, mode), mode.options]);
      assert.deepEqual(r.accepted, { action: "accept", content: { name: "Ada", age: 30 } });
      assert.match(r.rejected, /no user here/);
      await page.close();
      assert.deepEqual(problems, []);
    } finally {
      await server.control("remove-tool", { name: "ask" });
    }
  });
});
