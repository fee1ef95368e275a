// mcplive-bridge from a page in headless Chromium, on another origin than
// the bridge's (the Go test server's, serving the package): the live
// stores follow stdio servers through it over Streamable HTTP (the fetch
// option, viaBridge) and WebSocket (?token=), the Origin allowlist holds.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startServer, NO_CHROMIUM, launchChromium } from "./helpers.js";
import { startBridge, EVERYTHING, GO_STDIO } from "./bridge-helpers.js";

describe("mcplive-bridge from a page in headless Chromium", { skip: NO_CHROMIUM }, () => {
  let server, browser, goBridge, everything, closed;
  const problems = [];
  before(async () => {
    server = await startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]);
    const origin = new URL(server.http).origin;
    goBridge = await startBridge(["-allow-origin", origin, "--", ...GO_STDIO()]);
    everything = await startBridge(["-allow-origin", origin, "--", ...EVERYTHING]);
    closed = await startBridge(["--", ...GO_STDIO()]); // no -allow-origin
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([goBridge?.stop(), everything?.stop(), closed?.stop()]);
    await server?.stop();
  });

  async function openPage(viewport) {
    const page = await browser.newPage(viewport ? { viewport } : undefined);
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(`${server.http}/js/test/browser/bridge.html`);
    await page.waitForFunction(() => document.title === "ready");
    return page;
  }

  const ways = (b) => [
    { name: "Streamable HTTP", url: b.http, token: b.token, viaFetch: true },
    { name: "WebSocket", url: `${b.ws}?token=${encodeURIComponent(b.token)}`, viaFetch: false },
  ];

  for (const way of ["Streamable HTTP", "WebSocket"]) {
    test(`the stores follow a go-sdk stdio server's list changes (${way})`, async () => {
      const w = ways(goBridge).find((x) => x.name === way);
      const page = await openPage();
      try {
        const first = await page.evaluate(async ({ url, token, viaFetch, origin }) => {
          const options = viaFetch ? { fetch: window.mcplive.viaBridge(origin, { token }) } : {};
          window.client = await window.mcplive.connect(url, options);
          return { names: window.client.tools.get().items.map((t) => t.name), revision: window.client.protocolVersion };
        }, { ...w, origin: goBridge.origin });
        assert.ok(first.names.includes("add_tool"), String(first.names));
        // The go-sdk server speaks 2026-07-28: over Streamable HTTP without
        // a session, through the bridge's shared process.
        assert.equal(first.revision, "2026-07-28");
        await page.evaluate(() => window.client.callTool("add_tool", { name: "from_the_page" }));
        await page.waitForFunction(() => window.client.tools.get().items.some((t) => t.name === "from_the_page"), null, { timeout: 20000 });
        await page.evaluate(() => window.client.callTool("remove_tool", { name: "from_the_page" }));
        await page.waitForFunction(() => !window.client.tools.get().items.some((t) => t.name === "from_the_page"), null, { timeout: 20000 });
        await page.evaluate(() => window.client.close());
      } finally {
        await page.close();
      }
    });
  }

  test("a third-party stdio server's tools on the page (server-everything), over both transports", async () => {
    for (const w of ways(everything)) {
      const page = await openPage({ width: 1280, height: 800 });
      try {
        const names = await page.evaluate(async ({ url, token, viaFetch, origin, name }) => {
          const options = viaFetch ? { fetch: window.mcplive.viaBridge(origin, { token }) } : {};
          const client = await window.mcplive.connect(url, { ...options, dialTimeoutMs: 30000 });
          window.show(client, `A stdio server through mcplive-bridge (${name})`);
          const res = await client.callTool("echo", { message: "from Chromium" });
          window.echo = res.content[0].text;
          window.client = client;
          return client.tools.get().items.map((t) => t.name);
        }, { ...w, origin: everything.origin, name: w.name });
        assert.ok(names.includes("echo") && names.includes("get-sum"), String(names));
        assert.match(await page.evaluate(() => window.echo), /from Chromium/);
        if (process.env.MCPLIVE_SCREENSHOT && w.viaFetch) await page.screenshot({ path: process.env.MCPLIVE_SCREENSHOT });
        await page.evaluate(() => window.client.close());
      } finally {
        await page.close();
      }
    }
  });

  test("a page of an origin the bridge does not allow is refused; the bridge's log names -allow-origin", async () => {
    const page = await openPage();
    try {
      const err = await page.evaluate(async ({ url, token, origin }) => {
        try {
          await window.mcplive.connect(url, { fetch: window.mcplive.viaBridge(origin, { token }), reconnect: false, dialTimeoutMs: 5000 });
          return "connected";
        } catch (e) {
          return `${e.name}: ${e.message}`;
        }
      }, { url: closed.http, token: closed.token, origin: closed.origin });
      assert.notEqual(err, "connected");
      assert.ok(closed.log.some((l) => l.includes("refused") && l.includes("-allow-origin " + new URL(server.http).origin)), closed.log.join("\n"));
    } finally {
      await page.close();
    }
  });

  test("no page error", () => assert.deepEqual(problems, []));
});
