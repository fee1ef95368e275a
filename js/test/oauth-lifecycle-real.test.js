// mcplive/oauth's lifecycle (issue 45) in Node against the real
// authorization server (authserver/server.mjs: oidc-provider) in front of
// the Go test server's /mcp as a protected resource (go-sdk server, tokens
// checked by introspection, audience and scope); the scripted twins of
// these tests are in oauth-lifecycle.test.js. The user's browser step is
// loopback() of mcplive/oauth/node, played over fetch (consentWithFetch).
//
// - After signOut(), the next authorization asks only for what the server
//   challenges anyone without a token (its 401), not the step-up scope the
//   user before had (403 insufficient_scope for an admin tool).
// - A registration the authorization server forgot (deleted from its store,
//   /_test/forget-client): invalid_client at its token endpoint, at the
//   refresh and at the code exchange; mcplive registers anew, once, and
//   goes on. signOut({ forgetClient: true }) drops the registration: the
//   next authorization registers anew. (At the authorize step oidc-provider
//   shows its own error page for an unknown client instead of redirecting
//   with error=invalid_client, so that case ends at the loopback's or the
//   popup's wait: docs/oauth.md.)
// - DPoP: a DPoP-Nonce on a successful answer of the resource server goes
//   in the next proof (RFC 9449 section 9). The Go test server issues no
//   nonces; the connect's fetch option adds one to its answers.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { connect } from "../index.js";
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

/** toolScopes is the sorted tools:* scopes of a scope string or list. */
const toolScopes = (s) => (Array.isArray(s) ? s : (s ?? "").split(" ")).filter((x) => x.startsWith("tools:")).sort();

/**
 * user is the browser step of loopback(): it records each authorization
 * URL it is sent to, and plays the user at the authorization server's
 * pages (user.as, a consentWithFetch driver: swap it for another user);
 * user.onOpen, if set, is called at each.
 */
function user(options) {
  const u = {
    urls: [],
    as: consentWithFetch(options),
    onOpen: null,
    open: (url) => {
      u.urls.push(new URL(url));
      u.onOpen?.();
      return u.as(url);
    },
  };
  return u;
}

