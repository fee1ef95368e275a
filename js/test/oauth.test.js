// mcplive/oauth against scripted servers: a fetch that plays the protected
// resource's metadata, the authorization server and its token endpoint, and
// records every request. Each way the flow can fail has its test here; the
// flow's happy paths run against real servers too (the conformance suite's
// authorization scenarios, conformance/; oidc-provider in the browser tests).
import { test } from "node:test";
import assert from "node:assert/strict";
import { memoryStorage } from "../src/oauth/index.js";
import { oauth, scanSecrets } from "./secrets.js";
import { connect } from "../index.js";

import { BIND, SERVER, ISSUER, REDIRECT, json, world, setup, refusal, rejectsWith } from "./oauth-world.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

test("the whole flow: metadata, registration, PKCE S256, state, resource, iss; the token then goes on every request", async () => {
  const { b, auth, requests } = setup();
  assert.equal(await b.token({}), "", "no token before the server asks");
  assert.equal(await b.token({ error: refusal({ scope: "tools:read" }) }), "at-1");
  assert.equal(await b.token({}), "at-1");
  const a = world.lastAuthorization;
  assert.equal(a.searchParams.get("code_challenge_method"), "S256");
  assert.equal(a.searchParams.get("resource"), SERVER);
  assert.equal(a.searchParams.get("scope"), "tools:read");
  assert.equal(a.searchParams.get("client_id"), "client-1");
  const tokenReq = requests.find((r) => r.url === `${ISSUER}/token`);
  const body = new URLSearchParams(tokenReq.body);
  assert.equal(body.get("resource"), SERVER, "RFC 8707 resource on the token request");
  assert.equal(tokenReq.redirect, "manual", "no redirect followed on a token request");
  const reg = JSON.parse(requests.find((r) => r.url === `${ISSUER}/register`).body);
  assert.equal(reg.application_type, "web");
  assert.deepEqual(reg.redirect_uris, [REDIRECT]);
  const s = auth.get();
  assert.equal(s.status, "authorized");
  assert.equal(s.issuer, ISSUER);
  assert.deepEqual(s.scopes, ["tools:read"]);
  assert.ok(s.expiresAt > Date.now());
});

test("every request of the flow goes without cookies and without MCP headers; secrets only to the bound issuer's token endpoint", async () => {
  const { b, requests } = setup({}, { clients: { [ISSUER]: { clientId: "pre", clientSecret: "s3cret" } } });
  await b.token({ error: refusal() });
  for (const r of requests) {
    assert.equal(r.credentials, "omit", `${r.url} without credentials`);
    for (const h of Object.keys(r.headers)) {
      assert.doesNotMatch(h, /^mcp-/i, `${r.url}: an MCP header`);
      if (/^authorization$/i.test(h)) assert.equal(r.url, `${ISSUER}/token`, `${r.url}: an Authorization header`);
    }
    const secretBearing = /code_verifier|refresh_token|s3cret|code=/.test(r.body) || JSON.stringify(r.headers).includes(Buffer.from("pre:s3cret").toString("base64"));
    if (secretBearing) assert.equal(r.url, `${ISSUER}/token`, `a secret went to ${r.url}`);
  }
  assert.ok(!requests.some((r) => r.url === `${ISSUER}/register`), "a pre-registered client is not registered again");
  const basic = requests.find((r) => r.url === `${ISSUER}/token`).headers.authorization;
  assert.equal(basic, `Basic ${Buffer.from("pre:s3cret").toString("base64")}`);
  assert.ok(!requests.some((r) => JSON.stringify(r).includes("at-1")), "the access token is never sent to the authorization server");
});

test("an authorization server without S256 is refused", async () => {
  const { b } = setup({ as: { code_challenge_methods_supported: ["plain"] } });
  await rejectsWith(b.token({ error: refusal() }), "no_s256", /S256/);
  const { b: b2 } = setup({ as: { code_challenge_methods_supported: undefined } });
  await rejectsWith(b2.token({ error: refusal() }), "no_s256");
});

