// mcplive/react, mcplive/vue and Svelte's $store in real apps: the apps of
// docs/react.md, docs/vue.md, docs/svelte.md (e2e/apps/, shown verbatim by
// those pages: checked below), with the package installed from its tarball,
// under Vite's dev server (React 19 in StrictMode, Vue 3, Svelte 5) and a
// Next.js production build (server rendering and hydration), in headless
// Chromium against two demo servers, which count the sessions they open.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { createInterface } from "node:readline";
import { launch, CHROMIUM } from "../lib/browser.mjs";
import { startDemo, buildDemo, freePort, ROOT } from "../lib/demo-server.mjs";

const skip = CHROMIUM ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
const E2E = join(ROOT, "e2e");
const APPS = join(E2E, "apps");
const DOCS_URL = "ws://127.0.0.1:8080/mcp";
const ANON_TOOLS = ["add", "echo", "login", "now", "whoami"];
const B_TOOL = "only_on_b";
const run = promisify(execFile);
const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_prefer_offline: "true" };

/** The apps' files as the docs pages show them: [page, app folder, files]. */
const DOCS = [
  ["react.md", "react", ["src/App.jsx", "src/main.jsx"]],
  ["react.md", "next", ["app/layout.jsx", "app/page.jsx", "app/tools.jsx"]],
  ["vue.md", "vue", ["src/App.vue", "src/main.js"]],
  ["svelte.md", "svelte", ["src/App.svelte", "src/main.js"]],
];

