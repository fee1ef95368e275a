// mcplive/oauth's lifecycle (issue 45): a user is never stranded. Sign-out
// before connect, step-up scopes that end at sign-out, a registration the
// authorization server forgot, a popup that never calls back, Node without
// an authorize option, loopback()'s address and timeout. Scripted fetch
// (oauth-world.js); the popup's wait with a scripted window.
import { test } from "node:test";
import assert from "node:assert/strict";
import { memoryStorage } from "../src/oauth/index.js";
import { oauth, scanSecrets } from "./secrets.js";
import { loopback } from "../src/oauth/node.js";
import { waitForCallback } from "../src/oauth/browser.js";
import { BIND, SERVER, ISSUER, REDIRECT, json, world, setup, refusal, rejectsWith } from "./oauth-world.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

test("signOut() before connect forgets the stored tokens (and revokes them) at connect", async () => {
  const storage = memoryStorage();
  const w = world();
  await oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, storage })[BIND](SERVER).token({ error: refusal() });
  assert.ok(await storage.get(`tokens:${ISSUER}|${SERVER}`));
  const later = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, storage });
  await later.signOut();
  const b = later[BIND](SERVER);
  assert.equal(await b.token({}), "", "no token at connect after the sign-out");
  assert.equal(await storage.get(`tokens:${ISSUER}|${SERVER}`), undefined, "forgotten in storage");
  assert.equal(later.get().status, "none");
  assert.deepEqual(w.requests.filter((r) => r.url.endsWith("/revoke")).map((r) => new URLSearchParams(r.body).get("token")), ["rt-1", "at-1"]);
});

test("after signOut(), the next authorization asks only for what the server challenges, not the previous user's step-up scopes", async () => {
  const { b, auth } = setup();
  await b.token({ error: refusal({ scope: "read" }) });
  await b.token({ error: refusal({ status: 403, error: "insufficient_scope", scope: "admin" }) });
  assert.deepEqual(world.lastAuthorization.searchParams.get("scope").split(" ").sort(), ["admin", "read"]);
  await auth.signOut();
  const waiting = b.token({ error: refusal({ scope: "read" }) });
  assert.equal(await waiting, "", "after a sign-out the flow waits for the user's authorize()");
  await auth.authorize();
  assert.equal(world.lastAuthorization.searchParams.get("scope"), "read");
});

test("a registration the authorization server forgot (invalid_client): registered anew once, and the flow runs again", async () => {
  let registrations = 0;
  const forgotten = new Set(["client-1"]);
  const w = world({
    route: (url) => (url === `${ISSUER}/register` ? json({ client_id: `client-${++registrations}` }, { status: 201 }) : null),
    token: (body) => (forgotten.has(body.get("client_id")) ? json({ error: "invalid_client" }, { status: 401 }) : null),
  });
  const storage = memoryStorage();
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, storage });
  assert.equal(await auth[BIND](SERVER).token({ error: refusal() }), "at-1");
  assert.equal(registrations, 2);
  assert.equal((await storage.get(`client:${ISSUER}|${REDIRECT}`)).client_id, "client-2");
  // Once only: a server that refuses every registration ends in its error.
  forgotten.add("client-3").add("client-4");
  const w2 = world({
    route: (url) => (url === `${ISSUER}/register` ? json({ client_id: `client-${++registrations}` }, { status: 201 }) : null),
    token: () => json({ error: "invalid_client" }, { status: 401 }),
  });
  const auth2 = oauth({ redirectUri: REDIRECT, fetch: w2.fetch, authorize: w2.authorize });
  await assert.rejects(auth2[BIND](SERVER).token({ error: refusal() }), (err) => err.error === "invalid_client");
  assert.equal(w2.requests.filter((r) => r.url.endsWith("/register")).length, 2, "registered anew once, not more");
});