test("no way to get a client id: a clear error saying what the app must provide", async () => {
  const { b } = setup({ as: { registration_endpoint: undefined } });
  await rejectsWith(b.token({ error: refusal() }), "no_client_id", /clients: \{ "https:\/\/as\.example\.com": \{ clientId \} \}/);
});

test("a Client ID Metadata Document is the client id where the server accepts those", async () => {
  const { b, requests } = setup({ as: { client_id_metadata_document_supported: true } }, { clientMetadataUrl: "https://app.example.com/client.json" });
  await b.token({ error: refusal() });
  assert.equal(world.lastAuthorization.searchParams.get("client_id"), "https://app.example.com/client.json");
  assert.ok(!requests.some((r) => r.url.endsWith("/register")));
});

test("issuer mismatch in the metadata, and resource mismatch in the protected resource metadata, are refused", async () => {
  const { b } = setup({ as: { issuer: "https://as.example.com/" } });
  await rejectsWith(b.token({ error: refusal() }), "issuer_mismatch", /as\.example\.com\/"/);
  const { b: b2 } = setup({ prm: { resource: "https://other.example.com/mcp" } });
  await rejectsWith(b2.token({ error: refusal() }), "resource_mismatch", /other\.example\.com/);
});

test("the callback: a wrong state, a wrong or missing iss, a replayed callback", async () => {
  const wrongState = setup({ authorize: async (u) => `${REDIRECT}?code=x&state=forged&iss=${encodeURIComponent(ISSUER)}` });
  await rejectsWith(wrongState.b.token({ error: refusal() }), "state_mismatch", /forged or foreign/);
  const wrongIss = setup({ iss: "https://evil.example.com" });
  await rejectsWith(wrongIss.b.token({ error: refusal() }), "iss_mismatch", /RFC 9207/);
  assert.ok(!wrongIss.requests.some((r) => r.url.endsWith("/token")), "the code is not sent after an iss mismatch");
  const noIss = setup({ iss: null });
  await rejectsWith(noIss.b.token({ error: refusal() }), "iss_mismatch");
  // Replay: the second flow is handed the first flow's callback.
  let first = null;
  const w = world();
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: async (u) => (first ??= await w.authorize(u)) });
  const b = auth[BIND](SERVER);
  assert.equal(await b.token({ error: refusal() }), "at-1");
  await rejectsWith(b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: "more" }) }), "replayed_callback");
});

test("the authorization server's error in the callback is reported as text", async () => {
  const { b } = setup({ authorize: async (u) => `${REDIRECT}?error=access_denied&error_description=${encodeURIComponent("<b>no</b>")}&state=${new URL(u).searchParams.get("state")}&iss=${encodeURIComponent(ISSUER)}` });
  await assert.rejects(b.token({ error: refusal() }), (err) => err.code === "authorization_denied" && err.error === "access_denied" && err.errorDescription === "<b>no</b>");
});

test("a token endpoint error: its error code, and error_description as text", async () => {
  const { b } = setup({ token: () => json({ error: "invalid_client", error_description: "client <unknown>" }, { status: 401 }) });
  await assert.rejects(b.token({ error: refusal() }), (err) => {
    assert.equal(err.code, "token_error");
    assert.equal(err.error, "invalid_client");
    assert.equal(err.errorDescription, "client <unknown>");
    assert.match(err.message, /invalid_client \(client <unknown>\)/);
    return true;
  });
});

