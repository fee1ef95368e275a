// mcplive/oauth's security review (issue 45), each finding as a scripted
// fetch: requests a remote server chooses may not reach the user's machine
// or network; step-ups end; only a refused refresh token forgets the
// tokens; no secret in any error or log line; the cache's authorization
// context outlives a refresh; URLs with credentials are redacted; a parent
// resource needs the origin's own metadata (or the app's opt-in); flow
// records end with their flow.
import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { OAuthError, memoryStorage } from "../src/oauth/index.js";
import { oauth, clientCredentials, scanSecrets, Scan, currentScan, logger } from "./secrets.js";
import { openCache } from "../src/cache.js";
import { BIND, SERVER, ISSUER, REDIRECT, json, world, setup, refusal, rejectsWith } from "./oauth-world.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

const PRM_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

// ---- 1. the user's network ------------------------------------------------

test("a remote server cannot send the flow to loopback, private, link-local or IPv4-mapped addresses", async () => {
  const local = [
    "http://127.0.0.1:9/",
    "https://127.0.0.1/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://192.168.1.1/",
    "https://169.254.169.254/",
    "https://[fd00::1]/",
    "https://[fe80::1]/",
    "https://localhost/",
    "https://printer.local/",
    "https://2130706433/", // 127.0.0.1 written as one number
  ];
  for (const issuer of local) {
    const s = setup({ prm: { authorization_servers: [issuer] } });
    await rejectsWith(s.b.token({ error: refusal() }), "insecure_url", /private network|https only/);
    assert.ok(!s.requests.some((r) => !r.url.startsWith("https://mcp.example.com/")), `${issuer}: nothing fetched off the MCP server (${s.requests.map((r) => r.url)})`);
  }
  // A registration endpoint on the intranet: no POST of the registration JSON.
  const reg = setup({ as: { registration_endpoint: "https://10.0.0.7/register" } });
  await rejectsWith(reg.b.token({ error: refusal() }), "insecure_url", /registration_endpoint/);
  assert.ok(!reg.requests.some((r) => r.url.includes("10.0.0.7")));
  // The challenge's resource_metadata on loopback.
  const prm = setup();
  await rejectsWith(prm.b.token({ error: refusal({ resourceMetadata: "http://127.0.0.1:8080/admin" }) }), "insecure_url");
  assert.ok(!prm.requests.some((r) => r.url.includes("127.0.0.1")));
});

test("every redirect hop of a metadata request is checked; a remote server's redirect to loopback is not followed", async () => {
  const toLoopback = setup({ route: (url) => (url === PRM_URL ? new Response(null, { status: 302, headers: { location: "http://127.0.0.1:2375/containers/json" } }) : null) });
  await rejectsWith(toLoopback.b.token({ error: refusal() }), "insecure_url", /a redirect/);
  assert.ok(!toLoopback.requests.some((r) => r.url.includes("127.0.0.1")), "the loopback hop is never fetched");
  assert.ok(toLoopback.requests.every((r) => r.redirect === "manual"), "fetch follows nothing by itself");
  // A public hop is followed.
  const moved = setup({ route: (url) => (url === PRM_URL ? new Response(null, { status: 301, headers: { location: "https://meta.example.com/prm" } }) : url === "https://meta.example.com/prm" ? json({ resource: SERVER, authorization_servers: [ISSUER] }) : null) });
  assert.equal(await moved.b.token({ error: refusal() }), "at-1");
  // Loops end.
  const loop = setup({ route: (url) => (url.startsWith("https://mcp.example.com/.well-known/") ? new Response(null, { status: 302, headers: { location: PRM_URL } }) : null) });
  await rejectsWith(loop.b.token({ error: refusal() }), "bad_response", /more than 5 redirects/);
});

