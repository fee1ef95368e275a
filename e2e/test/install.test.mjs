// The package installed the README's way (e2e/snippets/install.sh, run as
// written in fresh app folders next to a "mcplive" checkout), then used as
// the README shows: a React and a Svelte app under Vite's dev server (the
// connect/close components, StrictMode, a Web Worker), the React app built
// by vite build, an esbuild bundle with wasmUrl, and the quick start in
// Node. Each page loads in headless Chromium and follows a live list of a
// real demo server.
//
// The apps take vite, react, svelte and esbuild from e2e/node_modules (a
// node_modules link in the folder above them), so only the mcplive tarball
// and its one dependency (oauth4webapi, from npm's cache when it is there)
// are installed per app.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync, readFileSync, lstatSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { launch, CHROMIUM } from "../lib/browser.mjs";
import { startDemo, buildDemo, freePort, ROOT } from "../lib/demo-server.mjs";

const skip = CHROMIUM ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
const E2E = join(ROOT, "e2e");
const SNIPPETS = join(E2E, "snippets");
// The snippets' URLs, replaced by this test server's: the quick start connects over
// Streamable HTTP, the framework snippets over WebSocket.
const README_URLS = { ws: "ws://127.0.0.1:8080/mcp", http: "http://127.0.0.1:8080/mcp" };
const ANON_TOOLS = ["add", "echo", "login", "now", "whoami"];
const ALICE_TOOLS = ["add", "echo", "logout", "now", "random_number", "search", "uppercase", "whoami", "word_count"];
const run = promisify(execFile);

/**
 * serveFolder serves dir as a plain static server does (python3 -m
 * http.server, nginx): every file, node_modules too, with its MIME type,
 * on a port of its own (so the page is cross-origin to /mcp, as most are).
 */
