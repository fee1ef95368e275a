// connect with mcplive/oauth, end to end in Node through the real wasm,
// against a small scripted MCP server behind a scripted authorization server
// (both node:http on 127.0.0.1): the lists are walked once authorized; a
// user's step that takes longer than a request may still ends in a
// connected client; a new authorization lists every list again.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { connect, open } from "../index.js";
import { memoryStorage } from "../src/oauth/index.js";
import { oauth, logger, scanSecrets } from "./secrets.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

let base, server;
const seen = { listed: 0, tokens: [] };
let tools = ["alpha"];
let currentToken = null;
/** badToken: the token endpoint issues tokens with a control character (no header can carry them). */
let badToken = false;

const send = (res, status, body, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

before(async () => {
  const codes = new Map();
  server = createServer(async (req, res) => {
    const url = new URL(req.url, base);
    let body = "";
    for await (const c of req) body += c;
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return send(res, 200, { resource: `${base}/mcp`, authorization_servers: [`${base}/as`] });
    if (url.pathname === "/.well-known/oauth-authorization-server/as") {
      return send(res, 200, { issuer: `${base}/as`, authorization_endpoint: `${base}/as/authorize`, token_endpoint: `${base}/as/token`, registration_endpoint: `${base}/as/register`, code_challenge_methods_supported: ["S256"] });
    }
    if (url.pathname === "/as/register") return send(res, 201, { client_id: "c1" });
    if (url.pathname === "/as/token") {
      const p = new URLSearchParams(body);
      if (p.get("grant_type") === "refresh_token") {
        if (p.get("refresh_token") !== `rt-${seen.tokens.length}`) return send(res, 400, { error: "invalid_grant" });
        currentToken = `at-${seen.tokens.length + 1}`;
        seen.tokens.push(currentToken);
        return send(res, 200, { access_token: currentToken, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${seen.tokens.length}` });
      }
      const c = codes.get(p.get("code"));
      if (!c || createHash("sha256").update(p.get("code_verifier")).digest("base64url") !== c) return send(res, 400, { error: "invalid_grant" });
      if (badToken) return send(res, 200, { access_token: `at-ctl-${codes.size}\nSECRET`, token_type: "Bearer", expires_in: 3600 });
      currentToken = `at-${seen.tokens.length + 1}`;
      seen.tokens.push(currentToken);
      return send(res, 200, { access_token: currentToken, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${seen.tokens.length}` });
    }
    if (url.pathname === "/as/authorize") {
      const code = `code-${codes.size + 1}`;
      codes.set(code, url.searchParams.get("code_challenge"));
      const cb = new URL(url.searchParams.get("redirect_uri"));
      cb.searchParams.set("code", code);
      cb.searchParams.set("state", url.searchParams.get("state"));
      res.writeHead(302, { location: cb.href }).end();
      return;
    }
    if (url.pathname !== "/mcp") return send(res, 404, {});
    if (req.method !== "POST") return send(res, 405, {});
    if (!currentToken || req.headers.authorization !== `Bearer ${currentToken}`) {
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
      return;
    }
    const msg = JSON.parse(body);
    if (msg.id === undefined) return res.writeHead(202).end();
    const result = (r) => send(res, 200, { jsonrpc: "2.0", id: msg.id, result: r });
    switch (msg.method) {
      case "initialize":
        return result({ protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "scripted", version: "1" } });
      case "tools/list":
        seen.listed++;
        return result({ tools: tools.map((name) => ({ name, inputSchema: { type: "object" } })) });
      default:
        return send(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no" } });
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

/** follow is the user's step: it follows the authorization URL to its redirect, after delayMs. */
const follow = (delayMs) => async (authorizationUrl) => {
  await new Promise((r) => setTimeout(r, delayMs));
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  return new URL(res.headers.get("location"), authorizationUrl).href;
};

test("connect through the authorization, even when the user's step outlasts a request's timeout; a new authorization re-lists", async () => {
  // The user takes longer than requestTimeoutMs: the request that was refused
  // times out meanwhile, and connect connects again once the authorization is
  // done. (The timeout also bounds every request after it: 2 s leaves a loaded
  // machine room; 500 ms failed the initialize about once in 20 runs there.)
  const auth = oauth({ redirectUri: "http://127.0.0.1:1/callback", authorize: follow(3000) });
  const client = await connect(`${base}/mcp`, { auth, logger, protocolVersion: "2025-11-25", requestTimeoutMs: 2000, reconnect: false });
  try {
    assert.equal(client.auth, auth);
    assert.deepEqual(client.tools.get().items.map((t) => t.name), ["alpha"]);
    assert.equal(auth.get().status, "authorized");
    assert.equal(auth.get().issuer, `${base}/as`);
    // Another authorization (here: sign out, the server refuses the re-list,
    // and the user signs in again): every list is listed again. After a
    // sign-out nothing signs in by itself, not even the authorize option.
    tools = ["alpha", "beta"];
    const relisted = new Promise((resolve) => client.on("change", (ev) => ev.kind === "tools" && ev.added.some((t) => t.name === "beta") && resolve(ev)));
    currentToken = null;
    const waiting = new Promise((resolve) => auth.subscribe((s) => s.status === "needs-authorization" && resolve(s)));
    await auth.signOut();
    assert.match((await waiting).authorizationUrl, /^http:\/\/127\.0\.0\.1:\d+\/as\//);
    assert.equal(seen.tokens.length, 1, "no authorization by itself after the sign-out");
    await auth.authorize();
    const ev = await relisted;
    assert.equal(ev.cause, "refresh");
    assert.equal(seen.tokens.length, 2, "a second authorization");
  } finally {
    await client.close();
  }
});

test("with the cache option, a sign-out removes the private record of the authorization context", async () => {
  const records = new Map();
  let onDelete = () => {};
  let onPrivate = () => {};
  const storage = {
    get: async (k) => records.get(k),
    set: async (k, v) => {
      records.set(k, v);
      if (k.includes("#")) onPrivate(k);
    },
    delete: async (k) => {
      records.delete(k);
      onDelete(k);
    },
  };
  const privateWritten = new Promise((resolve) => (onPrivate = resolve));
  const auth = oauth({ redirectUri: "http://127.0.0.1:1/callback", authorize: follow(0) });
  const client = await connect(`${base}/mcp`, { auth, logger, protocolVersion: "2025-11-25", reconnect: false, cache: storage });
  try {
    // A 2025-11-25 server sends no cacheScope: its lists are private.
    const key = await privateWritten;
    for (const [k, v] of records) {
      assert.ok(!k.includes(currentToken) && !v.includes(currentToken), "no token in the records");
    }
    const removed = new Promise((resolve) => (onDelete = (k) => k === key && resolve()));
    await auth.signOut();
    await removed;
    assert.ok(!records.has(key));
  } finally {
    await client.close();
  }
});

test("with the cache option, a refreshed token keeps the authorization context: the private record stays, and a reload finds it", async () => {
  const records = new Map();
  const deleted = [];
  let onPrivate = () => {};
  const storage = {
    get: async (k) => records.get(k),
    set: async (k, v) => {
      records.set(k, v);
      onPrivate(k);
    },
    delete: async (k) => {
      records.delete(k);
      deleted.push(k);
    },
  };
  let privateWritten = new Promise((resolve) => (onPrivate = resolve));
  const tokenStorage = memoryStorage();
  const auth = oauth({ redirectUri: "http://127.0.0.1:1/callback", authorize: follow(0), storage: tokenStorage });
  const client = await connect(`${base}/mcp`, { auth, logger, protocolVersion: "2025-11-25", reconnect: false, cache: storage });
  let key;
  try {
    key = await privateWritten;
    const before = seen.tokens.length;
    // The server no longer takes the token: the client refreshes it, and
    // lists again (a changed list: written again, after any delete).
    currentToken = "revoked";
    tools = [...tools, "gamma"];
    privateWritten = new Promise((resolve) => (onPrivate = resolve));
    await client.refresh();
    assert.equal(seen.tokens.length, before + 1, "refreshed");
    assert.equal(await privateWritten, key, "the re-list is kept under the same context");
    assert.ok(!deleted.includes(key), "the private record of the authorization is not deleted by a refresh");
  } finally {
    await client.close();
  }
  // A reload (a new oauth() on the same token storage): the kept catalog is found at once.
  const auth2 = oauth({ redirectUri: "http://127.0.0.1:1/callback", authorize: follow(0), storage: tokenStorage });
  const client2 = open(`${base}/mcp`, { auth: auth2, logger, protocolVersion: "2025-11-25", reconnect: false, cache: storage });
  try {
    await client2.ready;
    assert.ok(records.has(key));
    assert.ok(!deleted.includes(key));
  } finally {
    await client2.close();
  }
});

test("a token no header can carry: connect fails with an OAuthError that does not show it (fetch would quote the header in its error)", async () => {
  badToken = true;
  try {
    const auth = oauth({ redirectUri: "http://127.0.0.1:1/callback", authorize: follow(0) });
    await assert.rejects(connect(`${base}/mcp`, { auth, logger, protocolVersion: "2025-11-25", reconnect: false }), (err) => {
      assert.match(err.message, /access_token has characters outside RFC 6749's VSCHAR/);
      assert.doesNotMatch(err.message, /SECRET|Headers\.append/);
      return true;
    });
    assert.equal(auth.get().error?.code, "bad_response");
  } finally {
    badToken = false;
  }
});