test("a server on loopback may use a loopback authorization server; allowPrivateNetwork lets a remote one (development)", async () => {
  const local = "http://127.0.0.1:7777/mcp";
  const las = "http://127.0.0.1:7778";
  const w = world({
    iss: las,
    route: (url) => {
      if (url === "http://127.0.0.1:7777/.well-known/oauth-protected-resource/mcp") return json({ resource: local, authorization_servers: [las] });
      if (url === `${las}/.well-known/oauth-authorization-server`) return json({ issuer: las, authorization_endpoint: `${las}/authorize`, token_endpoint: `${las}/token`, code_challenge_methods_supported: ["S256"] });
      if (url === `${las}/token`) return json({ access_token: "at-local", token_type: "Bearer" });
      return null;
    },
  });
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, clients: { [las]: { clientId: "c" } } });
  assert.equal(await auth[BIND](local).token({ error: { status: 401 } }), "at-local");
  const dev = setup({ iss: "https://10.0.0.2", prm: { authorization_servers: ["https://10.0.0.2"] }, route: (url) => (url === "https://10.0.0.2/.well-known/oauth-authorization-server" ? json({ issuer: "https://10.0.0.2", authorization_endpoint: "https://10.0.0.2/a", token_endpoint: "https://10.0.0.2/t", code_challenge_methods_supported: ["S256"] }) : url === "https://10.0.0.2/t" ? json({ access_token: "at-dev", token_type: "Bearer" }) : null) }, { allowPrivateNetwork: true, clients: { "https://10.0.0.2": { clientId: "c" } } });
  assert.equal(await dev.b.token({ error: refusal() }), "at-dev");
  assert.throws(() => oauth({ redirectUri: REDIRECT, allowPrivateNetwork: "yes", bogus: 1 }), /unknown option "bogus"/);
});

test("a body that is not JSON is not quoted in the error", async () => {
  const s = setup({ route: (url) => (url.includes("oauth-authorization-server") ? new Response("<html>INTRANET-SECRET-PAGE</html>", { headers: { "content-type": "text/html" } }) : null) });
  await assert.rejects(s.b.token({ error: refusal() }), (err) => {
    assert.equal(err.code, "bad_response");
    assert.doesNotMatch(inspect(err, { depth: Infinity }), /INTRANET-SECRET-PAGE/);
    assert.match(err.message, /did not answer JSON \(HTTP 200, 33 bytes of text\/html\)/);
    return true;
  });
});

// ---- 2. step-up without end -----------------------------------------------

test("a server that challenges a new scope each time: the authorizations its refusals start are capped, and the error names the cap", async () => {
  const { b, auth } = setup();
  let n = 0;
  await b.token({ error: refusal({ scope: "s0" }) });
  let stopped = null;
  for (let i = 1; i <= 25 && !stopped; i++) {
    try {
      await b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: `s${i}` }) });
      n++;
    } catch (err) {
      stopped = err;
    }
  }
  assert.ok(stopped instanceof OAuthError, "the step-ups stop");
  assert.equal(stopped.code, "too_many_authorizations");
  assert.match(stopped.message, /5 authorizations within 10 minutes, the cap/);
  assert.equal(n, 4, "the first authorization and 4 step-ups");
  // The user's own authorize() is not capped.
  await assert.doesNotReject(auth.authorize());
});

test("20 refusals of fresh tokens: at most 5 authorizations, not 10 authorizations and 10 refreshes", async () => {
  const s = setup();
  let err = null;
  for (let i = 0; i < 20 && !err; i++) {
    await s.b.token({ error: refusal({ error: "invalid_token" }) }).catch((e) => (err = e));
  }
  assert.equal(err?.code, "too_many_authorizations", err?.message);
  assert.equal(s.issued.code.size, 5);
});

test("a step-up whose scope union grows over 16 scopes is refused, naming that cap", async () => {
  const { b } = setup();
  await b.token({ error: refusal({ scope: "a" }) });
  const many = Array.from({ length: 17 }, (_, i) => `x${i}`).join(" ");
  await rejectsWith(b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: many }) }), "insufficient_scope", /over the cap of 16/);
});

