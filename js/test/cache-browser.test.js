// The catalog cache in headless Chromium, with IndexedDB: a reload shows
// the kept catalog while the server holds its answers back, then reconciles
// it with the server's lists (a resync diff). The page opens the client as
// its script starts (test/browser/cache.html).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startServer } from "./helpers.js";

const exe = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));
const skip = exe ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

describe("the catalog cache in headless Chromium", { skip, timeout: 60000 }, () => {
  let server, browser;
  before(async () => {
    const { chromium } = await import("playwright-core");
    server = await startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]);
    browser = await chromium.launch({ executablePath: exe, args: ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const transport of ["ws", "http"]) {
    test(`a reload shows the kept catalog before the server answers, then a resync diff (${transport})`, async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = [];
      page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
      const url = transport === "ws" ? server.ws : server.mcp;
      const pageURL = `${server.http}/js/test/browser/cache.html?mcp=${encodeURIComponent(url)}`;
      try {
        await server.control("add-tool", { name: `gone-${transport}` });
        await page.goto(pageURL);
        await page.waitForFunction(() => document.title !== "loading");
        assert.equal(await page.title(), "synced");
        await page.waitForFunction(async () => (await window.kept()) > 0);
        const first = await page.evaluate(() => window.seen);
        assert.ok(!first.some((v) => v.source === "cache"), "nothing kept on the first visit");
        const shown = first.at(-1).names;

        // While the page is closed, the server changes its tools; then it
        // holds every answer back, and the page is loaded again.
        await page.goto("about:blank");
        await server.control("remove-tool", { name: `gone-${transport}` });
        await server.control("add-tool", { name: `new-${transport}` });
        await server.control("hold", { on: true });
        let kept;
        try {
          await page.goto(pageURL);
          await page.waitForFunction(() => window.seen?.some((v) => v.source === "cache"));
          kept = await page.evaluate(() => ({ seen: window.seen, status: window.client.status.get() }));
        } finally {
          await server.control("hold", { on: false });
        }
        const v = kept.seen.find((x) => x.source === "cache");
        assert.equal(v.status, "stale");
        assert.deepEqual(v.names, shown);
        assert.equal(kept.status, "connecting", "the server has not answered yet");

        await page.waitForFunction(() => document.title !== "loading");
        assert.equal(await page.title(), "synced");
        const after = await page.evaluate(() => ({ events: window.events, last: window.seen.at(-1), warnings: window.warnings }));
        const ev = after.events.find((e) => e.kind === "tools");
        assert.deepEqual(ev, { kind: "tools", cause: "resync", added: [`new-${transport}`], removed: [`gone-${transport}`] });
        assert.equal(after.last.source, "server");
        assert.equal(after.last.status, "ready");
        assert.deepEqual(after.warnings, []);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
        await server.control("remove-tool", { name: `new-${transport}` }).catch(() => {});
      }
    });
  }
});