test("answers that are not JSON, over 1 MiB, or redirects where none may be followed", async () => {
  const html = setup({ route: (url) => (url.includes("oauth-authorization-server") ? new Response("<html><title>Login</title>", { headers: { "content-type": "text/html" } }) : null) });
  await rejectsWith(html.b.token({ error: refusal() }), "bad_response", /did not answer JSON/);
  const big = setup({ route: (url) => (url.includes("oauth-authorization-server") ? new Response(new Uint8Array((1 << 20) + 10).fill(32)) : null) });
  await rejectsWith(big.b.token({ error: refusal() }), "too_large", /1048576 bytes/);
  const declared = setup({ route: (url) => (url.includes("oauth-protected-resource") ? new Response("{}", { headers: { "content-length": String(5 << 20) } }) : null) });
  await rejectsWith(declared.b.token({ error: refusal() }), "too_large");
  const redirected = setup({ route: (url) => (url.endsWith("/token") ? new Response(null, { status: 307, headers: { location: "https://evil.example.com/token" } }) : null) });
  await rejectsWith(redirected.b.token({ error: refusal() }), "bad_response", /redirect to https:\/\/evil\.example\.com\/token/);
  assert.ok(!redirected.requests.some((r) => r.url.includes("evil")), "the redirect is not followed");
});

test("a server that never answers: a timeout naming it", async () => {
  const hang = (url, init) => (url.includes("oauth-authorization-server") ? new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason))) : null);
  const { b } = setup({ route: hang }, { timeoutMs: 100 });
  await rejectsWith(b.token({ error: refusal() }), "timeout", /https:\/\/as\.example\.com\/\.well-known\/oauth-authorization-server did not answer within 100 ms/);
});

test("an unreachable endpoint (in Node: the cause, no browser CORS advice)", async () => {
  const down = (url) => {
    if (url.endsWith("/token")) throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }) });
    return null;
  };
  const { b } = setup({ route: down });
  await assert.rejects(b.token({ error: refusal() }), (err) => {
    assert.equal(err.code, "unreachable");
    assert.match(err.message, /ECONNREFUSED/);
    assert.doesNotMatch(err.message, /CORS/);
    assert.equal(err.cause.message, "fetch failed");
    return true;
  });
});

test("insecure endpoints are refused: plain http off loopback, javascript:, data:", async () => {
  for (const bad of ["http://as.example.com/token", "javascript:alert(1)", "data:text/html,x"]) {
    const { b, requests } = setup({ as: { token_endpoint: bad } });
    await rejectsWith(b.token({ error: refusal() }), "insecure_url");
    assert.ok(!requests.some((r) => r.url === bad));
  }
  const { b } = setup({ prm: { authorization_servers: ["http://as.example.com"] } });
  await rejectsWith(b.token({ error: refusal() }), "insecure_url");
  assert.throws(() => oauth({ redirectUri: "javascript:alert(1)" }), TypeError);
  assert.throws(() => oauth({ redirectUri: "http://app.example.com/cb" }), /https/);
  assert.doesNotThrow(() => oauth({ redirectUri: "http://127.0.0.1:8976/callback" }));
});

test("refresh: one at a time, with the resource; a refused refresh token forgets the tokens", async () => {
  const { b, requests, auth } = setup({ expiresIn: 1 });
  await b.token({ error: refusal() });
  await new Promise((r) => setTimeout(r, 1100)); // let the 1 s token expire
  const [t1, t2, t3] = await Promise.all([b.token({}), b.token({}), b.token({})]);
  assert.deepEqual([t1, t2, t3], ["at-r1", "at-r1", "at-r1"]);
  const refreshes = requests.filter((r) => r.url.endsWith("/token") && r.body.includes("grant_type=refresh_token"));
  assert.equal(refreshes.length, 1, "one refresh for three requests");
  assert.equal(new URLSearchParams(refreshes[0].body).get("resource"), SERVER);
  assert.equal(auth.get().status, "authorized");
  // A 401 on the refreshed token: no second refresh, a new authorization.
  const before = world.lastAuthorization;
  assert.equal(await b.token({ error: refusal() }), "at-1");
  assert.notEqual(world.lastAuthorization, before, "authorized anew");
  assert.equal(requests.filter((r) => r.body.includes("grant_type=refresh_token")).length, 1);
  // A refused refresh token: the tokens are forgotten, and the next refusal authorizes anew.
  const s2 = setup({ token: (body) => (body.get("grant_type") === "refresh_token" ? json({ error: "invalid_grant" }, { status: 400 }) : null) });
  await s2.b.token({ error: refusal() });
  const second = world.lastAuthorization;
  s2.requests.length = 0;
  await assert.doesNotReject(s2.b.token({ error: refusal({ error: "invalid_token" }) }));
  assert.ok(s2.requests.some((r) => r.body.includes("grant_type=refresh_token")), "the refresh was tried first");
  assert.notEqual(world.lastAuthorization, second, "then a new authorization");
});