// ---- 3. refresh failures ---------------------------------------------------

test("a transient refresh failure (503, unreachable) keeps the tokens, fails the request without a new sign-in, and tries again later", async () => {
  let down = true;
  const storage = memoryStorage();
  const s = setup({ expiresIn: 1, token: (body) => (body.get("grant_type") === "refresh_token" && down ? new Response("busy", { status: 503 }) : null) }, { storage });
  await s.b.token({ error: refusal() });
  const codes = s.issued.code.size;
  await new Promise((r) => setTimeout(r, 1100)); // let the 1 s token expire
  assert.equal(await s.b.token({}), "at-1", "the token it has: the server decides");
  await assert.rejects(s.b.token({ error: refusal({ error: "invalid_token" }) }), (err) => err instanceof OAuthError && err.step === "refresh");
  const failedAt = Date.now();
  assert.equal(s.issued.code.size, codes, "no new authorization for a server that is down");
  const kept = await storage.get(`tokens:${ISSUER}|${SERVER}`);
  assert.equal(kept?.refresh_token, "rt-1", "the refresh token is kept");
  assert.equal(s.auth.get().status, "authorized");
  // Within the backoff no request; after it, the same refresh token works.
  const before = s.requests.filter((r) => r.body.includes("grant_type=refresh_token")).length;
  await assert.rejects(s.b.token({ error: refusal({ error: "invalid_token" }) }));
  // (Checked only while the 1 s backoff surely lasts: a loaded machine may take longer to get here.)
  if (Date.now() - failedAt < 900) assert.equal(s.requests.filter((r) => r.body.includes("grant_type=refresh_token")).length, before, "no refresh during the backoff");
  down = false;
  await new Promise((r) => setTimeout(r, 2100)); // the backoff after two failures is 2 s (after one, 1 s)
  assert.equal(await s.b.token({ error: refusal({ error: "invalid_token" }) }), "at-r1");
  const last = s.requests.filter((r) => r.body.includes("grant_type=refresh_token")).at(-1);
  assert.equal(new URLSearchParams(last.body).get("refresh_token"), "rt-1");
});

test("invalid_grant while another tab rotated the tokens: the stored tokens are taken, not deleted", async () => {
  const storage = memoryStorage();
  const key = `tokens:${ISSUER}|${SERVER}`;
  const s = setup({
    expiresIn: 1,
    token: (body) => {
      if (body.get("grant_type") !== "refresh_token") return null;
      // Meanwhile, the other tab refreshed with the same refresh token first.
      return storage.set(key, { access_token: "at-other-tab", refresh_token: "rt-other-tab", expires_at: Date.now() + 3_600_000, issued_at: Date.now(), grant: "g" }).then(() => json({ error: "invalid_grant" }, { status: 400 }));
    },
  }, { storage });
  await s.b.token({ error: refusal() });
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(await s.b.token({}), "at-other-tab");
  assert.equal((await storage.get(key))?.refresh_token, "rt-other-tab", "the other tab's tokens are kept");
  // A refused refresh token that storage still holds: forgotten.
  const s2 = setup({ expiresIn: 1, token: (body) => (body.get("grant_type") === "refresh_token" ? json({ error: "invalid_grant" }, { status: 400 }) : null) }, { storage: memoryStorage() });
  await s2.b.token({ error: refusal() });
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(await s2.b.token({}), "");
  assert.equal(s2.auth.get().status, "none");
});

// ---- 4. no secret in an error or a log line ---------------------------------

