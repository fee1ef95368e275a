// The demo's hub page (demo/static/hub.html) in headless Chromium against a
// real demo server: its own /mcp over WebSocket and Streamable HTTP as two
// servers of one hub, a third added with the form, a list change followed
// by every server's items, a bad id refused with a visible error, and a
// server removed with its items. Assertions are on the DOM.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, CHROMIUM } from "../lib/browser.mjs";
import { startDemo, buildDemo } from "../lib/demo-server.mjs";

const skip = CHROMIUM ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
const ANON_TOOLS = ["add", "echo", "login", "now", "whoami"];
const names = (ids, tools) => ids.flatMap((id) => tools.map((t) => `${id}__${t}`)).sort();

describe("the demo's hub page: several servers as one live catalog", { skip }, () => {
  let b, server;
  before(async () => {
    await buildDemo();
    server = await startDemo();
    b = await launch();
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  /** waitTools waits until the Tools panel shows exactly want (sorted hub names). */
  async function waitTools(page, want) {
    try {
      await page.waitForFunction(
        (want) => JSON.stringify([...document.querySelectorAll("#hub-tools li.item")].map((li) => li.dataset.key).sort()) === JSON.stringify(want),
        want,
        { timeout: 10_000, polling: 50 },
      );
    } catch (err) {
      const have = await page.$$eval("#hub-tools li.item", (lis) => lis.map((li) => li.dataset.key).sort());
      throw new Error(`hub tools: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}: ${err.message}`);
    }
  }

  test("two servers, a third from the form, a change on all, a bad id, a removal", async (t) => {
    const page = await b.newPage();
    t.after(() => page.context().close());
    await page.goto(`${server.url}/hub.html`);
    await page.waitForSelector('html[data-hub="ready"]');
    await waitTools(page, names(["http", "ws"], ANON_TOOLS));
    // Every item carries its server's badge.
    const badges = await page.$$eval("#hub-tools li.item", (lis) => lis.map((li) => [li.dataset.server, li.querySelector(".badge")?.textContent]));
    assert.ok(badges.every(([s, b]) => s === b), JSON.stringify(badges));

    await page.fill("#hub-id", "modern");
    await page.fill("#hub-url", `${server.url}/mcp`);
    await page.click("#hub-add-btn");
    await page.waitForSelector('#servers li[data-key="modern"][data-status="ready"]');
    await waitTools(page, names(["http", "modern", "ws"], ANON_TOOLS));
    assert.equal(await page.$eval("#servers-count", (el) => el.textContent), "3");

    // The server's configuration changes: every connection's list follows.
    await server.control("POST", "tools/echo/disable");
    const withoutEcho = ANON_TOOLS.filter((n) => n !== "echo");
    await waitTools(page, names(["http", "modern", "ws"], withoutEcho));

    await page.fill("#hub-id", "not an id!");
    await page.fill("#hub-url", `${server.url}/mcp`);
    await page.click("#hub-add-btn");
    await page.waitForSelector("#hub-error:not([hidden])");
    assert.match(await page.$eval("#hub-error", (el) => el.textContent), /id/);
    assert.equal(await page.$eval("#servers-count", (el) => el.textContent), "3", "a refused add leaves the hub as it was");

    await page.click('#servers li[data-key="http"] button');
    await waitTools(page, names(["modern", "ws"], withoutEcho));
    await page.waitForFunction(() => document.querySelector("#servers-count").textContent === "2");
    assert.deepEqual(page.problems, []);
  });
});