test("step-up: 403 insufficient_scope authorizes again with the union of the scopes, at most 3 times", async () => {
  const { b, auth } = setup();
  await b.token({ error: refusal({ scope: "tools:read" }) });
  await b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: "tools:write" }) });
  assert.deepEqual(world.lastAuthorization.searchParams.get("scope").split(" ").sort(), ["tools:read", "tools:write"]);
  assert.deepEqual([...auth.get().scopes].sort(), ["tools:read", "tools:write"]);
  await b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: "tools:write" }) });
  await b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: "tools:write" }) });
  await rejectsWith(b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: "tools:write" }) }), "insufficient_scope", /after 3 authorizations/);
});

test("the resource names another authorization server: discover and register there, never send the old client id or tokens", async () => {
  const OTHER = "https://as2.example.com";
  let migrated = false;
  const route = (url) => {
    if (!migrated) return null;
    if (url.includes("oauth-protected-resource")) return json({ resource: SERVER, authorization_servers: [OTHER] });
    if (url === `${OTHER}/.well-known/oauth-authorization-server`) return json({ issuer: OTHER, authorization_endpoint: `${OTHER}/authorize`, token_endpoint: `${OTHER}/token`, registration_endpoint: `${OTHER}/register`, code_challenge_methods_supported: ["S256"] });
    if (url === `${OTHER}/register`) return json({ client_id: "client-2" }, { status: 201 });
    if (url === `${OTHER}/token`) return json({ access_token: "at-other", token_type: "Bearer" });
    return null;
  };
  const { b, requests, auth } = setup({ route, iss: null, as: { authorization_response_iss_parameter_supported: false } });
  await b.token({ error: refusal() });
  migrated = true;
  const from = requests.length;
  assert.equal(await b.token({ error: refusal({ error: "invalid_token" }) }), "at-other", "no refresh at the old server: a new authorization at the new one");
  const later = requests.slice(from);
  for (const r of later.filter((r) => r.url.startsWith(OTHER))) {
    assert.doesNotMatch(JSON.stringify(r), /client-1|at-1|rt-1/, `${r.url} got the old server's credentials`);
  }
  assert.equal(world.lastAuthorization.searchParams.get("client_id"), "client-2");
  assert.equal(auth.get().issuer, OTHER);
});

test("a storage that throws is an OAuthError naming the step, and loses nothing else", async () => {
  const broken = { get: async () => undefined, set: async () => { throw new Error("QuotaExceededError"); }, delete: async () => {} };
  const { b, auth } = setup({}, { storage: broken });
  await rejectsWith(b.token({ error: refusal() }), "storage", /QuotaExceededError/);
  assert.equal(auth.get().status, "error");
});

test("records are kept under issuer and resource; a new oauth() on the same storage starts authorized", async () => {
  const storage = memoryStorage();
  const w = world();
  const a1 = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, storage });
  await a1[BIND](SERVER).token({ error: refusal() });
  const a2 = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, storage });
  assert.equal(await a2[BIND](SERVER).token({}), "at-1");
  assert.equal(a2.get().status, "authorized");
  assert.ok(await storage.get(`tokens:${ISSUER}|${SERVER}`));
});

test("sign-out forgets the tokens and revokes them", async () => {
  const { b, auth, requests } = setup();
  await b.token({ error: refusal() });
  await auth.signOut();
  assert.equal(auth.get().status, "none");
  assert.equal(await b.token({}), "");
  const revoked = requests.filter((r) => r.url.endsWith("/revoke")).map((r) => new URLSearchParams(r.body).get("token"));
  assert.deepEqual(revoked, ["rt-1", "at-1"]);
});