test("no token, code, verifier or client secret in any error, cause, state or log line of the failure paths", async () => {
  const secrets = ["SECRET-AT", "SECRET-RT", "SECRET-CODE", "SECRET-CLIENT", "SECRET-ID-TOKEN"];
  const lines = [];
  const saved = {};
  for (const m of ["log", "info", "warn", "error", "debug"]) {
    saved[m] = console[m];
    console[m] = (...a) => lines.push(a.map((x) => inspect(x, { depth: Infinity })).join(" "));
  }
  const errors = [];
  const tokenAnswer = (over) => json({ access_token: "SECRET-AT-1", refresh_token: "SECRET-RT-1", token_type: "Bearer", expires_in: 3600, ...over });
  const scenarios = {
    "unexpected token_type": { token: () => tokenAnswer({ token_type: "weird" }) },
    "negative expires_in": { token: () => tokenAnswer({ expires_in: -5 }) },
    "an id_token that is not a JWT": { token: () => tokenAnswer({ id_token: "SECRET-ID-TOKEN" }) },
    "no access_token": { token: () => json({ refresh_token: "SECRET-RT-2", token_type: "Bearer" }) },
    "token error with a description": { token: () => json({ error: "invalid_request", error_description: "bad" }, { status: 400 }) },
    "token endpoint 500 with a body": { token: () => new Response("SECRET-AT-in-a-page", { status: 500 }) },
    "registration with a secret, then a refused code": { register: true, token: () => json({ error: "invalid_client" }, { status: 401 }) },
    "a callback that is not a URL": { authorize: async () => "code=SECRET-CODE-9&state=x" },
    "a callback with a wrong iss": { iss: "https://evil.example.com" },
  };
  try {
    for (const [name, sc] of Object.entries(scenarios)) {
      const route = sc.register ? (url) => (url === `${ISSUER}/register` ? json({ client_id: "c", client_secret: "SECRET-CLIENT-1", token_endpoint_auth_method: "client_secret_post" }, { status: 201 }) : null) : undefined;
      const w = world({ token: sc.token, iss: sc.iss, route, as: sc.register ? { token_endpoint_auth_methods_supported: ["client_secret_post"] } : undefined });
      const authorize = sc.authorize ?? (async (u) => {
        const cb = new URL(await w.authorize(u));
        cb.searchParams.set("code", "SECRET-CODE-1");
        return cb.href;
      });
      const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize });
      const b = auth[BIND](SERVER);
      await b.token({ error: refusal() }).then(
        () => errors.push([name, new Error("no error")]),
        (err) => errors.push([name, err]),
      );
      errors.push([`${name} (state)`, auth.get().error]);
    }
    // Refresh failures, after a good authorization with secret-looking tokens.
    for (const [name, answer] of [
      ["refresh: unexpected token_type", () => tokenAnswer({ access_token: "SECRET-AT-3", token_type: "weird" })],
      ["refresh: 503", () => new Response("SECRET-RT-1", { status: 503 })],
      ["refresh: invalid_grant", () => json({ error: "invalid_grant" }, { status: 400 })],
    ]) {
      const w = world({ expiresIn: 1, token: (body) => (body.get("grant_type") === "refresh_token" ? answer() : tokenAnswer({ expires_in: 1 })) });
      const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize });
      const b = auth[BIND](SERVER);
      await b.token({ error: refusal() });
      await new Promise((r) => setTimeout(r, 1100));
      await b.token({ error: refusal({ error: "invalid_token" }) }).catch((err) => errors.push([name, err]));
      errors.push([`${name} (state)`, auth.get().error]);
    }
  } finally {
    Object.assign(console, saved);
  }
  assert.ok(errors.filter(([, e]) => e instanceof OAuthError).length >= 10, `the failures fail: ${errors.map(([n, e]) => `${n}: ${e?.code}`).join("; ")}`);
  for (const [name, err] of errors) {
    if (err === null) continue;
    const shown = `${err.message}\n${err.stack}\n${inspect(err, { depth: Infinity, showHidden: true })}\n${JSON.stringify(err)}`;
    for (const s of secrets) assert.ok(!shown.includes(s), `${name}: ${s} in the error:\n${shown}`);
  }
  for (const line of lines) for (const s of secrets) assert.ok(!line.includes(s), `${s} in a log line: ${line}`);
});

