// A CORS-less, OAuth-protected third-party server from a page in headless
// Chromium: the TypeScript SDK 1.32.2's example server
// (simpleStreamableHttp.js --oauth: MCP on one port, sending no CORS
// headers on /mcp, and a demo authorization server on another that
// approves without a login page). The page, on a third origin, connects to
// the server's own URL, and its requests go (the fetch option) through
// mcplive-bridge -upstream (viaBridge), then through a same-origin dev
// proxy as Vite's server.proxy does (docs/transports-and-cors.md); it signs
// in by the popup flow (a click opens it) and lists the server's tools.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { extname, join, normalize } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { NO_CHROMIUM, launchChromium, startServer } from "./helpers.js";
import { startBridge } from "./bridge-helpers.js";

const JS = fileURLToPath(new URL("..", import.meta.url));
const EXAMPLE = join(JS, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js");

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** startExample runs the TS SDK's example server with --oauth on free ports. */
async function startExample() {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, [EXAMPLE, "--oauth"], { env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) }, stdio: ["ignore", "pipe", "pipe"] });
  const log = [];
  const lines = (l) => log.push(l);
  createInterface({ input: proc.stderr }).on("line", lines);
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("the example server did not start: " + log.join("\n"))), 30000);
    createInterface({ input: proc.stdout }).on("line", (l) => {
      log.push(l);
      if (l.includes("listening on port")) (clearTimeout(t), resolve());
    });
    proc.once("exit", (code) => reject(new Error(`the example server exited (${code}): ${log.join("\n")}`)));
  });
  const exited = new Promise((r) => proc.once("exit", r));
  return {
    mcp: `http://localhost:${mcpPort}/mcp`,
    mcpOrigin: `http://localhost:${mcpPort}`,
    authOrigin: `http://localhost:${authPort}`,
    log,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * startDevServer serves js/ at /js/ and proxies /proxy/mcp-server/… and
 * /proxy/auth-server/… to the example's two origins, as Vite's
 * server.proxy with changeOrigin and a rewrite does.
 */
async function startDevServer(example) {
  const routes = { "/proxy/mcp-server": example.mcpOrigin, "/proxy/auth-server": example.authOrigin };
  const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  const proxied = [];
  const server = createServer(async (req, res) => {
    const prefix = Object.keys(routes).find((p) => req.url.startsWith(p + "/"));
    if (prefix) {
      const target = new URL(req.url.slice(prefix.length), routes[prefix]);
      proxied.push(target.href);
      const headers = { ...req.headers, host: target.host };
      delete headers.origin;
      delete headers.referer;
      const out = httpRequest(target, { method: req.method, headers }, (up) => {
        res.writeHead(up.statusCode, up.headers);
        res.flushHeaders(); // an event stream's headers go out before its first event
        up.pipe(res);
      });
      out.on("error", (err) => res.writeHead(502).end(String(err)));
      req.pipe(out);
      return;
    }
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith("/js/")) return res.writeHead(404).end();
    try {
      const body = await readFile(join(JS, path.slice(4)));
      res.writeHead(200, { "Content-Type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, proxied, close: () => new Promise((r) => server.close(r)) };
}

describe("a CORS-less OAuth server (the TypeScript SDK's example) from a page in headless Chromium", { skip: NO_CHROMIUM }, () => {
  let example, pages, bridge, dev, browser;
  const problems = [];
  before(async () => {
    example = await startExample();
    pages = await startServer(["-static", JS]); // the page's origin
    bridge = await startBridge(["-allow-origin", new URL(pages.http).origin, "-upstream", example.mcp]);
    dev = await startDevServer(example);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await bridge?.stop();
    await dev?.close();
    await pages?.stop();
    await example?.stop();
  });

  /** signInAndList connects the page with its fetch (set up by setup), signs in by the popup, returns the tools. */
  async function signInAndList(base, setup, args) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
      await page.goto(`${base}/js/test/browser/oauth.html`);
      await page.waitForFunction(() => document.title === "ready");
      await page.evaluate(setup, args);
      await page.evaluate((url) => {
        const m = window.mcplive;
        window.auth = m.oauth({ redirectUri: `${location.origin}/js/test/browser/callback.html`, fetch: window.appFetch });
        window.clientP = m.connect(url, { fetch: window.appFetch, auth: window.auth }).then(
          (c) => (window.client = c),
          (e) => (window.connectError = `${e.name}: ${e.message}`),
        );
        const b = document.createElement("button");
        b.id = "signin";
        b.textContent = "Sign in";
        b.onclick = () => window.auth.authorize().catch((e) => (window.authorizeError = `${e.name} ${e.code}: ${e.message}`));
        document.body.append(b);
      }, example.mcp);
      await page.waitForFunction(() => window.auth.get().status === "needs-authorization" || window.connectError || window.authorizeError, null, { timeout: 20000 });
      assert.equal(await page.evaluate(() => window.connectError ?? window.authorizeError ?? null), null);
      const popup = page.waitForEvent("popup");
      await page.click("#signin");
      await (await popup).waitForEvent("close", { timeout: 20000 }).catch(() => {});
      await page.waitForFunction(() => window.client || window.connectError || window.authorizeError, null, { timeout: 20000 });
      assert.equal(await page.evaluate(() => window.connectError ?? window.authorizeError ?? null), null);
      const st = await page.evaluate(() => ({ status: window.auth.get().status, issuer: window.auth.get().issuer }));
      assert.equal(st.status, "authorized");
      assert.equal(new URL(st.issuer).origin, example.authOrigin);
      const tools = await page.evaluate(() => window.client.tools.get().items.map((t) => t.name));
      await page.evaluate(() => window.client.close());
      return tools;
    } finally {
      await context.close();
    }
  }

  test("through mcplive-bridge -upstream (viaBridge): sign in by popup, then its tools", async () => {
    const tools = await signInAndList(
      pages.http,
      async ({ origin, token }) => {
        const { viaBridge } = await import("/js/index.js");
        window.appFetch = viaBridge(origin, { token });
      },
      { origin: bridge.origin, token: bridge.token },
    );
    assert.ok(tools.includes("greet"), String(tools));
  });

  test("through a same-origin dev proxy behind the fetch option: sign in by popup, then its tools", async () => {
    const tools = await signInAndList(
      dev.url,
      (routes) => {
        window.appFetch = (input, init) => {
          const u = new URL(input instanceof Request ? input.url : input);
          const prefix = routes[u.origin];
          return fetch(prefix ? prefix + u.pathname + u.search : u.href, init);
        };
      },
      { [example.mcpOrigin]: "/proxy/mcp-server", [example.authOrigin]: "/proxy/auth-server" },
    );
    assert.ok(tools.includes("greet"), String(tools));
    assert.ok(dev.proxied.some((u) => u.startsWith(example.authOrigin)) && dev.proxied.some((u) => u === example.mcp), dev.proxied.join("\n"));
  });

  test("no page error", () => assert.deepEqual(problems, []));
});