test("after a sign-out, the flow waits for the user: needs-authorization with the URL (a browser without the authorize option does the same)", async () => {
  const w = world();
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize });
  const b = auth[BIND](SERVER);
  await auth.signOut();
  assert.equal(await b.token({ error: refusal() }), "");
  const s = auth.get();
  assert.equal(s.status, "needs-authorization");
  assert.match(s.authorizationUrl, /^https:\/\/as\.example\.com\/authorize\?/);
  // A second refusal meanwhile keeps the same URL (no new discovery, no new state).
  const n = w.requests.length;
  assert.equal(await b.token({ error: refusal() }), "");
  assert.equal(auth.get().authorizationUrl, s.authorizationUrl);
  assert.equal(w.requests.length, n);
  // In Node, authorize() without the authorize option says what to do.
  const bare = oauth({ redirectUri: REDIRECT, fetch: w.fetch });
  bare[BIND](SERVER);
  await rejectsWith(bare.authorize(), "needs_user", /loopback\(\)/);
});

test("connect: auth on a ws:// URL, or with token, is a TypeError; an oauth() object serves one server", async () => {
  const auth = oauth({ redirectUri: REDIRECT });
  await assert.rejects(connect("ws://127.0.0.1:1/mcp", { auth }), (err) => err instanceof TypeError && /Authorization header/.test(err.message));
  await assert.rejects(connect("http://127.0.0.1:1/mcp", { auth, token: () => "t" }), TypeError);
  await assert.rejects(connect("http://127.0.0.1:1/mcp", { auth: { status: "x" } }), /oauth\(\)/);
  auth[BIND]("https://a.example.com/mcp");
  assert.throws(() => auth[BIND]("https://b.example.com/mcp"), /one per server/);
  assert.throws(() => oauth({ redirectUri: REDIRECT, bogus: 1 }), /unknown option "bogus"/);
});

test("MCP 2025-03-26 servers without protected resource metadata: the server's origin is the authorization server (its metadata, else /authorize, /token, /register)", async () => {
  const ORIGIN = "https://mcp.example.com";
  const withMeta = world({
    iss: null,
    route: (url) => {
      if (url.includes("oauth-protected-resource")) return new Response("not found", { status: 404 });
      if (url === `${ORIGIN}/.well-known/oauth-authorization-server`) return json({ issuer: ORIGIN, authorization_endpoint: `${ORIGIN}/oauth/authorize`, token_endpoint: `${ORIGIN}/oauth/token`, registration_endpoint: `${ORIGIN}/oauth/register`, code_challenge_methods_supported: ["S256"] });
      if (url === `${ORIGIN}/oauth/register`) return json({ client_id: "legacy" }, { status: 201 });
      if (url === `${ORIGIN}/oauth/token`) return json({ access_token: "at-legacy", token_type: "Bearer" });
      return null;
    },
  });
  const a = oauth({ redirectUri: REDIRECT, fetch: withMeta.fetch, authorize: withMeta.authorize });
  assert.equal(await a[BIND](SERVER).token({ error: { status: 401 } }), "at-legacy");
  assert.equal(a.get().issuer, ORIGIN);
  const bare = world({
    iss: null,
    route: (url) => {
      if (url.includes("/.well-known/")) return new Response("not found", { status: 404 });
      if (url === `${ORIGIN}/register`) return json({ client_id: "legacy" }, { status: 201 });
      if (url === `${ORIGIN}/token`) return json({ access_token: "at-fallback", token_type: "Bearer" });
      return null;
    },
  });
  const b = oauth({ redirectUri: REDIRECT, fetch: bare.fetch, authorize: bare.authorize });
  assert.equal(await b[BIND](SERVER).token({ error: { status: 401 } }), "at-fallback");
  assert.equal(world.lastAuthorization.origin + world.lastAuthorization.pathname, `${ORIGIN}/authorize`);
});
