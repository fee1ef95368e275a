// The hub in headless Chromium: a go-sdk server over WebSocket and over
// Streamable HTTP (same origin) and a TypeScript SDK v2 server (another
// origin, CORS, 2026-07-28) in one hub in a page, each changing its tools;
// a call routed to each; a description change after approval.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startServer, NO_CHROMIUM, launchChromium } from "./helpers.js";
import { startTSServer } from "./ts-server.js";

const skip = NO_CHROMIUM;

describe("hub in headless Chromium", { skip }, () => {
  let server, ts, browser;
  before(async () => {
    [server, ts] = await Promise.all([startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]), startTSServer({ cors: true })]);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await ts?.close();
  });

  test("three servers in one hub: changing lists, identity, routing, approval", async () => {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (err) => problems.push(err.message));
    await page.goto(`${server.http}/js/test/browser/page.html`);
    await page.waitForFunction(() => document.title === "ready");
    const first = await page.evaluate(async ([ws, http, tsURL]) => {
      const hub = window.mcplive.createHub();
      window.hub = hub;
      await Promise.all([hub.add("ws", ws), hub.add("http", http, { protocolVersion: "2025-11-25" }), hub.add("ts", tsURL)]);
      window.before = hub.tools.get();
      window.waitTool = (name) =>
        new Promise((resolve) => {
          const off = hub.tools.subscribe((v) => v.items.some((i) => i.name === name) && (queueMicrotask(() => off()), resolve()));
        });
      return { names: hub.tools.get().items.map((i) => i.name), servers: hub.servers.get().map((s) => [s.id, s.status, s.protocolVersion]) };
    }, [server.ws, server.mcp, ts.url]);
    for (const n of ["ws__echo", "http__echo", "ts__echo"]) assert.ok(first.names.includes(n), n);
    assert.deepEqual(first.servers.map((s) => s[1]), ["ready", "ready", "ready"]);
    // Each server changes its tools; the ws one twice (the second a same-origin one too).
    const waiting = page.evaluate(() => Promise.all(["ws__a_b", "ws__late", "http__late", "ts__late"].map((n) => window.waitTool(n))));
    await Promise.all([server.control("add-tool", { name: "a_b" }), ts.addTool("late")]);
    await server.control("add-tool", { name: "late" });
    await waiting;
    const after = await page.evaluate(async () => {
      const v = window.hub.tools.get();
      const kept = window.before.items.filter((i) => i.server === "ts").every((i) => v.items.includes(i));
      const calls = [];
      for (const id of ["ws", "http", "ts"]) calls.push((await window.hub.callTool(`${id}__echo`, { text: id })).content[0].text);
      return { kept, calls, names: v.items.map((i) => i.name) };
    });
    assert.deepEqual(after.calls, ["ws", "http", "ts"]);
    assert.ok(after.names.includes("ts__late") && after.names.includes("http__late") && after.names.includes("ws__late"));
    // Approval, then a description change on the server.
    await page.evaluate(() => window.hub.approve("ts__late"));
    const changed = page.evaluate(
      () =>
        new Promise((resolve) => {
          const off = window.hub.on("change", (ev) => {
            const c = ev.changed.find((c) => c.item.name === "ts__late");
            if (c) off(), resolve({ fields: [...c.fields].sort(), approval: c.item.approval, offered: window.hub.toolsFor("anthropic").some((t) => t.name === "ts__late") });
          });
        }),
    );
    ts.addTool("late", "now does something else");
    assert.deepEqual(await changed, { fields: ["approval", "description"], approval: "changed", offered: false });
    await page.evaluate(() => window.hub.close());
    assert.deepEqual(problems, []);
  });
});
