// The README's usage snippets, run as written: the quick start, the React
// component (useSyncExternalStore(store.subscribe, store.get)), the Svelte
// component ($tools), the svelte/store helpers (derived, get) and the
// isError helper, bundled with esbuild and run in headless Chromium against
// a real client of the demo server, following live changes. The README
// shows every file of ../snippets verbatim (checked below); install.test.mjs
// runs the others (install, Vite dev apps, Worker, esbuild with wasmUrl).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { compile } from "svelte/compiler";
import { launch, CHROMIUM } from "../lib/browser.mjs";
import { startDemo, buildDemo, freePort, ROOT } from "../lib/demo-server.mjs";

const skip = CHROMIUM ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
const SNIPPETS = fileURLToPath(new URL("../snippets/", import.meta.url));
const ANON_TOOLS = ["add", "echo", "login", "now", "whoami"];
const ALICE_TOOLS = ["add", "echo", "logout", "now", "random_number", "search", "uppercase", "whoami", "word_count"];

/** svelte compiles .svelte files for esbuild. */
const sveltePlugin = {
  name: "svelte",
  setup(build) {
    build.onLoad({ filter: /\.svelte$/ }, async (args) => {
      const { js, warnings } = compile(await readFile(args.path, "utf8"), { filename: args.path, generate: "client" });
      // A snippet that Svelte warns about is no snippet to copy.
      if (warnings.length) throw new Error(`${args.path}: ${warnings.map((w) => w.message).join("; ")}`);
      return { contents: js.code, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

/** mcplive resolves to the package the demo server serves at /js/, as a page without a bundler has it. */
const mcplivePlugin = {
  name: "mcplive",
  setup(build) {
    build.onResolve({ filter: /^mcplive$/ }, () => ({ path: "/js/index.js", external: true }));
  },
};

async function bundle(contents, loader = "js") {
  const out = await esbuild.build({
    stdin: { contents, resolveDir: SNIPPETS, loader, sourcefile: "entry.js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [sveltePlugin, mcplivePlugin],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>loading</title><link rel="icon" href="data:,">
<div id="react"></div><div id="svelte"></div>
<script type="module">
  import { connect } from "/js/index.js";
  import * as fw from "/frameworks.js";
  window.connect = connect;
  window.fw = fw;
  document.title = "ready";
</script>`;

describe("README snippets, run in headless Chromium", { skip }, () => {
  let b, server;
  before(async () => {
    // The demo server serves the test page and the bundles from a folder
    // (-static), so the page has a real loopback origin like any page.
    const dir = mkdtempSync(join(tmpdir(), "mcplive-e2e-snippets-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const [, frameworks, quickstart] = await Promise.all([
      buildDemo(),
      bundle(`
        export { ToolList } from "./ToolList.jsx";
        export { default as SvelteToolList } from "./ToolList.svelte";
        export { default as SvelteApp } from "./App.svelte"; // compiled without warnings (run by install.test.mjs)
        export * as stores from "./stores.js";
        export { login } from "./isError.js";
        export { createElement } from "react";
        export { flushSync } from "react-dom";
        export { createRoot } from "react-dom/client";
        export { mount, unmount, flushSync as svelteFlush } from "svelte";
      `),
      // The quick start as written, with this test server's URL.
      // (over Streamable HTTP, as the README's quick start connects).
      readFile(join(SNIPPETS, "quickstart.js"), "utf8").then((src) => {
        const ours = src.replace("http://127.0.0.1:8080/mcp", `http://127.0.0.1:${port}/mcp`);
        assert.ok(ours !== src && !ours.includes("127.0.0.1:8080"), "quickstart.js: connects to http://127.0.0.1:8080/mcp no longer: update this test");
        return bundle(ours);
      }),
    ]);
    writeFileSync(join(dir, "index.html"), PAGE);
    writeFileSync(join(dir, "frameworks.js"), frameworks);
    writeFileSync(join(dir, "quickstart.js"), quickstart);
    server = await startDemo({ port, args: ["-static", dir] });
    b = await launch();
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  async function open(t) {
    const page = await b.newPage();
    t.after(() => page.context().close());
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => document.title === "ready");
    return page;
  }

  const items = (page, sel) => page.$$eval(`${sel} li`, (lis) => lis.map((li) => li.textContent.trim()));
  const waitItems = (page, sel, want) =>
    page.waitForFunction(
      ({ sel, want }) => JSON.stringify([...document.querySelectorAll(`${sel} li`)].map((li) => li.textContent.trim())) === JSON.stringify(want),
      { sel, want },
      { timeout: 10_000, polling: 50 },
    );

  /**
   * loggedInVersion checks the heading once the login's tools are listed and
   * returns its version: 2, or more when the server's changes (it removes
   * login, then adds each unlocked tool; go-sdk debounces list_changed by
   * 10 ms) reached the client in two steps, as they may on a loaded machine.
   */
  function loggedInVersion(heading) {
    const m = /^Tools v(\d+) \(ready, ready\)$/.exec(heading);
    assert.ok(m && Number(m[1]) >= 2, `heading after the login: ${JSON.stringify(heading)}`);
    return Number(m[1]);
  }

  test("quick start: connects, prints the tools, calls echo, closes", async (t) => {
    const page = await open(t);
    const lines = [];
    page.on("console", (m) => m.type() === "log" && lines.push(m.text()));
    await page.evaluate(() => import("/quickstart.js"));
    assert.deepEqual(lines, ["tools v1 (ready): add, echo, login, now, whoami", "hello"]);
    assert.deepEqual(page.problems, []);
  });

  test("React: useSyncExternalStore(store.subscribe, store.get) renders the live tool list", async (t) => {
    const page = await open(t);
    await page.evaluate(async (ws) => {
      window.client = await window.connect(ws);
      const root = window.fw.createRoot(document.getElementById("react"));
      window.fw.flushSync(() => root.render(window.fw.createElement(window.fw.ToolList, { client: window.client })));
    }, server.ws);
    assert.deepEqual(await items(page, "#react"), ANON_TOOLS);
    assert.equal(await page.textContent("#react h2"), "Tools v1 (ready, ready)");
    await page.evaluate(() => window.client.callTool("login", { user: "alice", password: "wonderland" }));
    await waitItems(page, "#react", ALICE_TOOLS);
    const v = loggedInVersion(await page.textContent("#react h2"));
    await page.evaluate(() => window.client.close());
    await page.waitForFunction((v) => document.querySelector("#react h2").textContent === `Tools v${v} (stale, closed)`, v);
    assert.deepEqual(page.problems, []);
  });

  test("Svelte: a component with $tools follows the live tool list", async (t) => {
    const page = await open(t);
    await page.evaluate(async (ws) => {
      window.client = await window.connect(ws);
      window.fw.mount(window.fw.SvelteToolList, { target: document.getElementById("svelte"), props: { client: window.client } });
      window.fw.svelteFlush();
    }, server.ws);
    assert.deepEqual(await items(page, "#svelte"), ANON_TOOLS);
    assert.equal(await page.textContent("#svelte h2"), "Tools v1 (ready, ready)");
    await page.evaluate(() => window.client.callTool("login", { user: "alice", password: "wonderland" }));
    await waitItems(page, "#svelte", ALICE_TOOLS);
    loggedInVersion(await page.textContent("#svelte h2"));
    await page.evaluate(() => window.client.close());
    assert.deepEqual(page.problems, []);
  });

  test("isError: a tool that fails, or refuses its arguments, resolves with isError (the snippet makes it an Error); an unknown tool rejects", async (t) => {
    const page = await open(t);
    const out = await page.evaluate(async (ws) => {
      const client = await window.connect(ws);
      const settle = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message }));
      const raw = await client.callTool("login", { user: "alice", password: "wrong" });
      const wrong = await settle(window.fw.login(client, "alice", "wrong"));
      const right = await settle(window.fw.login(client, "alice", "wonderland"));
      const unknown = await settle(client.callTool("no_such_tool", {}));
      const badArgs = await settle(client.callTool("add", { a: "one", b: 2 }));
      await client.close();
      return { raw: { isError: raw.isError, text: raw.content[0].text }, wrong, right, unknown, badArgs };
    }, server.ws);
    assert.equal(out.raw.isError, true);
    assert.deepEqual(out.wrong, { name: "Error", message: `login failed: ${out.raw.text}` });
    assert.ok(out.right.ok, JSON.stringify(out.right));
    assert.equal(out.unknown.name, "RPCError", JSON.stringify(out.unknown));
    // Arguments that fail the tool's inputSchema are the tool's error too (go-sdk, as the spec advises).
    assert.equal(out.badArgs.ok?.isError, true, JSON.stringify(out.badArgs));
    assert.deepEqual(page.problems, []);
  });

  test("svelte/store: derived and get take the client's stores (the store contract)", async (t) => {
    const page = await open(t);
    const out = await page.evaluate(async (ws) => {
      const { toolNames, ready, currentToolNames } = window.fw.stores;
      const client = await window.connect(ws);
      const seen = [];
      const names = toolNames(client);
      const off = names.subscribe((n) => seen.push(n.join(",")));
      const first = currentToolNames(client);
      let isReady;
      ready(client).subscribe((v) => (isReady = v))();
      await client.callTool("login", { user: "alice", password: "wonderland" });
      const deadline = Date.now() + 5000;
      while (!seen.at(-1).includes("logout") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      off();
      await client.close();
      return { first, seen, isReady };
    }, server.ws);
    assert.deepEqual(out.first, ANON_TOOLS);
    assert.equal(out.isReady, true);
    assert.deepEqual(out.seen, [ANON_TOOLS.join(","), ALICE_TOOLS.join(",")], "derived: at once, then once per change");
    assert.deepEqual(page.problems, []);
  });
});

test("the README's snippets are these tested files, verbatim", async () => {
  // The README, the package's README, CONTRIBUTING.md and every page of docs/.
  const docs = [join(ROOT, "README.md"), join(ROOT, "js", "README.md"), join(ROOT, "CONTRIBUTING.md")];
  for (const f of (await readdir(join(ROOT, "docs"))).filter((f) => f.endsWith(".md")).sort()) docs.push(join(ROOT, "docs", f));
  const found = new Set();
  for (const doc of docs) {
    const md = await readFile(doc, "utf8");
    // <!-- snippet: e2e/snippets/NAME --> then a fenced code block
    for (const m of md.matchAll(/<!-- snippet: (e2e\/snippets\/[\w.-]+) -->\s*\n```\w*\n([\s\S]*?)\n```/g)) {
      const file = await readFile(join(ROOT, m[1]), "utf8");
      assert.equal(m[2], file.replace(/\n$/, ""), `${doc}: the snippet of ${m[1]} differs from the file`);
      found.add(m[1]);
    }
  }
  // Every snippet file is in the README, and only files that the tests run are snippets.
  const files = (await readdir(SNIPPETS)).map((f) => `e2e/snippets/${f}`);
  assert.deepEqual([...found].sort(), files.sort());
});