test("a token no header can carry (a control character: fetch quotes such a header value in its error) is refused, and not shown", async () => {
  const bad = { access_token: "SECRET-AT-CTL\nx", token_type: "Bearer", expires_in: 1, refresh_token: "rt-ok" };
  const code = setup({ token: () => json(bad) });
  await rejectsWith(code.b.token({ error: refusal() }), "bad_response", /access_token has characters outside RFC 6749's VSCHAR/);
  assert.notEqual(code.auth.get().status, "authorized");
  // A refresh that answers one: refused too (the tokens it had stay).
  const rf = setup({ expiresIn: 1, token: (body) => (body.get("grant_type") === "refresh_token" ? json({ ...bad, access_token: "at-ok", refresh_token: "SECRET-RT-CTL\u0000" }) : null) });
  await rf.b.token({ error: refusal() });
  await new Promise((r) => setTimeout(r, 1100)); // let the 1 s token expire
  await rejectsWith(rf.b.token({ error: refusal({ error: "invalid_token" }) }), "bad_response", /refresh_token has characters outside/);
  // The client credentials grant.
  const w = world({ as: { grant_types_supported: ["client_credentials"] }, token: () => json(bad) });
  const cc = clientCredentials({ clientId: "agent", clientSecret: "agent-secret", fetch: w.fetch });
  await rejectsWith(cc[BIND](SERVER).token({ error: refusal() }), "bad_response", /VSCHAR/);
});

test("a sign-out whose revocation fails (an error answer, a page, a server down) reports an error that shows no token", async () => {
  const answers = [
    () => json({ error: "invalid_request", error_description: "bad token" }, { status: 400 }),
    () => new Response("<html>oops</html>", { status: 503, headers: { "content-type": "text/html" } }),
    () => {
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    },
  ];
  for (const answer of answers) {
    const s = setup({ route: (url) => (url === `${ISSUER}/revoke` ? answer() : null) });
    await s.b.token({ error: refusal() });
    await s.auth.signOut();
    assert.equal(s.auth.get().status, "none", "signed out here whatever the revocation did");
    assert.ok(s.requests.some((r) => r.url === `${ISSUER}/revoke`), "the revocation was tried");
  }
  // The scan after this test checks what the failed revocations reported (console.error).
});

test("the secret scan finds a secret in an error's message or cause chain, a state, a log line, whole or cut; not inside a longer word", () => {
  const s = new Scan();
  const long = "rt-0123456789abcdefghijklmnopqrstuvwxyz";
  const jwt = `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: "alice", jti: "0123456789abcdef" })).toString("base64url")}.c2lnbmF0dXJlLW9mLXRoZS1pZC10b2tlbg`;
  s.fromJSON({ access_token: "at-scan-1", refresh_token: long, id_token: jwt, token_type: "Bearer" }, "a token answer");
  s.fromForm(new URLSearchParams("grant_type=authorization_code&code=code-scan&code_verifier=verifier-scan"), "a token request");
  s.fromHeaders(new Headers({ authorization: `Basic ${Buffer.from("client:cs-scan").toString("base64")}` }), "a token request");
  assert.deepEqual([...s.secrets.keys()].sort(), ["Y2xpZW50OmNzLXNjYW4=", "at-scan-1", "code-scan", "cs-scan", jwt, long, "verifier-scan"].sort());
  s.show("clean", new OAuthError("token_error", "at-scan-10, xat-scan-1, Bearer, authorization_code, client"));
  assert.deepEqual(s.check(), [], "no find inside a longer word, nor of what is not secret");
  s.show("message", new Error("got at-scan-1"));
  s.show("cause", new OAuthError("token_error", "refused", { cause: new Error("x", { cause: { body: { code_verifier: "verifier-scan" } } }) }));
  s.show("state", Object.freeze({ status: "error", error: Object.assign(new Error("e"), { response: { code: "code-scan" } }) }));
  s.show("cut", `the answer began ${JSON.stringify({ refresh_token: long }).slice(0, 40)}`);
  s.show("jwt", `id_token payload ${jwt.split(".")[1]}`);
  s.show("log", ["basic", "cs-scan"]);
  assert.deepEqual(
    s.check().map((f) => `${f.where}: ${f.secret.slice(0, 12)}`),
    ["message: at-scan-1", "cause: verifier-sca", "state: code-scan", `cut: ${long.slice(0, 12)}`, `jwt: ${jwt.slice(0, 12)}`, "log: cs-scan"],
  );
});

test("every test's scan sees the secrets through fetch, and what OAuthErrors, assert.rejects, console, stderr and the logger show", async () => {
  const scan = currentScan();
  const s = setup({ token: () => json({ access_token: "at-plumb-1", token_type: "weird" }) });
  await rejectsWith(s.b.token({ error: refusal() }), "bad_response");
  assert.equal(scan.secrets.get("at-plumb-1"), `fetch POST ${ISSUER}/token (answer): access_token`);
  assert.ok(scan.secrets.has("code-1"), "the callback's code");
  assert.deepEqual(scan.check(), [], "the product showed none of them");
  console.error("[the scan's own test] at-plumb-1");
  process.stderr.write("[the scan's own test] at-plumb-1\n");
  logger.warn("[the scan's own test]", { token: "at-plumb-1" });
  void new OAuthError("token_error", "at-plumb-1");
  await assert.rejects(Promise.reject(new Error("at-plumb-1")));
  const where = [...new Set(scan.check().map((f) => f.where))].sort();
  assert.deepEqual(where, ["an OAuthError (constructed)", "assert.rejects", "console.error", "logger.warn", "process.stderr"]);
  scan.shown.length = 0; // shown here on purpose: the scan after this test finds nothing
});

// ---- 5. the cache's authorization context ---------------------------------

test("the authorization context is the issuer and subject (or the grant), the same after a refresh, and null after sign-out", async () => {
  const s = setup({ expiresIn: 1 });
  await s.b.token({ error: refusal() });
  const c1 = await s.b.context();
  assert.match(c1, /^oauth:https:\/\/as\.example\.com #[0-9a-f]{64}$/);
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(await s.b.token({}), "at-r1", "refreshed");
  assert.equal(await s.b.context(), c1, "a refresh keeps the context (and the private catalog kept under it)");
  await s.auth.signOut();
  assert.equal(await s.b.context(), null);
  // A JWT access token with a subject: issuer and subject.
  const jwt = `e30.${Buffer.from(JSON.stringify({ sub: "alice" })).toString("base64url")}.x`;
  const j = setup({ token: () => json({ access_token: jwt, token_type: "Bearer" }) });
  await j.b.token({ error: refusal() });
  assert.equal(await j.b.context(), `oauth:${ISSUER} alice`);
});

// ---- 6. URLs with credentials ---------------------------------------------

test("a server URL with credentials is redacted in every OAuthError; the cache's warnings redact the URL", async () => {
  const secretServer = "https://user:SECRET-PW@mcp.example.com/mcp?access_token=SECRET-Q";
  const w = world({ prm: { resource: secretServer }, route: () => new Response("no", { status: 404 }) });
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize });
  await assert.rejects(auth[BIND](secretServer).token({ error: { status: 401 } }), (err) => {
    const shown = `${err.message} ${err.server} ${inspect(err, { depth: Infinity })}`;
    assert.doesNotMatch(shown, /SECRET/);
    assert.match(err.message, /https:\/\/mcp\.example\.com\/mcp\?…/);
    return true;
  });
  const lines = [];
  const broken = { get: async () => { throw new Error("disk gone"); }, set: async () => {}, delete: async () => {} };
  const cache = openCache(broken, "wss://u:SECRET-PW@mcp.example.com/ws?token=SECRET-Q", Promise.resolve("anonymous"), { warn: (msg, attrs) => lines.push(`${msg} ${JSON.stringify(attrs)}`) });
  await cache.load().catch(() => {});
  await cache.settled();
  assert.ok(lines.length > 0, "the failing storage is warned about");
  for (const l of lines) assert.doesNotMatch(l, /SECRET/);
});

