// mcplive/oauth's lifecycle (issue 45) in headless Chromium against the
// real authorization server (authserver/server.mjs: oidc-provider, another
// origin, CORS) in front of the Go test server's /mcp as a protected
// resource; the Node twins are in oauth-lifecycle-real.test.js, the
// scripted ones in oauth-lifecycle.test.js. Playwright plays the user: it
// clicks the page's "Sign in" (the popup opens in the click) and signs in
// and allows on the authorization server's pages.
//
// - After signOut(), the next sign-in asks only for what the server
//   challenges (its 401), not the step-up scope of the user before.
// - A registration the authorization server forgot (/_test/forget-client):
//   invalid_client at the refresh (registered anew, the user's next click
//   signs in) and at the code exchange (the popup's authorize() fails with
//   invalid_client, the connect waits; the next click registers anew and
//   signs in: a popup cannot be opened again without the user's click);
//   signOut({ forgetClient: true }) registers anew at the next sign-in.
// - A popup that never calls back: closed by the user at the real login
//   page, the opener leaves "authorizing" with popup_closed; a redirect URI
//   on another origin (localhost vs 127.0.0.1) names that cause.
//
// The secret scan (secrets.js) covers the browser too: every token, code,
// verifier and refresh token that went over the wire (playwright sees the
// token endpoint's requests and answers, and the callback URLs) is a secret,
// searched for in the pages' console lines and errors, the errors and
// states the tests read, and this process's output.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { NO_CHROMIUM, launchChromium } from "./helpers.js";
import { startProtected } from "./authserver.js";
import { scanSecrets, scanBrowserContext, record } from "./secrets.js";

scanSecrets();

const toolScopes = (s) => (Array.isArray(s) ? s : (s ?? "").split(" ")).filter((x) => x.startsWith("tools:")).sort();