test("signOut({ forgetClient: true }) drops the registration: the next authorization registers anew", async () => {
  let registrations = 0;
  const storage = memoryStorage();
  const w = world({ route: (url) => (url === `${ISSUER}/register` ? json({ client_id: `client-${++registrations}` }, { status: 201 }) : null) });
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, storage });
  const b = auth[BIND](SERVER);
  await b.token({ error: refusal() });
  await auth.signOut();
  assert.ok(await storage.get(`client:${ISSUER}|${REDIRECT}`), "a plain sign-out keeps the registration");
  await auth.signOut({ forgetClient: true });
  assert.equal(await storage.get(`client:${ISSUER}|${REDIRECT}`), undefined);
  await auth.authorize();
  assert.equal(registrations, 2);
  assert.equal(world.lastAuthorization.searchParams.get("client_id"), "client-2");
});

test("Node without an authorize option: a refusal rejects at once with the advice, instead of waiting for a click that cannot come", async () => {
  const w = world();
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch });
  await rejectsWith(auth[BIND](SERVER).token({ error: refusal() }), "needs_user", /loopback\(\).*paste\(\)/);
  assert.equal(auth.get().status, "error");
  assert.ok(!w.requests.length, "nothing fetched for a flow nobody can finish");
});

test("loopback(): tells the logger where it waits and what to open; its timeout ends the wait with a clear error", async () => {
  const lines = [];
  const authorize = loopback({ open: async () => {}, timeoutMs: 200, logger: { info: (m) => lines.push(m) } });
  // A redirect URI without a port: loopback() says what it needs.
  assert.throws(() => authorize(`${ISSUER}/authorize?redirect_uri=${encodeURIComponent("http://127.0.0.1/callback")}&state=s1`), /loopback\(\) needs a redirectUri like http:\/\/127\.0\.0\.1:8976\/callback/);
  const free = await new Promise((resolve) => {
    import("node:net").then(({ createServer }) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      });
    });
  });
  const u2 = `${ISSUER}/authorize?redirect_uri=${encodeURIComponent(`http://127.0.0.1:${free}/callback`)}&state=s1`;
  await rejectsWith(authorize(u2), "timeout", new RegExp(`no sign-in callback at http://127\\.0\\.0\\.1:${free}/callback within 0 s \\(loopback\\(\\{ timeoutMs \\}\\) sets the wait\\)`));
  assert.equal(lines.length, 1);
  assert.match(lines[0], new RegExp(`waiting up to 0 s for the sign-in callback at http://127\\.0\\.0\\.1:${free}/callback; if no browser opens, open this URL: https://as\\.example\\.com/authorize\\?`));
});

test("a popup that never calls back: closed, it names the cause (a redirect URI on another origin, or a callback page that does not call handleCallback()); open, the wait ends", async () => {
  const saved = { location: globalThis.location, addEventListener: globalThis.addEventListener, removeEventListener: globalThis.removeEventListener };
  globalThis.location = { origin: "http://localhost:5173", href: "http://localhost:5173/" };
  globalThis.addEventListener = () => {};
  globalThis.removeEventListener = () => {};
  try {
    const closed = { closed: true, close() {} };
    await rejectsWith(waitForCallback(closed, "s", undefined, { redirectUri: "http://127.0.0.1:5173/callback.html" }), "popup_closed", /the redirect URI http:\/\/127\.0\.0\.1:5173\/callback\.html is on another origin \(http:\/\/127\.0\.0\.1:5173\) than this page \(http:\/\/localhost:5173\)/);
    await rejectsWith(waitForCallback(closed, "s", undefined, { redirectUri: "http://localhost:5173/callback.html" }), "popup_closed", /must load, and call handleCallback\(\)/);
    let shut = false;
    const open = { closed: false, close: () => (shut = true) };
    await rejectsWith(waitForCallback(open, "s", undefined, { redirectUri: "http://localhost:5173/callback.html", timeoutMs: 100 }), "timeout", /no callback from the sign-in window within 0 s/);
    assert.ok(shut, "the popup is closed at the timeout");
  } finally {
    Object.assign(globalThis, saved);
    for (const k of Object.keys(saved)) if (saved[k] === undefined) delete globalThis[k];
  }
});