describe("mcplive/oauth's lifecycle in Node against oidc-provider", () => {
  let env;
  before(async () => {
    env = await startProtected({ accessTtl: 3 });
  });
  after(async () => {
    await env?.stop();
  });

  const options = async (u, extra = {}) => ({ redirectUri: `http://127.0.0.1:${await freePort()}/callback`, authorize: loopback({ open: u.open, timeoutMs: 20000, logger }), ...extra });

  test("after signOut(), the next authorization asks only for what the server challenges (its 401), not the step-up scope of the user before", async () => {
    const u = user();
    const auth = oauth(await options(u));
    // The client's requests to the MCP server can be held (gate), so that a
    // sign-in right after the sign-out comes before the client's re-list is
    // refused (the refusal would bring the server's challenge anew).
    let gate = Promise.resolve();
    const fetch = async (input, init) => {
      await gate;
      return globalThis.fetch(input, init);
    };
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false, fetch });
    try {
      assert.deepEqual(toolScopes(u.urls[0].searchParams.get("scope")), ["tools:read"], "the 401's challenge");
      // Step-up: the admin tool answers 403 insufficient_scope; the client
      // authorizes again (by itself: the authorize option) with the union.
      await env.server.control("add-tool", { name: "admin_wipe" });
      await waitFor(client.tools, (v) => v.items.some((t) => t.name === "admin_wipe"), 10000, "admin_wipe listed");
      assert.equal((await client.callTool("admin_wipe", { text: "wiped" })).content[0].text, "wiped");
      assert.equal(u.urls.length, 2);
      assert.deepEqual(toolScopes(u.urls[1].searchParams.get("scope")), ["tools:admin", "tools:read"], "the step-up asked for the union");
      assert.deepEqual(toolScopes(auth.get().scopes), ["tools:admin", "tools:read"]);

      // Sign out, and another user signs in at once (before the client's
      // re-list is refused): asked for tools:read only, not the step-up's
      // scope, nor the metadata's scopes_supported (tools:admin too).
      let open;
      gate = new Promise((resolve) => (open = resolve));
      await auth.signOut();
      u.as = consentWithFetch({ username: "bob", password: "builder" });
      const signedIn = auth.authorize();
      await new Promise((resolve) => (u.onOpen = resolve)); // its authorization URL is made
      open();
      await signedIn;
      assert.equal(u.urls.length, 3);
      assert.deepEqual(toolScopes(u.urls[2].searchParams.get("scope")), ["tools:read"], `the next user is not asked for the admin scope: ${u.urls[2].searchParams.get("scope")}`);
      assert.deepEqual({ login: u.as.did.login, consent: u.as.did.consent }, { login: 1, consent: 1 }, "bob signed in and consented");
      assert.deepEqual(toolScopes(auth.get().scopes), ["tools:read"], "bob's token has no admin scope");
      await waitFor(auth, (v) => v.status === "authorized", 10000, "authorized as bob");

      // And once more, waiting for the client's refusal after the sign-out
      // (the URL it prepares for the user's click).
      await auth.signOut();
      await waitFor(auth, (v) => v.status === "needs-authorization", 10000, "needs-authorization after the sign-out");
      assert.deepEqual(toolScopes(new URL(auth.get().authorizationUrl).searchParams.get("scope")), ["tools:read"]);
      await auth.authorize();
      assert.deepEqual(toolScopes(u.urls.at(-1).searchParams.get("scope")), ["tools:read"]);
    } finally {
      await client.close();
      await env.server.control("remove-tool", { name: "admin_wipe" });
    }
  });

  test("the authorization server forgot the registration: the refresh gets invalid_client; mcplive registers anew, once, authorizes, and the list stays live", async () => {
    const u = user();
    const auth = oauth(await options(u));
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false });
    try {
      const first = u.urls[0].searchParams.get("client_id");
      const before = await env.as.stats();
      await env.as.forgetClient(first);
      // The token lives 3 s: once it has expired, a list change makes the
      // client refresh, at a token endpoint that no longer knows the client.
      const expiresAt = auth.get().expiresAt;
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() + 200))); // the token's end, not a guess
      const added = nextEvent(client, "change", (ev) => ev.kind === "tools" && ev.added.some((t) => t.name === "after_forget"), 15000);
      await env.server.control("add-tool", { name: "after_forget" });
      await added;
      const after = await env.as.stats();
      assert.ok(after.refreshErrors > before.refreshErrors, `the refresh was refused: ${JSON.stringify({ before, after })}`);
      assert.equal(after.registration - before.registration, 1, "registered anew, once");
      assert.equal(after.token.authorization_code - before.token.authorization_code, 1, "one new authorization");
      assert.equal(u.urls.length, 2);
      const second = u.urls[1].searchParams.get("client_id");
      assert.notEqual(second, first, "the new registration's client id");
      assert.equal(auth.get().status, "authorized");
    } finally {
      await client.close();
      await env.server.control("remove-tool", { name: "after_forget" });
    }
  });

  test("the authorization server forgot the registration between the authorize step and the code exchange: invalid_client; registered anew once, the flow runs again", async () => {
    let forgotten = null;
    const u = user({
      beforeCallback: async (_callback, authorizationUrl) => {
        if (forgotten) return;
        forgotten = new URL(authorizationUrl).searchParams.get("client_id");
        await env.as.forgetClient(forgotten);
      },
    });
    const before = await env.as.stats();
    const auth = oauth(await options(u));
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false });
    try {
      assert.equal(auth.get().status, "authorized");
      assert.ok(client.tools.get().items.some((t) => t.name === "echo"));
      const after = await env.as.stats();
      assert.equal(after.registration - before.registration, 2, "the first registration, and one anew");
      assert.equal(after.token.authorization_code - before.token.authorization_code, 2, "the refused code exchange, and the one of the new flow");
      assert.deepEqual(
        u.urls.map((x) => x.searchParams.get("client_id") === forgotten),
        [true, false],
        "the second flow is the new registration's",
      );
    } finally {
      await client.close();
    }
  });

  test("signOut({ forgetClient: true }) drops the registration: the next authorization registers anew (a plain signOut() keeps it)", async () => {
    const u = user();
    const auth = oauth(await options(u));
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false });
    try {
      let stats = await env.as.stats();
      await auth.signOut();
      await auth.authorize();
      assert.equal((await env.as.stats()).registration, stats.registration, "a plain sign-out keeps the registration");
      assert.equal(u.urls[1].searchParams.get("client_id"), u.urls[0].searchParams.get("client_id"));

      stats = await env.as.stats();
      await auth.signOut({ forgetClient: true });
      await auth.authorize();
      assert.equal((await env.as.stats()).registration - stats.registration, 1, "registered anew");
      assert.notEqual(u.urls[2].searchParams.get("client_id"), u.urls[1].searchParams.get("client_id"));
      await waitFor(auth, (v) => v.status === "authorized", 10000, "authorized with the new registration");
      assert.equal((await client.callTool("echo", { text: "again" })).content[0].text, "again");
    } finally {
      await client.close();
    }
  });

  test("DPoP: a DPoP-Nonce on a successful answer of the resource server goes in the next request's proof (RFC 9449 section 9)", async () => {
    const u = user();
    let n = 0;
    const sent = []; // per request to /mcp: the nonce its proof carried, and the one its answer gave
    const decode = (jwt) => JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString());
    // The app's fetch: the real server's answers, each with a new nonce.
    const fetchWithNonces = async (input, init) => {
      const res = await globalThis.fetch(input, init);
      const proof = new Headers(init?.headers).get("dpop");
      if (!proof || String(input) !== env.server.mcp) return res;
      const nonce = res.ok ? `rs-nonce-${++n}` : null;
      sent.push({ method: init?.method ?? "GET", status: res.status, carried: decode(proof).nonce ?? null, gave: nonce });
      if (!nonce) return res;
      const headers = new Headers(res.headers);
      headers.set("dpop-nonce", nonce);
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    };
    const auth = oauth(await options(u, { dpop: true }));
    const client = await connect(env.server.mcp, { auth, logger, reconnect: false, fetch: fetchWithNonces });
    try {
      assert.equal((await client.callTool("echo", { text: "one" })).content[0].text, "one");
      const before = sent.length;
      assert.equal((await client.callTool("echo", { text: "two" })).content[0].text, "two");
      const call = sent.slice(before).find((r) => r.method === "POST");
      assert.ok(call, JSON.stringify(sent));
      // The call's proof carries a nonce of an answer before it (the last
      // one given before the request, or a later one of a concurrent stream).
      const given = sent.slice(0, before).map((r) => r.gave).filter(Boolean);
      assert.ok(given.length > 0, "the server gave nonces on its successful answers");
      assert.ok(call.carried !== null && given.includes(call.carried), `the proof carries the server's nonce: ${JSON.stringify(sent)}`);
    } finally {
      await client.close();
    }
  });
});