test("docs/react.md, docs/vue.md and docs/svelte.md show the tested apps verbatim", () => {
  for (const [page, app, files] of DOCS) {
    const doc = readFileSync(join(ROOT, "docs", page), "utf8");
    for (const f of files) {
      const src = readFileSync(join(APPS, app, f), "utf8");
      const blocks = [...doc.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
      assert.ok(blocks.includes(src), `docs/${page} does not show e2e/apps/${app}/${f} verbatim (in a fenced block)`);
    }
  }
});

const HTML = (src) => `<!doctype html>
<html><head><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"></head>
<body><div id="root"></div><script type="module" src="${src}"></script></body></html>
`;

// Test-only: mount another App, give it another url, re-render it, unmount it.
const HARNESS = {
  "src/react/harness.jsx": `import { Profiler, StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.jsx";

export function mountApp(el, url) {
  const root = createRoot(el);
  let commits = 0;
  const render = (url) => root.render(<StrictMode><Profiler id="app" onRender={() => commits++}><App url={url} /></Profiler></StrictMode>);
  render(url);
  return { setUrl: render, commits: () => commits, unmount: () => root.unmount() };
}
`,
  "src/react/hub.jsx": `import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { useHub, useServers, useTools } from "mcplive/react";

function Hub({ servers }) {
  const hub = useHub(servers);
  const tools = useTools(hub);
  const list = useServers(hub);
  return (
    <section>
      <h3>{list.map((s) => s.id + ":" + s.status).join(",")}</h3>
      <ul>{tools.items.map((t) => <li key={t.name}>{t.name}</li>)}</ul>
    </section>
  );
}

export function mountHub(el, servers) {
  const root = createRoot(el);
  const render = (servers) => root.render(<StrictMode><Hub servers={servers} /></StrictMode>);
  render(servers);
  return { set: render, unmount: () => root.unmount() };
}
`,
  "src/vue/harness.js": `import { createApp, defineComponent, h, ref } from "vue";
import { useClient, useHub, useTools } from "mcplive/vue";
import App from "./App.vue";

// Options from a getter that makes a new object whenever tick changes, with the same values.
export function mountOptions(el, url) {
  const tick = ref(0);
  const Comp = defineComponent({
    setup() {
      const client = useClient(url, () => ({ clientInfo: { name: "my-app", version: "1.0.0" }, requestTimeoutMs: 30000 + 0 * tick.value }));
      const tools = useTools(client);
      return () => h("section", [h("h2", "Tools v" + tools.value.version + " (" + tools.value.status + ")"), h("p", { class: "tick" }, String(tick.value))]);
    },
  });
  const app = createApp(Comp);
  app.mount(el);
  return { bump: () => tick.value++, unmount: () => app.unmount() };
}

// A hub whose servers follow a ref.
export function mountHub(el, servers) {
  const list = ref(servers);
  const Comp = defineComponent({
    setup() {
      const hub = useHub(list);
      const tools = useTools(hub);
      return () => h("ul", tools.value.items.map((t) => h("li", { key: t.name }, t.name)));
    },
  });
  const app = createApp(Comp);
  app.mount(el);
  return { set: (servers) => (list.value = servers), unmount: () => app.unmount() };
}

export function mountApp(el, url) {
  const u = ref(url);
  const app = createApp({ render: () => h(App, { url: u.value }) });
  app.mount(el);
  return { setUrl: (url) => (u.value = url), unmount: () => app.unmount() };
}
`,
  "src/svelte/harness.svelte.js": `import { mount, unmount } from "svelte";
import App from "./App.svelte";

export function mountApp(target, url) {
  const props = $state({ url });
  const app = mount(App, { target, props });
  return { setUrl: (url) => (props.url = url), unmount: () => unmount(app) };
}
`,
};

/**
 * setUp makes e2e/.apps/<tmp>/app (inside e2e, so that vite, react, vue,
 * svelte and next come from e2e/node_modules), installs the packed mcplive
 * there and writes the apps with the given server URL in place of the docs'.
 */
async function setUp(ws) {
  mkdirSync(join(E2E, ".apps"), { recursive: true });
  const dir = mkdtempSync(join(E2E, ".apps", "bindings-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "bindings-app", private: true, type: "module" }, null, 2));
  const { stdout } = await run("npm", ["pack", join(ROOT, "js"), "--pack-destination", dir, "--silent"], { cwd: dir, env: npmEnv, timeout: 120_000 });
  await run("npm", ["install", join(dir, stdout.trim().split("\n").at(-1))], { cwd: app, env: npmEnv, timeout: 120_000 });
  for (const [, name, files] of DOCS) {
    const to = name === "next" ? join(app, "next") : join(app, "src", name);
    for (const f of files) {
      const src = readFileSync(join(APPS, name, f), "utf8");
      assert.ok(src.includes(DOCS_URL) || !/127\.0\.0\.1/.test(src), `${name}/${f}: a URL other than ${DOCS_URL}`);
      const out = join(to, name === "next" ? f : f.replace(/^src\//, ""));
      mkdirSync(join(out, ".."), { recursive: true });
      writeFileSync(out, src.replaceAll(DOCS_URL, ws));
    }
  }
  for (const [f, src] of Object.entries(HARNESS)) writeFileSync(join(app, f), src);
  for (const fw of ["react", "vue", "svelte"]) writeFileSync(join(app, `${fw}.html`), HTML(`/src/${fw}/main.${fw === "react" ? "jsx" : "js"}`));
  writeFileSync(
    join(app, "vite.config.js"),
    `import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import vue from "@vitejs/plugin-vue";
import { svelte } from "@sveltejs/vite-plugin-svelte";

export default defineConfig({ plugins: [react(), vue(), svelte()] });
`,
  );
  // Next.js: the app router app of docs/react.md; Turbopack's root is e2e
  // (next, react come from e2e/node_modules).
  // The browser asks for a favicon: Next serves app/icon.svg as one (a 404 would be a console error).
  writeFileSync(join(app, "next", "app", "icon.svg"), `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>\n`);
  writeFileSync(join(app, "next", "next.config.mjs"), `export default { turbopack: { root: ${JSON.stringify(E2E)} }, outputFileTracingRoot: ${JSON.stringify(E2E)} };\n`);
  return app;
}

/** text is the text of rendered HTML (tags and comments left out). */
const text = (html) => html.replace(/<!--[^]*?-->/g, "").replace(/<[^>]+>/g, "").trim();

/**
 * trapBrowser records, in touched, every read of a browser global by the
 * installed package's own code (its path is in the stack), every use of
 * WebAssembly and every fetch, until the returned undo is called.
 */
function trapBrowser(touched) {
  const restore = [];
  const ours = () => /[\\/]node_modules[\\/]mcplive[\\/]/.test(new Error().stack);
  for (const name of ["window", "document", "navigator", "location", "self", "localStorage", "sessionStorage", "indexedDB", "WebSocket", "fetch"]) {
    const desc = Object.getOwnPropertyDescriptor(globalThis, name);
    const value = desc ? (desc.get ? desc.get.call(globalThis) : desc.value) : undefined;
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        if (ours()) touched.push(`mcplive read globalThis.${name}`);
        if (name === "fetch" && value) return (...args) => (touched.push(`fetch(${String(args[0])})`), value(...args));
        return value;
      },
    });
    restore.push(() => (desc ? Object.defineProperty(globalThis, name, desc) : delete globalThis[name]));
  }
  for (const fn of ["compile", "compileStreaming", "instantiate", "instantiateStreaming", "validate"]) {
    const orig = WebAssembly[fn];
    WebAssembly[fn] = (...args) => (touched.push(`WebAssembly.${fn}`), orig.apply(WebAssembly, args));
    restore.push(() => (WebAssembly[fn] = orig));
  }
  return () => restore.reverse().forEach((r) => r());
}

/** startVite serves app with Vite's dev server on a free port. */
async function startVite(app) {
  const { createServer } = await import("vite");
  const port = await freePort();
  const problems = [];
  const logger = {
    info() {},
    warn: (msg) => problems.push(`vite warn: ${msg}`),
    warnOnce: (msg) => problems.push(`vite warn: ${msg}`),
    error: (msg) => problems.push(`vite error: ${msg}`),
    clearScreen() {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  const server = await createServer({
    root: app,
    configFile: join(app, "vite.config.js"),
    customLogger: logger,
    clearScreen: false,
    server: { host: "127.0.0.1", port, strictPort: true, fs: { allow: [E2E] } },
  });
  await server.listen();
  return { server, url: `http://127.0.0.1:${port}`, problems, close: () => server.close() };
}

/** Records, in the page, every list of tools each app root shows, and every wasm request. */
function watchPage() {
  window.__lists = [];
  new MutationObserver(() => {
    for (const root of document.querySelectorAll("#root, #second, main")) {
      const h2 = root.querySelector("h2")?.textContent ?? "";
      const lis = [...root.querySelectorAll("li")].map((li) => li.textContent.trim()).join(",");
      const snap = `${root.id || root.localName}|${h2}|${lis}`;
      if (!window.__lists.some((s, i) => i === window.__lists.length - 1 && s === snap)) window.__lists.push(snap);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

describe("mcplive/react, mcplive/vue and Svelte's $store in real apps", () => {
  let b, a, bsrv, app, vite;
  before(async () => {
    const port = await freePort();
    [, app] = await Promise.all([buildDemo(), setUp(`ws://127.0.0.1:${port}/mcp`)]);
    [a, bsrv] = await Promise.all([startDemo({ port }), startDemo()]);
    // Server B lists one more tool: a list of A is never a list of B.
    await bsrv.control("POST", "tools", { name: B_TOOL });
    vite = await startVite(app);
    if (!skip) b = await launch();
  });
  after(async () => {
    await b?.close();
    await vite?.close();
    await Promise.all([a?.stop(), bsrv?.stop()]);
  });

  /** count returns a server's sessions: opened since its start, and open now (WebSocket). */
  async function count(server) {
    const { connections, opened } = await server.control("GET", "connections");
    return { opened, open: connections.filter((c) => c.transport === "websocket").length };
  }
  /** until polls count(server) until want(c) holds (a closed socket reaches the server a moment later). */
  async function until(server, want, what, timeout = 10_000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const c = await count(server);
      if (want(c)) return c;
      if (Date.now() > deadline) assert.fail(`${what}: the server counts ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function open(t, url) {
    const page = await b.newPage();
    t.after(() => page.context().close());
    page.wasm = [];
    page.on("request", (r) => /\.wasm(\?|$)/.test(r.url()) && page.wasm.push(r.url()));
    page.on("response", (r) => r.status() >= 400 && page.problems.push(`HTTP ${r.status()}: ${r.url()}`));
    await page.addInitScript(watchPage);
    await page.goto(url);
    return page;
  }
  const items = (page, sel) => page.$$eval(`${sel} li`, (lis) => lis.map((li) => li.textContent.trim()));
  async function waitFor(page, sel, text, timeout = 15_000) {
    try {
      await page.waitForFunction(({ sel, text }) => document.querySelector(sel)?.textContent === text, { sel, text }, { timeout, polling: 50 });
    } catch (err) {
      const have = await page.evaluate(() => document.body.innerText);
      throw new Error(`${sel}: want "${text}"; the page shows ${JSON.stringify(have)}; problems: ${JSON.stringify(page.problems)}: ${err.message}`);
    }
  }
  const report = [];
  after(() => console.log(`sessions the servers counted:\n${report.join("\n")}`));

  test("server rendering in Node (Vite SSR, the package unbundled): mcplive/react and mcplive/vue import and render \"loading\" without a browser global, without the wasm", async () => {
    const touched = [];
    const undo = trapBrowser(touched);
    let react, vue;
    try {
      const [{ renderToString }, { createElement }, { App }] = await Promise.all([import("react-dom/server"), import("react"), vite.server.ssrLoadModule("/src/react/App.jsx")]);
      react = renderToString(createElement(App, { url: a.ws }));
      const [{ renderToString: vueRender }, { createSSRApp }, { default: VueApp }] = await Promise.all([import("vue/server-renderer"), import("vue"), vite.server.ssrLoadModule("/src/vue/App.vue")]);
      vue = await vueRender(createSSRApp(VueApp, { url: a.ws }));
    } finally {
      undo();
    }
    assert.equal(text(react), "Tools v0 (loading, connecting)");
    assert.equal(text(vue), "Tools v0 (loading, connecting)");
    assert.deepEqual(touched, []);
    assert.equal((await count(a)).opened, 0, "server rendering opened a session");
  });

  // Next.js: `next build` (Turbopack) prerenders the page on the server; `next start` serves it.
  const NEXT = join(E2E, "node_modules", "next", "dist", "bin", "next");
  // Vite's dev server set NODE_ENV=development in this process: Next refuses it.
  const nextEnv = () => {
    const { NODE_ENV, ...env } = process.env;
    return { ...env, NEXT_TELEMETRY_DISABLED: "1" };
  };
  let nextApp = null;
  test("Next.js: next build server-renders the docs' app as \"loading\", without WebAssembly or a wasm fetch on the server; the wasm is a client asset only", async () => {
    const dir = join(app, "next");
    // Records any use of WebAssembly (but Node's own), and any fetch of a wasm, in Next's build processes.
    writeFileSync(
      join(app, "trap.mjs"),
      `for (const fn of ["compile", "compileStreaming", "instantiate", "instantiateStreaming"]) {
  const orig = WebAssembly[fn];
  WebAssembly[fn] = function (...args) {
    // Node's own fetch (undici) compiles its HTTP parser: not ours.
    const stack = new Error().stack;
    if (!/node:internal\\/deps\\/undici/.test(stack)) process.stderr.write("TRAP WebAssembly." + fn + "\\n" + stack + "\\n");
    return orig.apply(this, args);
  };
}
const f = globalThis.fetch;
globalThis.fetch = function (input, ...rest) { if (/\\.wasm/.test(String(input?.url ?? input))) process.stderr.write("TRAP fetch " + String(input) + "\\n"); return f.call(this, input, ...rest); };
`,
    );
    const env = { ...nextEnv(), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${JSON.stringify(join(app, "trap.mjs"))}`.trim() };
    const { stdout, stderr } = await run(process.execPath, [NEXT, "build"], { cwd: dir, env, timeout: 240_000 }).catch((err) => assert.fail(`next build failed:\n${err.stdout}\n${err.stderr}`));
    const log = `${stdout}\n${stderr}`;
    assert.doesNotMatch(log, /TRAP/, log);
    assert.doesNotMatch(log, /\b(error|warn(ing)?)\b/i, log);
    const files = (sub) => (existsSync(join(dir, ".next", sub)) ? readdirSync(join(dir, ".next", sub), { recursive: true }).map(String) : []);
    assert.deepEqual(files("server").filter((f) => f.endsWith(".wasm")), [], "a wasm in the server bundle");
    assert.equal(files("static").filter((f) => /mcplive.*\.wasm$/.test(f)).length, 1, `the wasm among the client assets: ${files("static").filter((f) => f.endsWith(".wasm"))}`);
    const html = readFileSync(join(dir, ".next", "server", "app", "index.html"), "utf8");
    assert.match(text(html), /Tools v0 \(loading, connecting\)/);
    assert.equal((await count(a)).opened, 0, "server rendering opened a session");
    nextApp = dir;
  });

  /** serveNext runs `next <cmd>` on a free port and resolves once it serves the page: its url, the page's HTML, its output lines. */
  async function serveNext(t, cmd, env = nextEnv()) {
    const port = await freePort();
    // A process group of its own: next dev runs the server in a child process, which goes with it.
    const proc = spawn(process.execPath, [NEXT, cmd, "-H", "127.0.0.1", "-p", String(port)], { cwd: nextApp, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const out = [];
    for (const s of [proc.stdout, proc.stderr]) createInterface({ input: s }).on("line", (l) => out.push(l));
    const exited = new Promise((r) => proc.once("exit", r));
    const kill = () => {
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {
        // gone already
      }
    };
    process.once("exit", kill);
    t.after(async () => {
      kill();
      await exited;
      process.removeListener("exit", kill);
    });
    const url = `http://127.0.0.1:${port}/`;
    for (const deadline = Date.now() + 90_000; ; ) {
      try {
        const res = await fetch(url);
        if (res.ok) return { url, html: await res.text(), out };
      } catch {
        // not listening yet
      }
      if (proc.exitCode !== null || Date.now() > deadline) assert.fail(`next ${cmd} did not serve ${url}:\n${out.join("\n")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** nextPage checks the Next.js page at url: the server's markup first, then the list, a change followed, one session, the wasm once. */
  async function nextPage(t, url, what) {
    const before = await count(a);
    const page = await open(t, url);
    await waitFor(page, "main h2", "Tools v1 (ready, ready)");
    const lists = await page.evaluate(() => window.__lists);
    assert.equal(lists[0], "main|Tools v0 (loading, connecting)|", `the page first showed the server's markup: ${JSON.stringify(lists)}`);
    assert.deepEqual(await items(page, "main"), ANON_TOOLS);
    const undo = await a.control("POST", "tools/echo/disable").then(() => () => a.control("POST", "tools/echo/enable"));
    t.after(undo);
    await waitFor(page, "main h2", "Tools v2 (ready, ready)");
    assert.deepEqual(await items(page, "main"), ANON_TOOLS.filter((n) => n !== "echo"));
    await undo();
    const one = await until(a, (c) => c.open === before.open + 1, "one session open");
    assert.equal(one.opened - before.opened, 1, `sessions opened by the Next.js page (${what})`);
    report.push(`next (${what}): hydrate and connect: ${one.opened - before.opened} opened`);
    assert.equal(page.wasm.length, 1, `the wasm loaded once: ${JSON.stringify(page.wasm)}`);
    assert.deepEqual(page.problems, [], "errors in the page (a hydration mismatch is one)");
    await page.context().close();
    await until(a, (c) => c.open === before.open, "the page closed, its session closed");
  }

  test("Next.js (next start): the page hydrates without an error, then renders the list, follows a change, opens one session, loads the wasm once", { skip }, async (t) => {
    assert.ok(nextApp, "next build failed (see the test before)");
    const { url, html, out } = await serveNext(t, "start");
    assert.match(text(html), /Tools v0 \(loading, connecting\)/, "the server's HTML");
    await nextPage(t, url, "next start");
    assert.doesNotMatch(out.join("\n"), /error|TRAP/i, out.join("\n"));
  });

  test("Next.js (next dev: StrictMode, server rendering on each request, WebAssembly trapped on the server): one session, the same checks", { skip }, async (t) => {
    assert.ok(nextApp, "next build failed (see the test before)");
    const env = { ...nextEnv(), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${JSON.stringify(join(app, "trap.mjs"))}`.trim() };
    const { url, html, out } = await serveNext(t, "dev", env);
    assert.match(text(html), /Tools v0 \(loading, connecting\)/, "the server's HTML");
    await nextPage(t, url, "next dev, StrictMode");
    assert.doesNotMatch(out.join("\n"), /error|TRAP/i, out.join("\n"));
  });

  test("react: useHub adds, removes and keeps servers by diff (one session each, under StrictMode); useReady sends a refused connection to the error boundary", { skip }, async (t) => {
    const [a0, b0] = [await count(a), await count(bsrv)];
    const page = await open(t, `${vite.url}/react.html`);
    await waitFor(page, "#root h2", "Tools v1 (ready, ready)");
    const hubTools = (want) =>
      page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll("#hub li")].map((li) => li.textContent).sort()) === JSON.stringify(want), want, { timeout: 15_000, polling: 50 });
    const aTools = ANON_TOOLS.map((n) => `a__${n}`);
    const bTools = [...ANON_TOOLS, B_TOOL].sort().map((n) => `b__${n}`);
    await page.evaluate(async (ws) => {
      const { mountHub } = await import("/src/react/hub.jsx");
      const el = document.body.appendChild(document.createElement("div"));
      el.id = "hub";
      window.hub = mountHub(el, { a: ws });
    }, a.ws);
    await hubTools(aTools);
    let ca = await until(a, (c) => c.open === a0.open + 2, "the App's and the hub's sessions on A");
    assert.equal(ca.opened - a0.opened, 2, "sessions opened on A by the App and the hub (StrictMode)");
    await page.evaluate(({ a, b }) => window.hub.set({ a, b }), { a: a.ws, b: bsrv.ws });
    await hubTools([...aTools, ...bTools].sort());
    let cb = await until(bsrv, (c) => c.open === b0.open + 1, "the hub's session on B");
    assert.equal(cb.opened - b0.opened, 1, "sessions opened on B by adding it");
    for (let i = 0; i < 3; i++) await page.evaluate(({ a, b }) => window.hub.set({ a, b: { url: b, options: { clientInfo: { name: "hub" } } } }), { a: a.ws, b: bsrv.ws });
    await hubTools([...aTools, ...bTools].sort());
    cb = await until(bsrv, (c) => c.open === b0.open + 1, "B replaced once for its new options");
    assert.equal(cb.opened - b0.opened, 2, "sessions opened on B: one more for the new options, none for the same options in new objects");
    assert.equal((await count(a)).opened, ca.opened, "server a was left alone");
    await page.evaluate((b) => window.hub.set({ b: { url: b, options: { clientInfo: { name: "hub" } } } }), bsrv.ws);
    await hubTools(bTools);
    await until(a, (c) => c.open === a0.open + 1, "a removed: its session closed");
    report.push(`react useHub: add a (${ca.opened - a0.opened - 1} opened), add b (1), new options of b (1 more), remove a (A open ${a0.open + 1})`);
    await page.evaluate(() => window.hub.unmount());
    await until(bsrv, (c) => c.open === b0.open, "unmount closed the hub's session on B");

    // A refused connection: useReady throws its error to the App's error boundary.
    const dead = `ws://127.0.0.1:${await freePort()}/mcp`;
    await page.evaluate(async (ws) => {
      const { mountApp } = await import("/src/react/harness.jsx");
      const el = document.body.appendChild(document.createElement("div"));
      el.id = "refused";
      window.refused = mountApp(el, ws);
    }, dead);
    await page.waitForSelector("#refused [role=alert]", { timeout: 15_000 });
    const alert = await page.textContent("#refused [role=alert]");
    assert.match(alert, /^Cannot connect: .+/);
    report.push(`react: refused connection: ${alert}`);
    await page.evaluate(() => window.refused.unmount());
    // The refused WebSocket is a console error of Chromium's own; React logs the error the boundary caught.
    const others = page.problems.filter((p) => !/WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|DialError|Cannot connect|An error occurred in the <ToolList> component|could not connect to ws:/.test(p));
    assert.deepEqual(others, []);
    await page.context().close();
    await until(a, (c) => c.open === a0.open, "the page closed, its sessions closed");
  });

  test("vue: options from a getter that makes a new object with the same values do not reopen the client", { skip }, async (t) => {
    const a0 = await count(a);
    const page = await open(t, `${vite.url}/vue.html`);
    await waitFor(page, "#root h2", "Tools v1 (ready, ready)");
    await page.evaluate(async (ws) => {
      const { mountOptions } = await import("/src/vue/harness.js");
      const el = document.body.appendChild(document.createElement("div"));
      el.id = "opts";
      window.opts = mountOptions(el, ws);
    }, a.ws);
    await waitFor(page, "#opts h2", "Tools v1 (ready)");
    const c1 = await until(a, (c) => c.open === a0.open + 2, "two sessions");
    for (let i = 1; i <= 5; i++) {
      await page.evaluate(() => window.opts.bump());
      await waitFor(page, "#opts .tick", String(i));
    }
    assert.equal((await count(a)).opened, c1.opened, "a new options object with the same values opened a session");
    report.push(`vue: 5 new options objects: ${(await count(a)).opened - c1.opened} opened`);
    await page.evaluate(() => window.opts.unmount());
    await until(a, (c) => c.open === a0.open + 1, "unmount closed it");
    assert.deepEqual(page.problems, []);
    await page.context().close();
    await until(a, (c) => c.open === a0.open, "the page closed, its session closed");
  });

  test("vue: useHub follows a ref of servers by diff", { skip }, async (t) => {
    const [a0, b0] = [await count(a), await count(bsrv)];
    const page = await open(t, `${vite.url}/vue.html`);
    await waitFor(page, "#root h2", "Tools v1 (ready, ready)");
    const hubTools = (want) =>
      page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll("#hub li")].map((li) => li.textContent).sort()) === JSON.stringify(want), want, { timeout: 15_000, polling: 50 });
    const aTools = ANON_TOOLS.map((n) => `a__${n}`);
    const bTools = [...ANON_TOOLS, B_TOOL].sort().map((n) => `b__${n}`);
    await page.evaluate(async (ws) => {
      const { mountHub } = await import("/src/vue/harness.js");
      const el = document.body.appendChild(document.createElement("div"));
      el.id = "hub";
      window.hub = mountHub(el, { a: ws });
    }, a.ws);
    await hubTools(aTools);
    await page.evaluate(({ a, b }) => window.hub.set({ a, b }), { a: a.ws, b: bsrv.ws });
    await hubTools([...aTools, ...bTools].sort());
    await page.evaluate((b) => window.hub.set({ b }), bsrv.ws);
    await hubTools(bTools);
    const ca = await until(a, (c) => c.open === a0.open + 1, "a removed: its session closed");
    assert.equal(ca.opened - a0.opened, 2, "sessions opened on A: the App's and the hub's");
    const cb = await until(bsrv, (c) => c.open === b0.open + 1, "the hub's session on B");
    assert.equal(cb.opened - b0.opened, 1, "sessions opened on B");
    await page.evaluate(() => window.hub.unmount());
    await until(bsrv, (c) => c.open === b0.open, "unmount closed the hub's session on B");
    report.push(`vue useHub: a (1 opened), add b (1), remove a (A open ${ca.open}), unmount (B open ${b0.open})`);
    assert.deepEqual(page.problems, []);
    await page.context().close();
    await until(a, (c) => c.open === a0.open, "the page closed, its session closed");
  });

  for (const fw of ["react", "vue", "svelte"]) {
    test(`${fw}: the docs' app renders the list and follows a change, opens one session${fw === "react" ? " under StrictMode" : ""}, switches servers without showing the old list, closes on unmount`, { skip }, async (t) => {
      const before = await count(a);
      assert.equal(before.open, 0, "server A has no session before the page");
      const page = await open(t, `${vite.url}/${fw}.html`);
      await waitFor(page, "#root h2", "Tools v1 (ready, ready)");
      assert.deepEqual(await items(page, "#root"), ANON_TOOLS);
      const undo = await a.control("POST", "tools/echo/disable").then(() => () => a.control("POST", "tools/echo/enable"));
      t.after(undo);
      await waitFor(page, "#root h2", "Tools v2 (ready, ready)");
      const withoutEcho = ANON_TOOLS.filter((n) => n !== "echo");
      assert.deepEqual(await items(page, "#root"), withoutEcho);
      const one = await until(a, (c) => c.open === 1, "one session open");
      assert.equal(one.opened - before.opened, 1, `sessions opened by the ${fw} app`);
      report.push(`${fw}: mount${fw === "react" ? " (StrictMode)" : ""}: ${one.opened - before.opened} opened, ${one.open} open`);

      // A second App, mounted by the harness: re-rendered (React: new inline options), switched to server B, unmounted.
      const bBefore = await count(bsrv);
      await page.evaluate(async ({ fw, ws }) => {
        const { mountApp } = await import(`/src/${fw}/harness.${fw === "react" ? "jsx" : fw === "svelte" ? "svelte.js" : "js"}`);
        const el = document.body.appendChild(document.createElement("div"));
        el.id = "second";
        window.second = mountApp(el, ws);
      }, { fw, ws: a.ws });
      await waitFor(page, "#second h2", "Tools v1 (ready, ready)");
      assert.deepEqual(await items(page, "#second"), withoutEcho);
      const two = await until(a, (c) => c.open === 2, "two sessions open");
      assert.equal(two.opened - before.opened, 2, "sessions opened after the second App");
      if (fw === "react") {
        const commits = await page.evaluate(() => window.second.commits());
        for (let i = 0; i < 5; i++) await page.evaluate((ws) => window.second.setUrl(ws), a.ws);
        await page.waitForFunction((n) => window.second.commits() >= n + 5, commits, { timeout: 10_000, polling: 50 });
        await waitFor(page, "#second h2", "Tools v1 (ready, ready)");
        const same = await count(a);
        assert.equal(same.opened, two.opened, "a re-render with a new inline options object opened a session");
        assert.equal(same.open, 2);
        report.push(`react: 5 re-renders with new inline options: ${same.opened - two.opened} opened`);
      }
      await page.evaluate((ws) => {
        window.__lists.push("SWITCH");
        window.second.setUrl(ws);
      }, bsrv.ws);
      await page.waitForFunction((tool) => [...document.querySelectorAll("#second li")].some((li) => li.textContent.trim() === tool), B_TOOL, { timeout: 15_000, polling: 50 });
      const lists = await page.evaluate(() => window.__lists);
      const after = lists.slice(lists.indexOf("SWITCH") + 1).filter((s) => s.startsWith("second|"));
      const old = after.filter((s) => s.split("|")[2] !== "" && !s.split("|")[2].split(",").includes(B_TOOL));
      assert.deepEqual(old, [], `after the switch, the second App showed a list of server A: ${JSON.stringify(after)}`);
      const switched = await until(a, (c) => c.open === 1, "server A's session of the second App closed after the switch");
      const onB = await until(bsrv, (c) => c.open === 1, "server B has the second App's session");
      assert.equal(onB.opened - bBefore.opened, 1, "sessions opened on B by the switch");
      assert.equal(switched.opened, two.opened, "the switch opened no session on A");
      report.push(`${fw}: url switch: A ${two.open}→${switched.open} open, B ${onB.opened - bBefore.opened} opened`);

      await page.evaluate(() => window.second.unmount());
      const gone = await until(bsrv, (c) => c.open === 0, "unmount closed the session on B");
      report.push(`${fw}: unmount: B ${gone.open} open`);
      assert.equal(await page.textContent("#root h2"), "Tools v2 (ready, ready)");
      assert.equal((await count(a)).open, 1);

      assert.equal(page.wasm.length, 1, `the wasm loaded once: ${JSON.stringify(page.wasm)}`);
      assert.deepEqual(page.problems, []);
      assert.deepEqual(vite.problems, []);
      await page.context().close();
      await until(a, (c) => c.open === 0, "the page closed, its session closed");
    });
  }
});