// ---- 7. the protected resource ---------------------------------------------

test("a parent resource is taken only from the origin's root metadata, or with allowParentResource", async () => {
  const TENANT = "https://t.example/tenant-b/mcp";
  const other = (url) => (url === "https://attacker.example/prm" ? json({ resource: "https://t.example", authorization_servers: [ISSUER] }) : null);
  const w = world({ route: other });
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize });
  await rejectsWith(auth[BIND](TENANT).token({ error: { status: 401, resourceMetadata: "https://attacker.example/prm" } }), "resource_mismatch", /allowParentResource/);
  assert.ok(!w.requests.some((r) => r.url.startsWith(ISSUER)), "no authorization for the wider audience");
  // Same origin, but not its well-known root: refused too.
  const same = world({ route: (url) => (url === "https://t.example/tenant-b/prm" ? json({ resource: "https://t.example", authorization_servers: [ISSUER] }) : null) });
  await rejectsWith(oauth({ redirectUri: REDIRECT, fetch: same.fetch, authorize: same.authorize })[BIND](TENANT).token({ error: { status: 401, resourceMetadata: "https://t.example/tenant-b/prm" } }), "resource_mismatch");
  // The origin's root well-known URL may name the origin (RFC 9728 section 3.3).
  const root = world({ route: (url) => (url === "https://t.example/.well-known/oauth-protected-resource" ? json({ resource: "https://t.example/", authorization_servers: [ISSUER] }) : null) });
  assert.equal(await oauth({ redirectUri: REDIRECT, fetch: root.fetch, authorize: root.authorize })[BIND](TENANT).token({ error: { status: 401 } }), "at-1");
  assert.equal(root.lastAuthorization?.searchParams.get("resource") ?? world.lastAuthorization.searchParams.get("resource"), "https://t.example/");
  // The app's opt-in: a parent path on the same origin.
  const opt = world({ route: other });
  assert.equal(await oauth({ redirectUri: REDIRECT, fetch: opt.fetch, authorize: opt.authorize, allowParentResource: true })[BIND](TENANT).token({ error: { status: 401, resourceMetadata: "https://attacker.example/prm" } }), "at-1");
});