async function serveFolder(dir) {
  const { createServer } = await import("node:http");
  const { readFile } = await import("node:fs/promises");
  const { extname, normalize } = await import("node:path");
  const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path === "/favicon.ico") return res.writeHead(204).end(); // the browser asks; the page has none
    try {
      const body = await readFile(join(dir, path.endsWith("/") ? `${path}index.html` : path));
      res.writeHead(200, { "Content-Type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

const HTML = (body, src) => `<!doctype html>
<html><head><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"></head>
<body>${body}<script type="module" src="${src}"></script></body></html>
`;

/** The apps, file by file: snippets (with this test's server URL) and a little scaffolding. */
function apps(ws) {
  const snippet = (name) => {
    const src = readFileSync(join(SNIPPETS, name), "utf8").replaceAll(README_URLS.ws, ws).replaceAll(README_URLS.http, ws.replace(/^ws:/, "http:"));
    assert.ok(!src.includes("127.0.0.1:8080"), `${name}: a URL of the demo's default port is left: add it to README_URLS`);
    return src;
  };
  return {
    react: {
      "vite.config.js": `import { defineConfig } from "vite";\nimport react from "@vitejs/plugin-react";\n\nexport default defineConfig({ plugins: [react()] });\n`,
      "index.html": HTML(`<div id="root"></div>`, "/src/main.jsx"),
      "src/main.jsx": snippet("main.jsx"),
      "src/App.jsx": snippet("App.jsx"),
      "src/ToolList.jsx": snippet("ToolList.jsx"),
      // Test-only: mounts another App (in StrictMode), changes its url, unmounts it.
      "src/harness.jsx": `import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.jsx";

export function mountApp(el, url) {
  const root = createRoot(el);
  const render = (url) => root.render(<StrictMode><App url={url} /></StrictMode>);
  render(url);
  return { setUrl: render, unmount: () => root.unmount() };
}
`,
      "worker.html": HTML(`<h2></h2><ul></ul>`, "/src/worker-page.js"),
      "src/worker-page.js": snippet("worker-page.js"),
      "src/worker.js": snippet("worker.js"),
    },
    svelte: {
      "vite.config.js": `import { defineConfig } from "vite";\nimport { svelte } from "@sveltejs/vite-plugin-svelte";\n\nexport default defineConfig({ plugins: [svelte()] });\n`,
      "index.html": HTML(`<div id="root"></div>`, "/src/main.js"),
      "src/main.js": snippet("main.js"),
      "src/App.svelte": snippet("App.svelte"),
      "src/ToolList.svelte": snippet("ToolList.svelte"),
      "src/harness.svelte.js": `import { mount, unmount } from "svelte";
import App from "./App.svelte";

export function mountApp(target, url) {
  const props = $state({ url });
  const app = mount(App, { target, props });
  return { setUrl: (url) => (props.url = url), unmount: () => unmount(app) };
}
`,
    },
    esbuild: {
      // The page without a bundler (docs/frameworks-and-bundlers.md), in the same installed app.
      "plain.html": snippet("plain-page.html"),
      "build.mjs": snippet("esbuild-build.mjs"),
      "src/app.js": snippet("esbuild-app.js"),
      "quickstart.js": snippet("quickstart.js"), // run by Node, from the installed package
    },
  };
}

/**
 * setUp lays out <tmp>/{node_modules → e2e/node_modules, mcplive → the
 * repository, react/, svelte/, esbuild/}, runs the README's install in each
 * app and writes its files.
 */
async function setUp(ws) {
  const dir = mkdtempSync(join(tmpdir(), "mcplive-e2e-install-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(E2E, "node_modules"), join(dir, "node_modules"));
  symlinkSync(ROOT, join(dir, "mcplive"));
  const install = readFileSync(join(SNIPPETS, "install.sh"), "utf8");
  const env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_prefer_offline: "true" };
  const out = {};
  await Promise.all(
    Object.entries(apps(ws)).map(async ([name, files]) => {
      const app = join(dir, name);
      mkdirSync(join(app, "src"), { recursive: true });
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: `${name}-app`, private: true, type: "module" }, null, 2));
      try {
        await run("bash", ["-euo", "pipefail", "-c", install], { cwd: app, env, timeout: 120_000 });
      } catch (err) {
        throw new Error(`${name}: the README's install failed:\n${err.stdout}\n${err.stderr}`);
      }
      for (const [path, text] of Object.entries(files)) writeFileSync(join(app, path), text);
      out[name] = app;
    }),
  );
  return out;
}

/** startVite serves app with Vite's dev server (its own vite.config.js) on a free port. */
async function startVite(app) {
  const { createServer } = await import("vite");
  const port = await freePort();
  const problems = [];
  const logger = {
    info() {},
    warn(msg) {
      problems.push(`vite warn: ${msg}`);
    },
    warnOnce(msg) {
      problems.push(`vite warn: ${msg}`);
    },
    error(msg) {
      problems.push(`vite error: ${msg}`);
    },
    clearScreen() {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  const server = await createServer({
    root: app,
    configFile: join(app, "vite.config.js"),
    customLogger: logger,
    clearScreen: false,
    server: { host: "127.0.0.1", port, strictPort: true },
  });
  await server.listen();
  return { url: `http://127.0.0.1:${port}`, problems, close: () => server.close() };
}

/** Records every text an <h2> ever shows, from the first paint on, and every WebSocket the page opens. */
function watchPage() {
  window.__h2 = [];
  window.__sockets = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
    }
  };
  new MutationObserver(() => {
    for (const h of document.querySelectorAll("h2")) if (window.__h2.at(-1) !== h.textContent) window.__h2.push(h.textContent);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

describe("the README's install and framework snippets, in Vite dev, esbuild and a Worker", { skip }, () => {
  let b, server, app;
  before(async () => {
    const port = await freePort();
    [, app] = await Promise.all([buildDemo(), setUp(`ws://127.0.0.1:${port}/mcp`)]);
    // The esbuild app is built by its build script, as the README shows, and
    // served by the demo server (-static) on the same origin as /mcp: the
    // page at /, the bundle and the wasm in /dist/ (where the package's own
    // new URL("../mcplive.wasm", import.meta.url) would miss the wasm).
    await run(process.execPath, ["build.mjs"], { cwd: app.esbuild, timeout: 60_000 });
    writeFileSync(join(app.esbuild, "index.html"), HTML(`<h2></h2><ul></ul>`, "/dist/app.js"));
    server = await startDemo({ port, args: ["-static", app.esbuild] });
    b = await launch();
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  async function open(t, url) {
    const page = await b.newPage();
    t.after(() => page.context().close());
    await page.addInitScript(watchPage);
    await page.goto(url);
    return page;
  }
  const items = (page, sel = "") => page.$$eval(`${sel} li`, (lis) => lis.map((li) => li.textContent.trim()));
  async function waitFor(page, sel, text, timeout = 15_000) {
    try {
      await page.waitForFunction(({ sel, text }) => document.querySelector(sel)?.textContent === text, { sel, text }, { timeout, polling: 50 });
    } catch (err) {
      const have = await page.evaluate(() => document.body.innerText);
      throw new Error(`${sel}: want "${text}"; the page shows ${JSON.stringify(have)}; problems: ${JSON.stringify(page.problems)}: ${err.message}`);
    }
  }
  /**
   * connections waits until the demo server has n MCP connections over WebSocket (the
   * apps' transport), and fails if it does not get there. The Node quick start's
   * connection is over Streamable HTTP, which the demo server forgets a minute after
   * its last request: it is not counted.
   */
  async function connections(n, timeout = 10_000) {
    const deadline = Date.now() + timeout;
    let have;
    for (;;) {
      have = (await server.control("GET", "connections")).connections.filter((c) => c.transport === "websocket").length;
      if (have === n) return;
      if (Date.now() > deadline) assert.fail(`the server has ${have} connections, want ${n}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  // The MCP WebSockets the page holds open (Vite's dev client has one of its own).
  const openSockets = (page) => page.evaluate(() => window.__sockets.filter((s) => s.readyState <= 1 && new URL(s.url).pathname === "/mcp").length);
  async function toggleEcho() {
    await server.control("POST", "tools/echo/disable");
    return () => server.control("POST", "tools/echo/enable");
  }
  const withoutEcho = ANON_TOOLS.filter((n) => n !== "echo");
  /** followsTheList checks that page shows the tools, then the list without echo once the server takes it away. */
  async function followsTheList(t, page) {
    await waitFor(page, "h2", "Tools v1 (ready)");
    assert.deepEqual(await items(page), ANON_TOOLS);
    const undo = await toggleEcho();
    t.after(undo);
    await waitFor(page, "h2", "Tools v2 (ready)");
    assert.deepEqual(await items(page), withoutEcho);
    assert.deepEqual(page.problems, []);
  }

  test("installed from the tarball: a copy, not a link to ../mcplive/js", () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "js", "package.json"), "utf8"));
    for (const dir of [app.react, app.svelte, app.esbuild]) {
      // As the README says: the app's package.json names the tarball.
      assert.equal(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies?.mcplive, `file:mcplive-${version}.tgz`);
      const pkg = join(dir, "node_modules", "mcplive");
      assert.equal(lstatSync(pkg).isSymbolicLink(), false, `${pkg} is a symlink`);
      assert.deepEqual(readdirSync(pkg).sort(), ["LICENSE", "README.md", "bin", "index.d.ts", "index.js", "mcplive.wasm", "oauth-node.d.ts", "oauth.d.ts", "package.json", "react.d.ts", "src", "vue.d.ts", "wasm_exec.js"]);
      // Its one run-time dependency, for mcplive/oauth only.
      assert.ok(JSON.parse(readFileSync(join(dir, "node_modules", "oauth4webapi", "package.json"), "utf8")).version.startsWith("3.8."), "oauth4webapi 3.8.x installed with mcplive");
    }
  });

  test("Node: the quick start runs from the installed package", async () => {
    const env = { ...process.env };
    if (typeof globalThis.WebSocket !== "function") {
      env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --experimental-websocket --no-warnings=ExperimentalWarning`; // Node 20
    }
    const { stdout } = await run(process.execPath, ["quickstart.js"], { cwd: app.esbuild, env, timeout: 30_000 });
    assert.deepEqual(stdout.trim().split("\n"), [`tools v1 (ready): ${ANON_TOOLS.join(", ")}`, "hello"]);
  });

  for (const fw of ["react", "svelte"]) {
    test(`${fw} in Vite dev: the App connects once (StrictMode), follows the list, replaces its client on a new url, closes on unmount`, async (t) => {
      const vite = await startVite(app[fw]);
      t.after(() => vite.close());
      const page = await open(t, `${vite.url}/`);
      await waitFor(page, "#root h2", "Tools v1 (ready, ready)");
      assert.deepEqual(await items(page, "#root"), ANON_TOOLS);

      // A live change from the server reaches the rendered list.
      const undo = await toggleEcho();
      t.after(undo);
      await waitFor(page, "#root h2", "Tools v2 (ready, ready)");
      assert.deepEqual(await items(page, "#root"), withoutEcho);

      // One client: StrictMode's first mount left none behind, and none was shown closed.
      await connections(1);
      assert.equal(await openSockets(page), 1, "open WebSockets in the page");
      const seen = await page.evaluate(() => window.__h2);
      assert.deepEqual(seen.filter((h) => /stale|closed/.test(h)), [], `headers seen: ${JSON.stringify(seen)}`);

      // A second App: mounted, given another url (a new client replaces the
      // old one, which is closed and never shown closed), then unmounted (its
      // client is closed with it).
      const harness = fw === "react" ? "/src/harness.jsx" : "/src/harness.svelte.js";
      await page.evaluate(async ({ harness, ws }) => {
        const { mountApp } = await import(harness);
        const el = document.body.appendChild(document.createElement("div"));
        el.id = "second";
        window.second = mountApp(el, ws);
      }, { harness, ws: server.ws });
      await waitFor(page, "#second h2", "Tools v1 (ready, ready)");
      assert.deepEqual(await items(page, "#second"), withoutEcho);
      await connections(2);
      await page.evaluate((url) => window.second.setUrl(url), `${server.ws}?token=alice-token`);
      await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll("#second li")].map((li) => li.textContent.trim())) === want, JSON.stringify(ALICE_TOOLS.filter((n) => n !== "echo")), { timeout: 15_000, polling: 50 });
      assert.equal(await page.textContent("#second h2"), "Tools v1 (ready, ready)");
      await connections(2);
      const seen2 = await page.evaluate(() => window.__h2);
      assert.deepEqual(seen2.filter((h) => /stale|closed/.test(h)), [], `headers seen: ${JSON.stringify(seen2)}`);
      await page.evaluate(() => window.second.unmount());
      await connections(1);
      assert.equal(await openSockets(page), 1, "open WebSockets after the unmount");
      assert.equal(await page.textContent("#root h2"), "Tools v2 (ready, ready)");

      assert.deepEqual(page.problems, []);
      assert.deepEqual(vite.problems, []);
    });
  }

  test("react with vite build (served by vite preview): the wasm is emitted as an asset and loads", async (t) => {
    const { build, preview } = await import("vite");
    const outDir = join(app.react, "dist");
    await build({ root: app.react, configFile: join(app.react, "vite.config.js"), logLevel: "error", build: { outDir } });
    assert.ok(readdirSync(join(outDir, "assets")).some((f) => /^mcplive-.*\.wasm$/.test(f)), "no mcplive-*.wasm in dist/assets");
    const port = await freePort();
    const srv = await preview({ root: app.react, configFile: join(app.react, "vite.config.js"), logLevel: "error", preview: { host: "127.0.0.1", port, strictPort: true } });
    t.after(() => srv.close());
    const page = await open(t, `http://127.0.0.1:${port}/`);
    await waitFor(page, "#root h2", "Tools v1 (ready, ready)");
    assert.deepEqual(await items(page, "#root"), ANON_TOOLS);
    const undo = await toggleEcho();
    t.after(undo);
    await waitFor(page, "#root h2", "Tools v2 (ready, ready)");
    await connections(1);
    assert.deepEqual(page.problems, []);
  });

  test("Web Worker (Vite dev): the client runs in the worker, the page renders its lists and calls through it", async (t) => {
    const vite = await startVite(app.react);
    t.after(() => vite.close());
    const page = await open(t, `${vite.url}/worker.html`);
    await waitFor(page, "h2", "Tools v1 (ready)");
    assert.deepEqual(await items(page), ANON_TOOLS);
    const text = await page.evaluate(async () => {
      const { callTool } = await import("/src/worker-page.js");
      await callTool("login", { user: "alice", password: "wonderland" });
      return (await callTool("echo", { text: "from the worker" })).content[0].text;
    });
    assert.equal(text, "from the worker");
    // The login removes a tool and adds each one it unlocks (go-sdk
    // debounces list_changed by 10 ms): on a loaded machine the client may
    // see it in two steps, v2 and v3.
    await page.waitForFunction((want) => [...document.querySelectorAll("li")].map((li) => li.textContent.trim()).sort().join() === want, [...ALICE_TOOLS].sort().join(), { timeout: 15_000, polling: 50 });
    assert.match(await page.textContent("h2"), /^Tools v([2-9]|\d\d+) \(ready\)$/);
    assert.deepEqual(await items(page), ALICE_TOOLS);
    const err = await page.evaluate(async () => {
      const { callTool } = await import("/src/worker-page.js");
      return callTool("no_such_tool", {}).then(() => "resolved", (e) => e.message);
    });
    assert.match(err, /^RPCError: /);
    assert.deepEqual(page.problems, []);
    assert.deepEqual(vite.problems, []);
  });

  test("no bundler: the page with an import map loads the installed package from node_modules and follows the list", async (t) => {
    const folder = await serveFolder(app.esbuild);
    t.after(() => folder.close());
    await followsTheList(t, await open(t, `${folder.url}/plain.html`));
  });

  test("esbuild: the bundle loads the copied wasm through wasmUrl and follows the list", async (t) => {
    await followsTheList(t, await open(t, `${server.url}/`));
  });
});
