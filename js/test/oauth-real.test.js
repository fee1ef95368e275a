// mcplive/oauth in Node against a real authorization server
// (authserver/server.mjs: oidc-provider) in front of the Go test server's
// /mcp as a protected resource (go-sdk server, tokens checked by
// introspection, audience and scope): the loopback flow of
// mcplive/oauth/node, whose browser step is played over fetch (login,
// consent), then a refresh after a short token lifetime with the list
// staying live, a step-up for an admin tool, and a sign-out that the
// authorization server sees as revocations.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { connect } from "../index.js";
import { memoryStorage } from "../src/oauth/index.js";
import { oauth, logger, scanSecrets } from "./secrets.js";
import { loopback } from "../src/oauth/node.js";
import { startProtected, consentWithFetch } from "./authserver.js";
import { waitFor, nextEvent } from "./helpers.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

/** freePort asks the OS for a port that was free a moment ago (the loopback redirect URI needs one up front). */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.once("error", reject);
  });

describe("mcplive/oauth in Node against oidc-provider", () => {
  let env;
  before(async () => {
    env = await startProtected({ accessTtl: 3 });
  });
  after(async () => {
    await env?.stop();
  });

  test("a request without a token: 401 with the protected resource metadata, which names the authorization server", async () => {
    const res = await fetch(env.server.mcp, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    assert.equal(res.status, 401);
    const challenge = res.headers.get("www-authenticate");
    assert.match(challenge, /^Bearer /);
    const url = challenge.match(/resource_metadata="([^"]+)"/)?.[1];
    assert.equal(url, `${env.server.http}/.well-known/oauth-protected-resource/mcp`);
    const prm = await (await fetch(url)).json();
    assert.equal(prm.resource, env.server.mcp);
    assert.deepEqual(prm.authorization_servers, [env.as.issuer]);
  });

  test("loopback flow, login and consent over fetch; refresh with the list live; step-up; sign-out revokes", async () => {
    const port = await freePort();
    const user = consentWithFetch();
    const auth = oauth({ redirectUri: `http://127.0.0.1:${port}/callback`, authorize: loopback({ open: user, timeoutMs: 20000 }), registration: { clientName: "mcplive Node test" } });
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false });
    try {
      assert.equal(auth.get().status, "authorized");
      assert.equal(auth.get().issuer, env.as.issuer);
      assert.ok(client.tools.get().items.some((t) => t.name === "echo"), "the protected catalog is listed");
      assert.deepEqual({ login: user.did.login, consent: user.did.consent }, { login: 1, consent: 1 });
      const callback = new URL(user.did.callback);
      assert.equal(callback.searchParams.get("iss"), env.as.issuer, "RFC 9207 iss in the authorization response");
      let stats = await env.as.stats();
      assert.equal(stats.registration, 1, "registered dynamically");
      assert.equal(stats.token.authorization_code, 1);

      // The access token lives 3 s. Once it has expired, a list change
      // must still arrive: the client's re-list refreshes the token first
      // (a refresh_token grant at the server) and goes through with the new one.
      const firstExpiry = auth.get().expiresAt;
      assert.ok(firstExpiry > Date.now() && firstExpiry < Date.now() + 5000, `expiresAt ${firstExpiry} is in the next 3 s`);
      await new Promise((r) => setTimeout(r, firstExpiry - Date.now() + 200)); // the token's end, not a guess
      const refreshesBefore = (await env.as.stats()).token.refresh_token;
      const added = nextEvent(client, "change", (ev) => ev.kind === "tools" && ev.added.some((t) => t.name === "after_refresh"), 10000);
      await env.server.control("add-tool", { name: "after_refresh" });
      await added;
      stats = await env.as.stats();
      assert.ok(stats.token.refresh_token > refreshesBefore, `refreshed at the server: ${JSON.stringify(stats)}`);
      assert.equal(stats.refreshErrors, 0);
      assert.ok(auth.get().expiresAt > firstExpiry, "a new token");
      assert.equal(stats.token.authorization_code, 1, "refreshed, not authorized again");

      // Step-up: admin_* tools need tools:admin; the 403 asks for it, the
      // client authorizes again with the union of the scopes (consent again,
      // no login: the session is there), and the call goes through.
      await env.server.control("add-tool", { name: "admin_reset" });
      await waitFor(client.tools, (v) => v.items.some((t) => t.name === "admin_reset"), 10000, "admin_reset listed");
      const r = await client.callTool("admin_reset", { text: "done" });
      assert.equal(r.content[0].text, "done");
      assert.deepEqual(auth.get().scopes.filter((s) => s.startsWith("tools:")).sort(), ["tools:admin", "tools:read"]);
      assert.deepEqual({ login: user.did.login, consent: user.did.consent }, { login: 1, consent: 2 });

      // Sign-out: the authorization server sees the revocations (refresh and access token).
      const before = (await env.as.stats()).revocation;
      await auth.signOut();
      // The client lists again and is refused: it waits for the user (the
      // loopback hook does not open a browser by itself after a sign-out).
      await waitFor(auth, (v) => v.status === "needs-authorization", 10000, "needs-authorization after the sign-out");
      assert.deepEqual({ login: user.did.login, consent: user.did.consent }, { login: 1, consent: 2 }, "no new authorization by itself");
      stats = await env.as.stats();
      assert.equal(stats.revocation - before, 2, JSON.stringify(stats));
    } finally {
      await client.close();
    }
  });

  test("DPoP: oauth({ dpop: true }) gets a key-bound token, every request carries a proof the server checks; the token alone, as a bearer, is refused", async () => {
    const port = await freePort();
    const user = consentWithFetch();
    const storage = memoryStorage();
    const auth = oauth({ redirectUri: `http://127.0.0.1:${port}/callback`, authorize: loopback({ open: user, timeoutMs: 20000, logger }), storage, dpop: true });
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false });
    try {
      assert.equal(auth.get().status, "authorized");
      assert.ok(client.tools.get().items.some((t) => t.name === "echo"), "listed with DPoP");
      assert.equal((await client.callTool("echo", { text: "bound" })).content[0].text, "bound");
      // The kept token, stolen and sent without the key's proof: refused.
      const rec = await storage.get(`tokens:${env.as.issuer}|${env.server.mcp}`);
      assert.equal(String(rec.token_type).toLowerCase(), "dpop", "the authorization server issued a DPoP-bound token");
      const stolen = await fetch(env.server.mcp, { method: "POST", headers: { authorization: `Bearer ${rec.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
      assert.equal(stolen.status, 401, "a key-bound token is not a bearer token");
      const replay = await fetch(env.server.mcp, { method: "POST", headers: { authorization: `DPoP ${rec.access_token}`, dpop: "e30.e30.AAAA", "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
      assert.equal(replay.status, 401, "nor with a forged proof");
      assert.match(replay.headers.get("www-authenticate"), /invalid_dpop_proof/);
    } finally {
      await client.close();
    }
  });

  test("Node without an authorize option: connect rejects at once with the advice (it used to end the process with code 13)", async () => {
    const auth = oauth({ redirectUri: "http://127.0.0.1:1/callback" });
    await assert.rejects(connect(env.server.mcp, { auth, logger, reconnect: false }), (err) => {
      assert.equal(err.code, "needs_user", err.message);
      assert.match(err.message, /loopback\(\)/);
      return true;
    });
  });

  test("signOut() before connect, on tokens kept from an earlier run: revoked at connect, and the next connect waits for authorize()", async () => {
    const port = await freePort();
    const user = consentWithFetch();
    const storage = memoryStorage();
    const options = { redirectUri: `http://127.0.0.1:${port}/callback`, authorize: loopback({ open: user, timeoutMs: 20000, logger }), storage };
    const first = await connect(env.server.mcp, { auth: oauth(options), logger, reconnect: false });
    await first.close();
    const revoked = (await env.as.stats()).revocation;
    // A later run: the app signs out before it connects.
    const auth = oauth(options);
    await auth.signOut();
    const pending = connect(env.server.mcp, { auth, logger, reconnect: false });
    await waitFor(auth, (v) => v.status === "needs-authorization", 10000, "needs-authorization: the kept tokens are gone");
    const stats = await env.as.stats();
    assert.equal(stats.revocation - revoked, 2, `the kept tokens are revoked: ${JSON.stringify(stats)}`);
    await auth.authorize();
    const client = await pending;
    try {
      assert.equal(auth.get().status, "authorized");
      assert.equal((await env.as.stats()).token.authorization_code, stats.token.authorization_code + 1, "a new authorization");
    } finally {
      await client.close();
    }
  });
});
