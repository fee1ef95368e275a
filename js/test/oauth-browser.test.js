// mcplive/oauth in headless Chromium against a real authorization server
// (authserver/server.mjs: oidc-provider, another origin, CORS) in front of
// the Go test server's /mcp as a protected resource (go-sdk server; tokens
// checked by introspection, audience and scope). Playwright plays the
// user: it clicks the page's "Sign in" (the popup must open in a click)
// and signs in and allows on the authorization server's pages. The popup
// flow; the time from the first 401 to the first full sync when the
// consent is already given (printed: "measure: ..."); refresh after a 3 s
// token lifetime with the list live; step-up; two tabs refreshing at once
// (one refresh at the server); sign-out (revocations at the server); the
// full-page redirect flow. Under the secret scan (secrets.js): the tokens,
// codes and verifiers that went over the wire, searched for in the pages'
// console lines and errors.
import { test, describe, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { NO_CHROMIUM, launchChromium } from "./helpers.js";
import { fileURLToPath } from "node:url";
import { startProtected } from "./authserver.js";
import { scanSecrets, scanBrowserContext } from "./secrets.js";

scanSecrets();

const skip = NO_CHROMIUM;
const TTL = 3; // seconds: the access tokens' lifetime

describe("mcplive/oauth in headless Chromium against oidc-provider", { skip }, () => {
  let env, browser;
  const problems = [];
  before(async () => {
    env = await startProtected({ args: ["-static", fileURLToPath(new URL("..", import.meta.url))], accessTtl: TTL });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env?.stop();
  });
  // Every context's traffic and pages feed the secret scan.
  const settles = [];
  const newContext = async () => {
    const context = await browser.newContext();
    settles.push(scanBrowserContext(context, env.as.issuer));
    return context;
  };
  afterEach(async () => {
    await Promise.all(settles.map((settle) => settle()));
  });

  /** appPage opens the test page in context and prepares an oauth() + connect there (not started). */
  async function appPage(context, path = "oauth.html") {
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(`${env.server.http}/js/test/browser/${path}`);
    await page.waitForFunction(() => document.title === "ready");
    return page;
  }

  /**
   * start: in the page, an oauth() object (storage: "memory" | "local" |
   * "session") and connect() to the protected server; a "Sign in" button
   * that calls auth.authorize() in its click. Times (performance.now()):
   * the first 401 the page got, and when connect resolved.
   */
  function start(page, { storage = "memory", mode, dpop = false } = {}) {
    return page.evaluate(
      ([url, storage, mode, dpop]) => {
        const m = window.mcplive;
        window.t = { first401: null, synced: null };
        const realFetch = window.fetch;
        window.fetch = async (...a) => {
          const res = await realFetch(...a);
          if (res.status === 401 && window.t.first401 === null) window.t.first401 = performance.now();
          return res;
        };
        window.auth = m.oauth({
          redirectUri: `${location.origin}/js/test/browser/callback.html`,
          storage: storage === "local" ? m.localStorageAdapter() : storage === "session" ? m.sessionStorageAdapter() : undefined,
          // A web app's client ("native", the default for a loopback redirect
          // URI, is asked for consent at every authorization by oidc-provider,
          // as RFC 8252 §8.6 suggests: a loopback URI proves nothing).
          registration: { clientName: "mcplive browser test", applicationType: "web" },
          ...(mode ? { mode } : {}),
          ...(dpop ? { dpop: true } : {}),
        });
        window.changes = [];
        window.connectError = null;
        window.clientP = m.connect(url, { auth: window.auth }).then(
          (c) => {
            window.t.synced = performance.now();
            window.client = c;
            c.on("change", (ev) => window.changes.push({ kind: ev.kind, added: ev.added.map((i) => i.name), removed: ev.removed.map((i) => i.name) }));
            return true;
          },
          (e) => {
            window.connectError = `${e.name}: ${e.message}`;
            return false;
          },
        );
        const b = document.createElement("button");
        b.id = "signin";
        b.textContent = "Sign in";
        b.onclick = () => window.auth.authorize().catch((e) => (window.authorizeError = `${e.name} ${e.code}: ${e.message}`));
        document.body.append(b);
      },
      [env.server.mcp, storage, mode, dpop],
    );
  }

  const waitStatus = (page, status, timeout = 15000) => page.waitForFunction((s) => window.auth.get().status === s || window.connectError || window.authorizeError, status, { timeout });
  const waitConnected = async (page) => {
    await page.waitForFunction(() => window.client || window.connectError, null, { timeout: 20000 });
    assert.equal(await page.evaluate(() => window.connectError), null);
  };

  /** signIn plays the user in the popup (or the page, after a redirect): sign in (if asked), allow. */
  async function signIn(p, { login = true } = {}) {
    if (login) {
      await p.waitForSelector("#username");
      await p.fill("#username", "alice");
      await p.fill("#password", "wonderland");
      await p.click("#signin");
    }
    await p.waitForSelector("#allow");
    await p.click("#allow");
  }

  /** clickSignIn clicks the page's Sign in and returns the popup. */
  async function clickSignIn(page) {
    const popup = page.waitForEvent("popup");
    await page.click("#signin");
    return popup;
  }

  const toolNames = (page) => page.evaluate(() => window.client.tools.get().items.map((t) => t.name));

  let shared; // the context of the popup flow: its session and grant at the server, and its tabs
  let appA;

  test("popup flow: 401, Sign in in a click, login and consent in the popup, then the protected catalog", async () => {
    shared = await newContext();
    appA = await appPage(shared);
    const before = await env.as.stats();
    await start(appA, { storage: "local" });
    await waitStatus(appA, "needs-authorization");
    assert.match(await appA.evaluate(() => window.auth.get().authorizationUrl), /code_challenge_method=S256/);
    const popup = await clickSignIn(appA);
    await signIn(popup);
    await waitConnected(appA);
    assert.ok((await toolNames(appA)).includes("echo"));
    const st = await appA.evaluate(() => window.auth.get());
    assert.equal(st.status, "authorized");
    assert.equal(st.issuer, env.as.issuer);
    const after = await env.as.stats();
    assert.deepEqual({ login: after.login - before.login, consent: after.consent - before.consent, registration: after.registration - before.registration }, { login: 1, consent: 1, registration: 1 });
    assert.equal(await appA.evaluate(() => window.authorizeError ?? null), null);
  });

  test("refresh after the token's lifetime, with the list live: a list change after the expiry arrives (refreshed at the server)", async () => {
    const expiresAt = await appA.evaluate(() => window.auth.get().expiresAt);
    assert.ok(expiresAt, "the token has an expiry");
    const wait = expiresAt - Date.now() + 200;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait)); // the token's end, not a guess
    const before = await env.as.stats();
    await env.server.control("add-tool", { name: "after_refresh" });
    await appA.waitForFunction(() => window.changes.some((c) => c.kind === "tools" && c.added.includes("after_refresh")), null, { timeout: 10000 });
    const after = await env.as.stats();
    assert.ok(after.token.refresh_token > before.token.refresh_token, JSON.stringify(after));
    assert.equal(after.refreshErrors, 0);
    assert.equal(after.token.authorization_code, before.token.authorization_code, "refreshed, not authorized again");
    assert.ok((await appA.evaluate(() => window.auth.get().expiresAt)) > expiresAt);
  });

  test("step-up: an admin tool answers 403 insufficient_scope; Sign in again (consent for tools:admin, no login) and the call goes through", async () => {
    await env.server.control("add-tool", { name: "admin_reset" });
    await appA.waitForFunction(() => window.client.tools.get().items.some((t) => t.name === "admin_reset"), null, { timeout: 10000 });
    const refused = await appA.evaluate(() => window.client.callTool("admin_reset", { text: "x" }).then(() => null, (e) => ({ name: e.name, message: e.message })));
    assert.ok(refused, "the first call is refused");
    await waitStatus(appA, "needs-authorization");
    const url = new URL(await appA.evaluate(() => window.auth.get().authorizationUrl));
    assert.deepEqual(url.searchParams.get("scope").split(" ").filter((s) => s.startsWith("tools:")).sort(), ["tools:admin", "tools:read"], "the union of the scopes");
    const popup = await clickSignIn(appA);
    await signIn(popup, { login: false });
    await waitStatus(appA, "authorized");
    const r = await appA.evaluate(() => window.client.callTool("admin_reset", { text: "reset done" }));
    assert.equal(r.content[0].text, "reset done");
    assert.deepEqual((await appA.evaluate(() => window.auth.get().scopes)).filter((s) => s.startsWith("tools:")).sort(), ["tools:admin", "tools:read"]);
    await env.server.control("remove-tool", { name: "admin_reset" });
  });

  test("two tabs with localStorageAdapter refresh at once: one refresh request at the authorization server, both lists live", async () => {
    const appB = await appPage(shared);
    await start(appB, { storage: "local" });
    await waitConnected(appB); // the tokens of tab A: no 401, no sign-in
    // One token for both tabs. The tokens live TTL seconds: on a loaded
    // machine tab A's may be about to expire by the time tab B connects, and
    // then B refreshes it and stores the new one, which A takes from storage
    // at its next request (not refreshing again). A ping of the tab with the
    // older token is that request; a few rounds at the most.
    const expiries = () => Promise.all([appA, appB].map((p) => p.evaluate(() => window.auth.get().expiresAt)));
    let [ea, eb] = await expiries();
    for (let round = 0; ea !== eb && round < 5; round++) {
      await (ea < eb ? appA : appB).evaluate(() => window.client.ping());
      [ea, eb] = await expiries();
    }
    assert.equal(ea, eb, "one token for both tabs");
    const wait = ea - Date.now() + 200;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const before = await env.as.stats();
    await env.server.control("add-tool", { name: "two_tabs" });
    try {
      await Promise.all([appA, appB].map((p) => p.waitForFunction(() => window.changes.some((c) => c.kind === "tools" && c.added.includes("two_tabs")), null, { timeout: 10000 })));
    } catch (err) {
      for (const p of [appA, appB]) console.log("a tab:", await p.evaluate(() => JSON.stringify({ a: window.auth.get(), ch: window.changes, st: window.client.status.get(), tools: window.client.tools.get().status, err: window.client.tools.get().error?.message })));
      console.log("at the servers:", JSON.stringify(await env.as.stats()), env.server.log.slice(-10).join("\n"));
      throw err;
    }
    const after = await env.as.stats();
    assert.equal(after.token.refresh_token - before.token.refresh_token, 1, `one refresh: ${JSON.stringify({ before, after })}`);
    assert.equal(after.refreshErrors, before.refreshErrors);
    const [na, nb] = await Promise.all([appA, appB].map((p) => p.evaluate(() => window.auth.get().expiresAt)));
    assert.ok(na > ea && na === nb, "both tabs use the new token");
    await appB.evaluate(() => window.client.close());
    await appB.close();
  });

  test("sign-out: the tokens are forgotten and revoked at the authorization server", async () => {
    const before = await env.as.stats();
    await appA.evaluate(() => window.auth.signOut());
    // The client lists again and is refused: it waits for the user's Sign in.
    await waitStatus(appA, "needs-authorization");
    assert.equal(await appA.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("mcplive-oauth:tokens:")).length), 0);
    const after = await env.as.stats();
    assert.equal(after.revocation - before.revocation, 2, "the refresh and the access token");
    await appA.evaluate(() => window.client.close());
    await shared.close();
  });

  test("full-page redirect flow: Sign in leaves the page, login and consent, back at the callback page the connect resumes", async () => {
    const context = await newContext();
    const page = await appPage(context);
    await start(page, { mode: "redirect" });
    await waitStatus(page, "needs-authorization");
    await page.click("#signin");
    await page.waitForURL((u) => u.origin === env.as.issuer);
    await signIn(page);
    await page.waitForURL(/\/js\/test\/browser\/callback\.html/);
    await page.waitForFunction(() => document.title === "ready");
    await start(page, {}); // the app connects again on its page: oauth() finds the flow by its state
    await waitConnected(page);
    assert.ok((await toolNames(page)).includes("echo"));
    const here = new URL(page.url());
    assert.equal(here.searchParams.get("code"), null, "the code is out of the address bar");
    await page.evaluate(() => window.client.close());
    await context.close();
    assert.deepEqual(problems, []);
  });
  test("measure: from the first 401 to the first full sync, consent already given (a second authorization, no click at the server)", async () => {
    // Its own context: a first sign-in with login and consent, then five
    // authorizations that the authorization server grants at once.
    const context = await newContext();
    const first = await appPage(context);
    await start(first, { storage: "local" });
    await waitStatus(first, "needs-authorization");
    await signIn(await clickSignIn(first));
    await waitConnected(first);
    await first.evaluate(() => window.client.close());
    await first.close();
    const runs = [];
    for (let i = 0; i < 5; i++) {
      const page = await appPage(context);
      // Keep the registration, drop the tokens: the server refuses, the
      // authorization server knows the session and the grant.
      await page.evaluate(() => {
        for (const k of Object.keys(localStorage)) if (k.startsWith("mcplive-oauth:tokens:")) localStorage.removeItem(k);
      });
      const before = await env.as.stats();
      await start(page, { storage: "local" });
      await waitStatus(page, "needs-authorization");
      const popup = await clickSignIn(page);
      try {
        await waitConnected(page);
      } catch (err) {
        console.log("the popup:", popup.isClosed() ? "closed" : popup.url(), popup.isClosed() ? "" : (await popup.content()).slice(0, 1500), await page.evaluate(() => JSON.stringify({ s: window.auth.get(), e: window.authorizeError, c: window.connectError })));
        throw err;
      }
      const t = await page.evaluate(() => window.t);
      assert.ok(t.first401 !== null && t.synced > t.first401, JSON.stringify(t));
      const after = await env.as.stats();
      assert.deepEqual({ login: after.login - before.login, consent: after.consent - before.consent, code: after.token.authorization_code - before.token.authorization_code }, { login: 0, consent: 0, code: 1 });
      runs.push(t.synced - t.first401);
      await page.evaluate(() => window.client.close());
      await page.close();
    }
    await context.close();
    const sorted = [...runs].sort((a, b) => a - b);
    console.log(`measure: first 401 -> first full sync in Chromium, consent given, popup (Sign in clicked by playwright at needs-authorization): median ${sorted[2].toFixed(0)} ms, runs ${runs.map((r) => r.toFixed(0)).join(", ")} ms`);
  });

  test("DPoP in the popup flow: a key-bound token, a proof on every request (the server checks them), the key kept in IndexedDB and not extractable", async () => {
    const context = await newContext();
    try {
      const page = await appPage(context);
      await start(page, { dpop: true });
      await waitStatus(page, "needs-authorization");
      const popup = await clickSignIn(page);
      await signIn(popup);
      await waitConnected(page);
      assert.ok((await toolNames(page)).includes("echo"));
      assert.equal(await page.evaluate(async () => (await window.client.callTool("echo", { text: "bound" })).content[0].text), "bound");
      const key = await page.evaluate(
        () =>
          new Promise((resolve, reject) => {
            const req = indexedDB.open("mcplive-oauth-dpop", 1);
            req.onerror = () => reject(req.error);
            req.onsuccess = () => {
              const get = req.result.transaction("records").objectStore("records").getAll();
              get.onsuccess = () => resolve(get.result.map((kp) => ({ type: kp.privateKey.type, extractable: kp.privateKey.extractable, alg: kp.privateKey.algorithm.name })));
              get.onerror = () => reject(get.error);
            };
          }),
      );
      assert.deepEqual(key, [{ type: "private", extractable: false, alg: "ECDSA" }]);
      await page.evaluate(() => window.client.close());
    } finally {
      await context.close();
    }
  });
});