// ---- 8. flow records -----------------------------------------------------------

test("a callback of a flow started before sign-out is refused; a newer flow replaces the older's record", async () => {
  const w = world();
  let release;
  const held = new Promise((r) => (release = r));
  const auth = oauth({
    redirectUri: REDIRECT,
    fetch: w.fetch,
    authorize: async (u) => {
      const cb = await w.authorize(u);
      await held; // the user takes a while; meanwhile, sign-out
      return cb;
    },
  });
  const b = auth[BIND](SERVER);
  const first = b.token({ error: refusal() });
  while (!w.issued.code.size) await new Promise((r) => setTimeout(r, 5));
  await auth.signOut();
  release();
  await rejectsWith(first, "state_mismatch");
  assert.equal(auth.get().status !== "authorized", true);
  assert.ok(!w.requests.some((r) => r.url.endsWith("/token")), "the code of a flow started before sign-out is not exchanged");
  // A newer flow: the older one's callback no longer matches.
  const w2 = world();
  const callbacks = [];
  let mode = "collect";
  const auth2 = oauth({
    redirectUri: REDIRECT,
    fetch: w2.fetch,
    authorize: async (u) => {
      const cb = await w2.authorize(u);
      callbacks.push(cb);
      if (mode === "collect") throw new Error("the user closed the window");
      return mode === "old" ? callbacks[0] : cb;
    },
  });
  const b2 = auth2[BIND](SERVER);
  await assert.rejects(b2.token({ error: refusal() }), /closed the window/);
  mode = "old";
  await rejectsWith(auth2.authorize(), "state_mismatch", /forged or foreign/);
});
