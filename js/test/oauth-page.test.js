// mcplive/oauth in headless Chromium, where its failures read differently
// than in Node: a CORS refusal (a real one: the page's origin is
// 127.0.0.1, the metadata is on localhost, which sends no CORS headers)
// names the headers the server must send; a popup the browser refuses is
// popup_blocked with what to do; and the page loads the subpath without a
// bundler (an import map for oauth4webapi). The flows against a real
// authorization server are in the browser tests of the oidc-provider setup.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startServer, NO_CHROMIUM, launchChromium } from "./helpers.js";

const skip = NO_CHROMIUM;

describe("mcplive/oauth in headless Chromium", { skip }, () => {
  let server, browser, page;
  const problems = [];
  before(async () => {
    server = await startServer(["-static", fileURLToPath(new URL("..", import.meta.url))]);
    browser = await launchChromium();
    page = await browser.newPage();
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(`${server.http}/js/test/browser/oauth.html`);
    await page.waitForFunction(() => document.title === "ready");
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("a CORS refusal at the metadata names the origin and the header the server must send", async () => {
    const other = server.http.replace("127.0.0.1", "localhost"); // another origin, same server, no CORS
    const err = await page.evaluate(async (mcp) => {
      const auth = window.mcplive.oauth({ redirectUri: `${location.origin}/callback`, authorize: async () => "unused" });
      const b = auth[Symbol.for("mcplive.oauth.bind")](mcp);
      try {
        await b.token({ error: { status: 401, resourceMetadata: `${new URL(mcp).origin}/.well-known/oauth-protected-resource/mcp` } });
        return null;
      } catch (e) {
        return { name: e.name, code: e.code, step: e.step, message: e.message, origin: location.origin };
      }
    }, `${other}/mcp`);
    assert.ok(err, "the flow failed");
    assert.equal(err.name, "OAuthError");
    assert.equal(err.code, "unreachable");
    assert.equal(err.step, "protected resource metadata");
    assert.match(err.message, /CORS refusal/);
    assert.ok(err.message.includes(`answer this origin (${err.origin}) with Access-Control-Allow-Origin`), err.message);
  });

  test("a popup the browser refuses: popup_blocked, saying to call authorize() in the click or use the redirect", async () => {
    const out = await page.evaluate(async () => {
      const realOpen = window.open;
      window.open = () => null; // what a blocked window.open returns
      try {
        const auth = window.mcplive.oauth({ redirectUri: `${location.origin}/callback` });
        auth[Symbol.for("mcplive.oauth.bind")](`${location.origin}/mcp`);
        await auth.authorize();
        return null;
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message };
      } finally {
        window.open = realOpen;
      }
    });
    assert.equal(out?.code, "popup_blocked", JSON.stringify(out));
    assert.match(out.message, /in a click handler.*mode: "redirect"/);
  });

  test("the popup opens in the click at the authorization URL; closing it before the end is popup_closed", async () => {
    const popupP = page.waitForEvent("popup");
    const pending = page.evaluate(async () => {
      const o = location.origin;
      // Scripted metadata on this origin; the authorization endpoint is a page that never redirects back.
      const docs = {
        [`${o}/.well-known/oauth-protected-resource/mcp`]: { resource: `${o}/mcp`, authorization_servers: [o] },
        [`${o}/.well-known/oauth-authorization-server`]: { issuer: o, authorization_endpoint: `${o}/js/test/browser/page.html`, token_endpoint: `${o}/token`, code_challenge_methods_supported: ["S256"] },
      };
      const fetch = async (url) => new Response(JSON.stringify(docs[url] ?? {}), { status: docs[url] ? 200 : 404, headers: { "content-type": "application/json" } });
      const auth = window.mcplive.oauth({ redirectUri: `${o}/callback`, fetch, clients: { [o]: { clientId: "c" } } });
      auth[Symbol.for("mcplive.oauth.bind")](`${o}/mcp`);
      try {
        await auth.authorize();
        return null;
      } catch (e) {
        return { code: e.code, status: auth.get().status };
      }
    });
    const popup = await popupP;
    await popup.waitForURL(/\/js\/test\/browser\/page\.html\?/);
    const u = new URL(popup.url());
    assert.equal(u.searchParams.get("code_challenge_method"), "S256");
    assert.equal(u.searchParams.get("client_id"), "c");
    await popup.close();
    assert.deepEqual(await pending, { code: "popup_closed", status: "none" });
    assert.deepEqual(problems, []);
  });

  test("a redirect URI on another origin than the page (localhost vs 127.0.0.1): the callback cannot reach the page, and popup_closed says so", async () => {
    const popupP = page.waitForEvent("popup");
    const pending = page.evaluate(async () => {
      const o = location.origin;
      const other = o.replace("127.0.0.1", "localhost");
      // The authorization endpoint answers at once: the callback page (on the other origin), which calls handleCallback() and closes.
      const docs = {
        [`${o}/.well-known/oauth-protected-resource/mcp`]: { resource: `${o}/mcp`, authorization_servers: [o] },
        [`${o}/.well-known/oauth-authorization-server`]: { issuer: o, authorization_endpoint: `${other}/js/test/browser/callback.html`, token_endpoint: `${o}/token`, code_challenge_methods_supported: ["S256"] },
      };
      const fetch = async (url) => new Response(JSON.stringify(docs[url] ?? {}), { status: docs[url] ? 200 : 404, headers: { "content-type": "application/json" } });
      const auth = window.mcplive.oauth({ redirectUri: `${other}/js/test/browser/callback.html`, fetch, clients: { [o]: { clientId: "c" } } });
      auth[Symbol.for("mcplive.oauth.bind")](`${o}/mcp`);
      try {
        await auth.authorize();
        return null;
      } catch (e) {
        return { code: e.code, message: e.message };
      }
    });
    const popup = await popupP;
    await popup.waitForEvent("close", { timeout: 15000 });
    const out = await pending;
    assert.equal(out?.code, "popup_closed", JSON.stringify(out));
    assert.match(out.message, /is on another origin \(http:\/\/localhost:\d+\) than this page \(http:\/\/127\.0\.0\.1:\d+\)/);
    assert.deepEqual(problems, []);
  });

  test("redirect mode: a page that comes back with the code of this server's flow under another redirectUri says why, instead of starting a new flow", async () => {
    const setup = () => {
      const o = location.origin;
      const docs = {
        [`${o}/.well-known/oauth-protected-resource/mcp`]: { resource: `${o}/mcp`, authorization_servers: [o] },
        // The authorization endpoint "approves" by landing back on this test page, the flow's state in the URL.
        [`${o}/.well-known/oauth-authorization-server`]: { issuer: o, authorization_endpoint: `${o}/js/test/browser/oauth.html`, token_endpoint: `${o}/token`, code_challenge_methods_supported: ["S256"] },
      };
      window.scripted = async (url) => new Response(JSON.stringify(docs[url] ?? {}), { status: docs[url] ? 200 : 404, headers: { "content-type": "application/json" } });
    };
    await page.evaluate(setup);
    await Promise.all([
      page.waitForURL(/oauth\.html\?.*state=/),
      page.evaluate(() => {
        const o = location.origin;
        const auth = window.mcplive.oauth({ redirectUri: `${o}/js/test/browser/callback.html`, fetch: window.scripted, clients: { [o]: { clientId: "c" } }, mode: "redirect" });
        auth[Symbol.for("mcplive.oauth.bind")](`${o}/mcp`);
        auth.authorize().catch(() => {});
      }),
    ]);
    await page.waitForFunction(() => document.title === "ready");
    await page.evaluate(setup);
    const out = await page.evaluate(async () => {
      const o = location.origin;
      // The page that came back builds its oauth() with another redirectUri.
      const auth = window.mcplive.oauth({ redirectUri: `${o}/js/test/browser/other-callback.html`, fetch: window.scripted, clients: { [o]: { clientId: "c" } } });
      auth[Symbol.for("mcplive.oauth.bind")](`${o}/mcp`);
      const until = Date.now() + 10000;
      while (auth.get().status !== "error" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return { status: auth.get().status, code: auth.get().error?.code, message: auth.get().error?.message };
    });
    assert.equal(out.status, "error", JSON.stringify(out));
    assert.equal(out.code, "state_mismatch");
    assert.match(out.message, /came back with the code of a flow started with the redirect URI http:\/\/127\.0\.0\.1:\d+\/js\/test\/browser\/callback\.html, but this oauth\(\) has the redirectUri .*other-callback\.html/);
  });
});
