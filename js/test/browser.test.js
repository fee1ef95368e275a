// The connect-and-change test in headless Chromium (Debian's chromium,
// driven by playwright-core): the page imports /js/index.js from the Go test
// server, which serves the package (-static) and the MCP endpoint on one
// origin. Also: the loader's fallback for a wrong wasm MIME type, and a
// module Web Worker.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startServer } from "./helpers.js";

const exe = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));
const skip = exe ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
// Flags that keep Chromium off the (closed) network.
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

describe("in headless Chromium", { skip }, () => {
  let server, browser;
  const problems = [];
  before(async () => {
    const { chromium } = await import("playwright-core");
    server = await startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]);
    browser = await chromium.launch({ executablePath: exe, args: ARGS, headless: true });
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

  test("connect, first values, a list_changed with identity kept, close", async () => {
    const page = await openPage();
    const first = await page.evaluate(async (ws) => {
      const client = await window.mcplive.connect(ws);
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
      };
    }, server.ws);
    assert.deepEqual(first, { status: "ready", tools: ["add", "echo", "fail", "slow"], prompts: ["greet"], resources: 2, templates: "ready", server: "mcplive-testserver" });

    await server.control("add-tool", { name: "browser-tool" });
    await page.waitForFunction(() => window.client.tools.get().items.some((t) => t.name === "browser-tool"), null, { timeout: 5000 });
    const withTool = await page.evaluate(() => ((window.now = window.client.tools.get()), window.events.length));
    assert.equal(withTool, 1);
    // The sentinel: its removal must be the next event, so nothing else came in between.
    await server.control("remove-tool", { name: "browser-tool" });
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
      { kind: "tools", added: ["browser-tool"], removed: [], version: after.before + 1, cause: "notification", latency: "number" },
      { kind: "tools", added: [], removed: ["browser-tool"], version: after.before + 2, cause: "notification", latency: "number" },
    ]);
    assert.equal(after.version, after.before + 1);
    assert.ok(after.kept, "unchanged tools keep their identity");
    assert.equal(after.echo, "from the page");
    assert.deepEqual(after.error, { isError: true, name: "RPCError", code: -32001, data: { reason: "test" } });
    assert.equal(after.status, "closed");
    await page.close();
    assert.deepEqual(problems, []);
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
    // Chromium logs the failed handshake itself ("WebSocket connection to … failed"): not ours.
    const ours = problems.filter((p) => !/WebSocket connection to .* failed/.test(p));
    problems.length = 0;
    assert.deepEqual(ours, []);
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
});
