// The catalog cache in headless Chromium, with IndexedDB: a reload shows
// the kept catalog while the server holds its answers back, then reconciles
// it with the server's lists (a resync diff). The page opens the client as
// its script starts (test/browser/cache.html).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { startServer, NO_CHROMIUM, launchChromium } from "./helpers.js";

const skip = NO_CHROMIUM;

// How long the wasm's loading waits for the kept catalog at the most (connect.js).
const GATE_MS = Number(readFileSync(new URL("../src/connect.js", import.meta.url), "utf8").match(/const GATE_MS = (\d+);/)[1]);

describe("the catalog cache in headless Chromium", { skip, timeout: 60000 }, () => {
  let server, browser;
  before(async () => {
    server = await startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]);
    browser = await launchChromium();
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
        // Before the wasm has started: its download had not even begun. The
        // wasm's loading waits for the kept catalog GATE_MS at the most: on a
        // loaded machine the read of IndexedDB can take longer, and then the
        // promise is only that the wasm waited that long.
        const { wasmAt, openedAt } = await page.evaluate(() => ({ wasmAt: performance.getEntriesByType("resource").find((e) => e.name.endsWith(".wasm"))?.startTime ?? Infinity, openedAt: window.openedAt }));
        if (v.at - openedAt < GATE_MS) assert.ok(v.at <= wasmAt, `the kept catalog at ${v.at} ms, the wasm's request at ${wasmAt} ms`);
        else assert.ok(wasmAt >= openedAt + GATE_MS, `the kept catalog came ${v.at - openedAt} ms after open(), later than the gate: the wasm's request at ${wasmAt - openedAt} ms after open() must still have waited ${GATE_MS} ms`);
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

  /** page opens test/browser/page.html (window.mcplive) in a fresh context. */
  async function freshPage() {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(`${server.http}/js/test/browser/page.html`);
    await page.waitForFunction(() => document.title === "ready");
    return { context, page, problems };
  }

  const count = async (rpc, from) => (await server.control("requests")).requests.slice(from).filter((r) => r.rpc === rpc).length;

  test("with a cache, a wasm that cannot be fetched: LoadError, and the next connect loads the right one", async () => {
    // The wasm's loading waits for the kept catalog (connect.js, GATE_MS):
    // its failure is still the connect's, and is not kept.
    const { context, page, problems } = await freshPage();
    try {
      const r = await page.evaluate(async (url) => {
        let first;
        try {
          await window.mcplive.connect(url, { cache: "indexeddb", wasmUrl: "/missing.wasm" });
          first = "connected";
        } catch (err) {
          first = `${err.name}: ${err.message}`;
        }
        const c = await window.mcplive.connect(url, { cache: "indexeddb" });
        const tools = c.tools.get().items.length;
        await c.close();
        return { first, tools };
      }, server.mcp);
      assert.match(r.first, /^LoadError: mcplive: cannot load the wasm from .*\/missing\.wasm: HTTP 404/);
      assert.ok(r.tools > 0, "the second connect has the tools");
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test("a fresh list is not walked at connect, and a notification walks it", async () => {
    await server.control("cache", { ttlMs: 600000, scope: "public" });
    const { context, page } = await freshPage();
    try {
      await page.evaluate(async (url) => {
        const c = await window.mcplive.connect(url, { cache: "indexeddb" });
        // The record is written after the sync: wait for it.
        for (;;) {
          const n = await new Promise((resolve) => {
            const req = indexedDB.open("mcplive", 1);
            req.onsuccess = () => {
              const r = req.result.transaction("catalogs").objectStore("catalogs").getAll();
              r.onsuccess = () => resolve(r.result.length);
            };
          });
          if (n > 0) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        await c.close();
      }, server.mcp);
      const from = (await server.control("requests")).requests.length;
      await page.evaluate(async (url) => {
        window.c = await window.mcplive.connect(url, { cache: "indexeddb" });
      }, server.mcp);
      assert.equal(await count("tools/list", from), 0, "fresh tools are not walked");
      assert.equal(await count("prompts/list", from), 0, "fresh prompts are not walked");
      const changed = page.evaluate(() => new Promise((resolve) => window.c.on("change", (e) => e.kind === "tools" && resolve(e.cause))));
      await server.control("add-tool", { name: "fresh-browser" });
      assert.equal(await changed, "notification");
      assert.ok((await count("tools/list", from)) >= 1, "the notification walked the tools");
      await page.evaluate(() => window.c.close());
    } finally {
      await context.close();
      await server.control("cache", {});
      await server.control("remove-tool", { name: "fresh-browser" });
    }
  });

  test("private results of two tokens never cross", async () => {
    await server.control("cache", { ttlMs: 600000, scope: "private" });
    const { context, page } = await freshPage();
    try {
      await page.evaluate(async (url) => {
        const c = await window.mcplive.connect(url, { cache: "indexeddb", token: () => "alice-token" });
        for (;;) {
          const keys = await new Promise((resolve) => {
            const req = indexedDB.open("mcplive", 1);
            req.onsuccess = () => {
              const r = req.result.transaction("catalogs").objectStore("catalogs").getAllKeys();
              r.onsuccess = () => resolve(r.result);
            };
          });
          if (keys.some((k) => k.includes("#"))) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        await c.close();
      }, server.mcp);
      await server.control("hold", { on: true });
      try {
        await page.evaluate(async (url) => {
          window.seen = [];
          window.bob = window.mcplive.open(url, { cache: "indexeddb", token: () => "bob-token" });
          window.bob.tools.subscribe((v) => window.seen.push(v.source));
          window.alice = window.mcplive.open(url, { cache: "indexeddb", token: () => "alice-token" });
          await new Promise((resolve) => window.alice.tools.subscribe((v) => v.source === "cache" && resolve()));
        }, server.mcp);
      } finally {
        await server.control("hold", { on: false });
      }
      const r = await page.evaluate(async () => {
        await Promise.all([window.bob.ready, window.alice.ready]);
        await Promise.all([window.bob.close(), window.alice.close()]);
        const values = await new Promise((resolve) => {
          const req = indexedDB.open("mcplive", 1);
          req.onsuccess = () => {
            const g = req.result.transaction("catalogs").objectStore("catalogs").getAll();
            g.onsuccess = () => resolve(g.result);
          };
        });
        return { seen: window.seen, tokens: values.some((v) => v.includes("-token")) };
      });
      assert.ok(!r.seen.includes("cache"), `bob never saw alice's kept tools: ${r.seen}`);
      assert.equal(r.tokens, false, "no token in a record");
    } finally {
      await context.close();
      await server.control("cache", {});
    }
  });

  test("bad storage is ignored with a warning: a corrupt record, IndexedDB that throws, a full quota", async () => {
    const cases = {
      "a corrupt record": async () => {
        const c = await window.mcplive.connect(window.testURL, { cache: "indexeddb" });
        const all = (fn) =>
          new Promise((resolve) => {
            const req = indexedDB.open("mcplive", 1);
            req.onsuccess = () => {
              const tx = req.result.transaction("catalogs", "readwrite");
              const store = tx.objectStore("catalogs");
              const r = store.getAllKeys();
              r.onsuccess = () => fn(store, r.result);
              tx.oncomplete = () => (req.result.close(), resolve(r.result.length));
            };
          });
        while ((await all(() => {})) === 0) await new Promise((r) => setTimeout(r, 10));
        await c.close();
        // Each record cut in half, as a write that was interrupted.
        await all((store, keys) => {
          for (const k of keys) {
            const g = store.get(k);
            g.onsuccess = () => store.put(g.result.slice(0, g.result.length / 2), k);
          }
        });
      },
      "IndexedDB that throws": () => {
        indexedDB.open = () => {
          throw new DOMException("storage is off", "SecurityError");
        };
      },
      "a full quota": () => {
        IDBObjectStore.prototype.put = function () {
          throw new DOMException("the quota is full", "QuotaExceededError");
        };
      },
    };
    for (const [what, setup] of Object.entries(cases)) {
      const { context, page, problems } = await freshPage();
      try {
        const r = await page.evaluate(
          async ([url, src]) => {
            window.testURL = url;
            await (0, eval)(`(${src})`)();
            const warnings = [];
            const warned = new Promise((resolve) => (window.onWarn = resolve));
            const c = await window.mcplive.connect(url, { cache: "indexeddb", logger: { warn: (m) => (warnings.push(m), window.onWarn()) } });
            await warned;
            const v = c.tools.get();
            await c.close();
            return { status: v.status, source: v.source, echo: v.items.some((t) => t.name === "echo"), warnings };
          },
          [server.ws, setup.toString()],
        );
        assert.deepEqual([r.status, r.source, r.echo], ["ready", "server", true], what);
        assert.ok(r.warnings.some((m) => m.startsWith("mcplive: cache:")), `${what}: ${r.warnings}`);
        assert.deepEqual(problems, [], what);
      } finally {
        await context.close();
      }
    }
  });

  test("a reload tries the revision the server spoke: no server/discover for a 2025-11-25 server (no cache option)", async () => {
    await server.control("legacy", { on: true });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const url = `${server.mcp}?browser-rev=1`;
      const connectOnce = () =>
        page.evaluate(async (u) => {
          const c = await window.mcplive.connect(u);
          const v = c.protocolVersion;
          await c.close();
          return v;
        }, url);
      await page.goto(`${server.http}/js/test/browser/page.html`);
      await page.waitForFunction(() => document.title === "ready");
      let from = (await server.control("requests")).requests.length;
      assert.equal(await connectOnce(), "2025-11-25");
      assert.equal(await count("server/discover", from), 1, "the first visit probes");
      await page.reload();
      await page.waitForFunction(() => document.title === "ready");
      from = (await server.control("requests")).requests.length;
      assert.equal(await connectOnce(), "2025-11-25");
      assert.equal(await count("server/discover", from), 0, "the reload does not probe");
    } finally {
      await context.close();
      await server.control("legacy", { on: false });
    }
  });

  test("two tabs writing the same server's catalog at once leave one whole record", async () => {
    const context = await browser.newContext();
    try {
      const tabs = await Promise.all([context.newPage(), context.newPage()]);
      await Promise.all(tabs.map((p) => p.goto(`${server.http}/js/test/browser/page.html`)));
      await Promise.all(tabs.map((p) => p.waitForFunction(() => document.title === "ready")));
      // Both sync and write at once, then change a tool and write again.
      await Promise.all(
        tabs.map((p) =>
          p.evaluate(async (url) => {
            window.c = await window.mcplive.connect(url, { cache: "indexeddb" });
          }, server.ws),
        ),
      );
      await server.control("add-tool", { name: "two-tabs" });
      await Promise.all(tabs.map((p) => p.waitForFunction(() => window.c.tools.get().items.some((t) => t.name === "two-tabs"))));
      await Promise.all(tabs.map((p) => p.evaluate(() => window.c.close())));
      const third = await context.newPage();
      await third.goto(`${server.http}/js/test/browser/page.html`);
      await third.waitForFunction(() => document.title === "ready");
      await server.control("hold", { on: true });
      let r;
      try {
        r = await third.evaluate(async (url) => {
          const warnings = [];
          const c = window.mcplive.open(url, { cache: "indexeddb", logger: { warn: (m) => warnings.push(m) } });
          const v = await new Promise((resolve) => c.tools.subscribe((x) => x.source === "cache" && resolve(x)));
          window.c = c;
          return { warnings, names: v.items.map((t) => t.name) };
        }, server.ws);
      } finally {
        await server.control("hold", { on: false });
      }
      assert.deepEqual(r.warnings, [], "the record read whole");
      assert.ok(r.names.includes("echo"));
      await third.evaluate(async () => {
        await window.c.ready;
        await window.c.close();
      });
    } finally {
      await context.close();
      await server.control("remove-tool", { name: "two-tabs" });
    }
  });
});