describe("mcplive/oauth's lifecycle in headless Chromium against oidc-provider", { skip: NO_CHROMIUM }, () => {
  let env, browser;
  before(async () => {
    env = await startProtected({ args: ["-static", fileURLToPath(new URL("..", import.meta.url))], accessTtl: 3 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env?.stop();
  });

  /**
   * session is a browser context whose traffic feeds the secret scan and
   * records the authorization URLs (authUrls), with its app page (page):
   * oauth() + connect() to the protected server, whose requests to the
   * MCP server can be held (window.hold() / window.release()), and a
   * "Sign in" button that calls auth.authorize() in its click.
   */
  async function session(t, { redirectUri = null } = {}) {
    const context = await browser.newContext();
    const authUrls = [];
    context.on("request", (req) => {
      const url = new URL(req.url());
      if (url.origin === env.as.issuer && url.pathname === "/auth") authUrls.push(url);
    });
    const settle = scanBrowserContext(context, env.as.issuer);
    const page = await context.newPage();
    await page.goto(`${env.server.http}/js/test/browser/oauth.html`);
    await page.waitForFunction(() => document.title === "ready");
    await page.evaluate(
      ([url, redirectUri]) => {
        const m = window.mcplive;
        let gate = Promise.resolve();
        let release = () => {};
        window.hold = () => {
          gate = new Promise((r) => (release = r));
        };
        window.release = () => release();
        const fetch = async (input, init) => {
          await gate;
          return globalThis.fetch(input, init);
        };
        window.auth = m.oauth({ redirectUri: redirectUri ?? `${location.origin}/js/test/browser/callback.html`, registration: { clientName: "mcplive lifecycle test", applicationType: "web" } });
        window.changes = [];
        window.connectError = null;
        window.authorizeError = null;
        window.clientP = m.connect(url, { auth: window.auth, fetch, logger: console }).then(
          (c) => {
            window.client = c;
            c.on("change", (ev) => window.changes.push({ kind: ev.kind, added: ev.added.map((i) => i.name) }));
          },
          (e) => (window.connectError = `${e.name}: ${e.message}`),
        );
        const b = document.createElement("button");
        b.id = "signin";
        b.textContent = "Sign in";
        b.onclick = () => {
          window.authorizeError = null;
          window.auth.authorize().catch((e) => (window.authorizeError = { code: e.code, error: e.error, message: e.message }));
        };
        document.body.append(b);
      },
      [env.server.mcp, redirectUri],
    );
    t.after(async () => {
      await page.evaluate(() => window.client?.close()).catch(() => {});
      await context.close();
    });
    return {
      context,
      page,
      authUrls,
      /** settle waits for the token answers still being read (their secrets), and records what the page shows. */
      async settle() {
        await settle();
        if (!page.isClosed()) record(await page.evaluate(() => JSON.stringify({ state: window.auth.get(), error: window.auth.get().error && { message: window.auth.get().error.message, stack: window.auth.get().error.stack, cause: String(window.auth.get().error.cause ?? "") }, authorizeError: window.authorizeError, connectError: window.connectError })), "the page's auth state");
      },
    };
  }

  const waitStatus = (page, status, timeout = 15000) => page.waitForFunction((s) => window.auth.get().status === s, status, { timeout });
  const waitConnected = async (page) => {
    await page.waitForFunction(() => window.client || window.connectError, null, { timeout: 20000 });
    assert.equal(await page.evaluate(() => window.connectError), null);
  };

  /** signIn plays the user in the popup: sign in (when the server asks), allow. */
  async function signIn(popup, { username = "alice", password = "wonderland" } = {}) {
    await popup.waitForSelector("#username, #allow");
    if (await popup.$("#username")) {
      await popup.fill("#username", username);
      await popup.fill("#password", password);
      await popup.click("#signin");
    }
    await popup.waitForSelector("#allow");
    await popup.click("#allow");
  }

  /** clickSignIn clicks the page's Sign in and returns the popup. */
  async function clickSignIn(page) {
    const popup = page.waitForEvent("popup");
    await page.click("#signin");
    return popup;
  }

  /** signedIn: the first sign-in of a session (401, Sign in, login and consent), connected. */
  async function signedIn(s) {
    await waitStatus(s.page, "needs-authorization");
    await signIn(await clickSignIn(s.page));
    await waitConnected(s.page);
  }

  test("after signOut(), the next sign-in asks only for what the server challenges (its 401), not the step-up scope of the user before", async (t) => {
    const s = await session(t);
    const { page } = s;
    try {
      await signedIn(s);
      assert.deepEqual(toolScopes(s.authUrls[0].searchParams.get("scope")), ["tools:read"]);
      // Step-up: the admin tool answers 403 insufficient_scope; Sign in again for the union.
      await env.server.control("add-tool", { name: "admin_purge" });
      await page.waitForFunction(() => window.client.tools.get().items.some((t) => t.name === "admin_purge"), null, { timeout: 10000 });
      assert.ok(await page.evaluate(() => window.client.callTool("admin_purge", { text: "x" }).then(() => false, () => true)), "refused first");
      await waitStatus(page, "needs-authorization");
      await signIn(await clickSignIn(page));
      await waitStatus(page, "authorized");
      assert.equal((await page.evaluate(() => window.client.callTool("admin_purge", { text: "purged" }))).content[0].text, "purged");
      assert.deepEqual(toolScopes(s.authUrls[1].searchParams.get("scope")), ["tools:admin", "tools:read"], "the step-up asked for the union");

      // Sign out; another user signs in at once, before the client's re-list
      // is refused (its requests held): asked for tools:read only.
      await page.evaluate(() => window.hold());
      await page.evaluate(() => window.auth.signOut());
      await s.context.clearCookies(); // the authorization server's session too: bob logs in
      const popup = await clickSignIn(page);
      await popup.waitForURL((u) => u.origin === env.as.issuer);
      await page.evaluate(() => window.release());
      await signIn(popup, { username: "bob", password: "builder" });
      await waitStatus(page, "authorized");
      assert.equal(s.authUrls.length, 3);
      assert.deepEqual(toolScopes(s.authUrls[2].searchParams.get("scope")), ["tools:read"], `the next user is not asked for the admin scope: ${s.authUrls[2].searchParams.get("scope")}`);
      assert.deepEqual(toolScopes(await page.evaluate(() => window.auth.get().scopes)), ["tools:read"], "bob's token has no admin scope");
      assert.equal(await page.evaluate(() => window.authorizeError), null);
    } finally {
      await env.server.control("remove-tool", { name: "admin_purge" });
      await s.settle();
    }
  });

  test("the authorization server forgot the registration: the refresh gets invalid_client; registered anew for the user's next Sign in, and the list stays live", async (t) => {
    const s = await session(t);
    const { page } = s;
    try {
      await signedIn(s);
      const first = s.authUrls[0].searchParams.get("client_id");
      const before = await env.as.stats();
      await env.as.forgetClient(first);
      const expiresAt = await page.evaluate(() => window.auth.get().expiresAt);
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() + 200))); // the token's end, not a guess
      await env.server.control("add-tool", { name: "after_forget_b" });
      await waitStatus(page, "needs-authorization");
      const url = new URL(await page.evaluate(() => window.auth.get().authorizationUrl));
      assert.notEqual(url.searchParams.get("client_id"), first, "the URL for the next Sign in is the new registration's");
      let stats = await env.as.stats();
      assert.ok(stats.refreshErrors > before.refreshErrors, "the refresh was refused");
      assert.equal(stats.registration - before.registration, 1, "registered anew, once");
      await signIn(await clickSignIn(page));
      await page.waitForFunction(() => window.changes.some((c) => c.kind === "tools" && c.added.includes("after_forget_b")), null, { timeout: 15000 });
      stats = await env.as.stats();
      assert.equal(stats.registration - before.registration, 1, "no more registrations");
      assert.equal(await page.evaluate(() => window.auth.get().status), "authorized");
    } finally {
      await env.server.control("remove-tool", { name: "after_forget_b" });
      await s.settle();
    }
  });

  test("the authorization server forgot the registration before the code exchange: authorize() fails with invalid_client, the connect waits, and the next Sign in registers anew and signs in", async (t) => {
    const s = await session(t);
    const { page } = s;
    try {
      let forgotten = null;
      // Held at the first code exchange (playwright's route sees the page's
      // token request; it cannot see the redirect to the callback page):
      // the server forgets the client the flow used, then gets the request.
      await s.context.route(`${env.as.issuer}/token`, async (route) => {
        if (!forgotten && route.request().method() === "POST") {
          forgotten = s.authUrls.at(-1).searchParams.get("client_id");
          await env.as.forgetClient(forgotten);
        }
        await route.continue();
      });
      const before = await env.as.stats();
      await waitStatus(page, "needs-authorization");
      await signIn(await clickSignIn(page));
      try {
        await page.waitForFunction(() => window.authorizeError, null, { timeout: 15000 });
      } catch (e) {
        throw new Error(`no error from authorize(): ${JSON.stringify({ forgotten, state: await page.evaluate(() => window.auth.get()), stats: await env.as.stats() })}`, { cause: e });
      }
      const err = await page.evaluate(() => window.authorizeError);
      assert.equal(err.error, "invalid_client", JSON.stringify(err));
      // The registration is dropped: the connect waits for the next click, as after a closed popup.
      assert.deepEqual(await page.evaluate(() => ({ status: window.auth.get().status, connectError: window.connectError })), { status: "needs-authorization", connectError: null });
      // The user clicks Sign in again: a new registration, and the flow goes through.
      await signIn(await clickSignIn(page));
      await waitConnected(page);
      const stats = await env.as.stats();
      assert.equal(stats.registration - before.registration, 2, "the first registration, and one anew");
      assert.equal(s.authUrls.length, 2);
      assert.equal(s.authUrls[0].searchParams.get("client_id"), forgotten);
      assert.notEqual(s.authUrls[1].searchParams.get("client_id"), forgotten, "the second flow is the new registration's");
      assert.equal(await page.evaluate(() => window.auth.get().status), "authorized");
    } finally {
      await s.settle();
    }
  });

  test("signOut({ forgetClient: true }) drops the registration: the next Sign in registers anew", async (t) => {
    const s = await session(t);
    const { page } = s;
    try {
      await signedIn(s);
      const before = await env.as.stats();
      await page.evaluate(() => window.auth.signOut({ forgetClient: true }));
      await waitStatus(page, "needs-authorization");
      await signIn(await clickSignIn(page));
      await waitStatus(page, "authorized");
      assert.equal((await env.as.stats()).registration - before.registration, 1, "registered anew");
      assert.notEqual(s.authUrls.at(-1).searchParams.get("client_id"), s.authUrls[0].searchParams.get("client_id"));
      assert.equal((await page.evaluate(() => window.client.callTool("echo", { text: "again" }))).content[0].text, "again");
    } finally {
      await s.settle();
    }
  });

  test("a popup closed by the user at the authorization server's login page: the page leaves authorizing with popup_closed, saying what the callback page must do", async (t) => {
    const s = await session(t);
    const { page } = s;
    try {
      await waitStatus(page, "needs-authorization");
      const popup = await clickSignIn(page);
      await popup.waitForSelector("#username");
      assert.equal(await page.evaluate(() => window.auth.get().status), "authorizing");
      await popup.close();
      await page.waitForFunction(() => window.authorizeError, null, { timeout: 15000 });
      const err = await page.evaluate(() => window.authorizeError);
      assert.equal(err.code, "popup_closed");
      assert.match(err.message, /the sign-in window was closed before the authorization finished \(if the sign-in was done, the callback page \(http:\/\/127\.0\.0\.1:\d+\/js\/test\/browser\/callback\.html\) did not hand it back: it must load, and call handleCallback\(\) from mcplive\/oauth\)/);
      const st = await page.evaluate(() => ({ status: window.auth.get().status, code: window.auth.get().error?.code }));
      assert.deepEqual(st, { status: "needs-authorization", code: "popup_closed" });
      // And the user can sign in after all.
      await signIn(await clickSignIn(page));
      await waitConnected(page);
    } finally {
      await s.settle();
    }
  });

  test("a redirect URI on another origin (localhost, the page on 127.0.0.1): the callback cannot reach the page, and the error names that cause", async (t) => {
    const port = new URL(env.server.http).port;
    const redirectUri = `http://localhost:${port}/js/test/browser/callback.html`;
    const s = await session(t, { redirectUri });
    const { page } = s;
    try {
      await waitStatus(page, "needs-authorization");
      const popup = await clickSignIn(page);
      await signIn(popup);
      // The authorization server sends the popup to the localhost callback
      // page; its handleCallback() cannot reach a page of another origin.
      // It closes itself (or, if it could not load, the user closes it).
      await popup.waitForURL((u) => u.hostname === "localhost", { timeout: 15000 }).catch(() => {});
      await popup.waitForEvent("close", { timeout: 5000 }).catch(() => popup.close());
      await page.waitForFunction(() => window.authorizeError, null, { timeout: 15000 });
      const err = await page.evaluate(() => window.authorizeError);
      assert.equal(err.code, "popup_closed");
      assert.ok(
        err.message.includes(`the redirect URI ${redirectUri} is on another origin (http://localhost:${port}) than this page (http://127.0.0.1:${port}): its handleCallback() cannot hand the callback to this page; use a redirect URI on this page's origin (localhost and 127.0.0.1 are different origins)`),
        err.message,
      );
      assert.equal(await page.evaluate(() => window.auth.get().status), "needs-authorization");
    } finally {
      await s.settle();
    }
  });
});
