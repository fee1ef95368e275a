// What only Streamable HTTP and the protocol revisions add to the JS API,
// in Node with the real wasm: the options protocolVersion, headers and
// token (a refused token, the AuthError), the liveness and caching hints of
// list values, and a server built on the official TypeScript SDK v2
// (@modelcontextprotocol/server) over Streamable HTTP.
import net from "node:net";
import { inspect } from "node:util";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "../index.js";
import { startServer, waitFor, nextEvent, keys, recorder, MODES, urlFor } from "./helpers.js";
import { startTSServer } from "./ts-server.js";
import { startHostileHTTP } from "./hostile-http.js";

describe("options of the revisions and of Streamable HTTP", () => {
  let server;
  before(async () => (server = await startServer()));
  after(() => server?.stop());

  test("protocolVersion pins a revision over either transport; a revision this client does not speak is a TypeError", async () => {
    for (const url of [server.ws, server.mcp]) {
      for (const v of ["2026-07-28", "2025-11-25"]) {
        const c = await connect(url, { protocolVersion: v });
        try {
          assert.equal(c.protocolVersion, v, `${url} pinned to ${v}`);
          assert.equal(c.tools.get().status, "ready");
        } finally {
          await c.close();
        }
      }
    }
    for (const bad of ["2024-11-05", "2027-01-01", "", 20260728, null]) {
      await assert.rejects(connect(server.mcp, { protocolVersion: bad }), (err) => err instanceof TypeError && /protocolVersion/.test(err.message), String(bad));
    }
  });

  test("headers and token are for http(s) URLs; bad values are TypeErrors", async () => {
    await assert.rejects(connect(server.ws, { headers: { "X-Key": "v" } }), (err) => err instanceof TypeError && /WebSocket/.test(err.message));
    await assert.rejects(connect(server.ws, { token: () => "t" }), TypeError);
    await assert.rejects(connect(server.mcp, { headers: { "Bad Name": "v" } }), TypeError);
    await assert.rejects(connect(server.mcp, { headers: { "X-Key": 1 } }), TypeError);
    await assert.rejects(connect(server.mcp, { headers: { "X-Key": "a\r\nInjected: 1" } }), TypeError);
    await assert.rejects(connect(server.mcp, { headers: ["X-Key", "v"] }), TypeError);
    await assert.rejects(connect(server.mcp, { token: "a-token" }), (err) => err instanceof TypeError && /function/.test(err.message));
  });

  for (const mode of MODES.filter((m) => m.transport === "http")) {
    test(`headers and the token callback on every request; a 401 asks for a new token (${mode.name})`, async () => {
      await server.control("require", { token: "token-1", header: "X-Api-Key", value: "k" });
      const from = (await server.control("requests")).requests.length;
      // An app's token callback: a cached token, renewed when the server refuses it.
      let cached = "token-1";
      let issued = "token-1";
      const refusals = [];
      const c = await connect(server.mcp, {
        ...mode.options,
        headers: { "x-api-key": "k" },
        token: async ({ url, error }) => {
          assert.equal(url, server.mcp);
          if (error) {
            refusals.push(error);
            await new Promise((r) => setTimeout(r, 5)); // the app's OAuth round trip: Go waits, the event loop runs
            cached = issued;
          }
          return cached;
        },
      });
      try {
        assert.equal(c.protocolVersion, mode.version);
        assert.deepEqual(refusals, []);
        const requests = (await server.control("requests")).requests.slice(from);
        assert.ok(requests.length > 0);
        for (const r of requests) {
          assert.equal(r.authorization, "Bearer token-1", JSON.stringify(r));
          assert.equal(r.header, "k", "the extra header, as given (any case)");
        }

        // The server now wants another token: the next request is refused,
        // the callback hears why, and the retry carries its new token.
        issued = "token-2";
        await server.control("require", { token: "token-2", header: "X-Api-Key", value: "k" });
        const res = await c.callTool("echo", { text: "after rotation" });
        assert.equal(res.content[0].text, "after rotation");
        assert.ok(refusals.length >= 1);
        const [e] = refusals;
        assert.ok(e instanceof Error);
        assert.deepEqual([e.name, e.status, e.resourceMetadata], ["AuthError", 401, `${server.http}/.well-known/oauth-protected-resource/mcp`]);
        const { requests: later } = await server.control("requests");
        assert.equal(later.at(-1).authorization, "Bearer token-2");
        assert.equal(c.status.get(), "ready");
      } finally {
        await c.close();
        await server.control("require", {});
      }
    });
  }

  test("a refused token: an AuthError with the status and the Bearer challenge's resource_metadata, scope and error", async () => {
    await server.control("require", { token: "right" });
    try {
      const asked = [];
      await assert.rejects(
        connect(server.mcp, {
          reconnect: false,
          token: ({ error }) => {
            asked.push(error?.name ?? "plain");
            return error ? null : "wrong"; // no new token after the refusal
          },
        }),
        (err) => {
          assert.ok(err instanceof Error);
          assert.equal(err.name, "AuthError", err.message);
          assert.equal(err.status, 401);
          assert.equal(err.resourceMetadata, `${server.http}/.well-known/oauth-protected-resource/mcp`);
          assert.equal(err.scope, "mcp");
          // The Bearer challenge's error, though a Basic challenge with its own comes first.
          assert.equal(err.error, "invalid_token");
          assert.equal(err.errorDescription, "the token is unknown");
          assert.match(err.wwwAuthenticate, /^Basic realm="mcp", error="not_bearer", Bearer /);
          assert.match(err.message, /refused the credentials \(HTTP 401\)/);
          assert.match(err.message, /the token callback gave no new token/);
          assert.doesNotMatch(err.message, /mcplive:|OnUnauthorized/);
          return true;
        },
      );
      assert.ok(asked.includes("AuthError"), `the callback heard of the refusal: ${asked}`);

      // No token callback at all: the refusal rejects at once, with the same facts.
      await assert.rejects(connect(server.mcp, { reconnect: false, headers: { Authorization: "Bearer wrong" } }), (err) => {
        assert.equal(err.name, "AuthError", err.message);
        assert.equal(err.status, 401);
        assert.equal(err.resourceMetadata, `${server.http}/.well-known/oauth-protected-resource/mcp`);
        return true;
      });

      // A callback that throws: the connect fails and says so.
      await assert.rejects(
        connect(server.mcp, {
          reconnect: false,
          token: () => {
            throw new Error("no session in this tab");
          },
        }),
        (err) => /the token callback failed: Error: no session in this tab/.test(err.message),
      );
      await assert.rejects(connect(server.mcp, { reconnect: false, token: async () => 42 }), (err) => /token callback failed: TypeError/.test(err.message));
      // A token with a control character (or anything outside RFC 6750's
      // b64token) is refused before any header is made: fetch's own error
      // would quote the whole header value, the token with it.
      for (const bad of ["tok-SECRET-4f1c\u0001x", "tok-SECRET-4f1c\nx", "tok SECRET-4f1c", "tok-SECRET-4f1cé"]) {
        await assert.rejects(
          connect(server.mcp, { reconnect: false, token: () => bad }),
          (err) => {
            assert.match(err.message, /the token callback failed: TypeError: the token it gave has a character a token may not have \(RFC 6750 b64token: letters, digits and -\._~\+\/ then =\)/, err.message);
            assert.doesNotMatch(`${err.message}\n${err.stack}\n${inspect(err, { depth: Infinity, showHidden: true })}`, /SECRET/, "the token is not in the error");
            return true;
          },
          JSON.stringify(bad),
        );
      }
    } finally {
      await server.control("require", {});
    }
  });

  // In a browser the same failure names CORS (browser.test.js); Node has no CORS.
  test("a connect that gets no HTTP answer says what the system said, not CORS", async () => {
    // A port nobody listens on (fetch refuses port 1 itself: "bad port").
    const free = net.createServer();
    await new Promise((r) => free.listen(0, "127.0.0.1", r));
    const port = free.address().port;
    await new Promise((r) => free.close(r));
    const url = `http://127.0.0.1:${port}/mcp`;
    await assert.rejects(connect(url, { reconnect: false }), (err) => {
      assert.equal(err.name, "DialError", err.message);
      assert.ok(err.message.startsWith(`could not connect to ${url}: `), err.message);
      assert.match(err.message, /ECONNREFUSED/);
      assert.equal(err.cause?.code, "ECONNREFUSED");
      assert.doesNotMatch(err.message, /CORS|Origin/);
      return true;
    });
    // An answer the client could read says why itself.
    await assert.rejects(connect(`${server.http}/not-here`, { reconnect: false }), (err) => {
      assert.equal(err.name, "DialError", err.message);
      assert.match(err.message, /404 Not Found/);
      assert.doesNotMatch(err.message, /CORS|(\w+: )\1/);
      return true;
    });
  });
});

describe("liveness and caching hints on list values", () => {
  let server;
  before(async () => (server = await startServer()));
  after(() => server?.stop());

  for (const mode of MODES) {
    test(`live, ttlMs, cacheScope, receivedAt (${mode.name})`, async () => {
      const t0 = Date.now();
      const c = await connect(urlFor(server, mode), mode.options);
      try {
        for (const kind of ["tools", "prompts", "resources", "resourceTemplates"]) {
          const v = c[kind].get();
          assert.equal(v.live, true, `${kind}: the server tells of its changes`);
          // go-sdk v1.8 sends ttlMs 0 and cacheScope "public" on its list results.
          assert.equal(v.ttlMs, 0, kind);
          assert.equal(v.cacheScope, "public", kind);
          assert.ok(typeof v.receivedAt === "number" && v.receivedAt >= t0 - 1000 && v.receivedAt <= Date.now(), `${kind} receivedAt ${v.receivedAt}`);
        }
        // A change carries the hints of its walk.
        const before = c.tools.get();
        const ev = nextEvent(c, "change", (e) => e.kind === "tools");
        await server.control("add-tool", { name: `hints-${mode.transport}-${mode.version}` });
        await ev;
        const after = c.tools.get();
        assert.equal(after.version, before.version + 1);
        assert.ok(after.receivedAt >= before.receivedAt);
        assert.equal(after.live, true);
        await server.control("remove-tool", { name: `hints-${mode.transport}-${mode.version}` });
        await waitFor(c.tools, (v) => v.version === after.version + 1);
      } finally {
        await c.close();
      }
    });
  }
});

describe("a server built on the official TypeScript SDK v2, over Streamable HTTP", () => {
  let ts;
  before(async () => (ts = await startTSServer()));
  after(() => ts?.close());

  test("the clientInfo (icons, escapes and all) and the headers reach the server as given", async () => {
    // Go reads them without encoding/json (wasm/options.go, jsonwire.go):
    // what the server gets must still be what the app gave.
    const clientInfo = {
      name: "n \"q\" <&> é 😀\n",
      version: 2,
      title: "T",
      description: "d\u2028",
      websiteUrl: "https://example.com/",
      icons: [{ src: "https://example.com/i.png", mimeType: "image/png", sizes: ["48x48", "any"], theme: "dark" }, { src: "data:," }],
    };
    const c = await connect(ts.url, { clientInfo, headers: { "x-api-key": "k1", "X-Other": "v 2" } });
    try {
      const first = ts.requests.find((r) => r.method === "POST");
      const meta = JSON.parse(first.body).params._meta;
      assert.deepEqual(meta["io.modelcontextprotocol/clientInfo"], { ...clientInfo, version: "2" });
      assert.deepEqual(meta["io.modelcontextprotocol/clientCapabilities"], {});
      assert.equal(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
      assert.equal(first.headers["x-api-key"], "k1");
      assert.equal(first.headers["x-other"], "v 2");
    } finally {
      await c.close();
    }
    await assert.rejects(connect(ts.url, { clientInfo: { name: "n", icons: "not a list" } }), /clientInfo/);
    ts.requests.length = 0; // the next test counts the requests of its own client
  });

  test("2026-07-28: connect, lists, a list change through subscriptions/listen, calls", async () => {
    const c = await connect(ts.url, { clientInfo: { name: "mcplive-js-test", version: "1.0.0" } });
    try {
      assert.equal(c.protocolVersion, "2026-07-28");
      assert.equal(c.serverInfo.name, "ts-sdk-test-server");
      assert.deepEqual(keys(c.tools.get()), ["add", "echo"]);
      assert.deepEqual(keys(c.prompts.get()), ["greet"]);
      assert.deepEqual(keys(c.resources.get(), "uri"), ["test://readme"]);
      const tools = c.tools.get();
      assert.equal(tools.live, true, "acknowledged on the listen stream");
      // The TypeScript SDK's list results carry ttlMs 0 and cacheScope "private".
      assert.deepEqual([tools.ttlMs, tools.cacheScope], [0, "private"]);
      const listens = ts.requests.filter((r) => r.headers["mcp-method"] === "subscriptions/listen");
      assert.equal(listens.length, 1, "one listen stream");
      const firstList = ts.requests.findIndex((r) => r.headers["mcp-method"] === "tools/list");
      assert.ok(ts.requests.indexOf(listens[0]) < firstList, "the listen stream opens before the first list");

      const changes = recorder();
      c.on("change", changes.push);
      ts.addTool("from-ts", "added at run time");
      const ev = await changes.next((e) => e.kind === "tools");
      assert.deepEqual(ev.added.map((t) => t.name), ["from-ts"]);
      assert.equal(ev.cause, "notification");
      assert.ok(c.tools.get().items.some((t) => t.name === "from-ts"));
      ts.removeTool("from-ts");
      await changes.next((e) => e.kind === "tools" && e.removed.some((t) => t.name === "from-ts"));

      const res = await c.callTool("echo", { text: "hello TS" });
      assert.deepEqual(res.content, [{ type: "text", text: "hello TS" }]);
      assert.equal((await c.callTool("add", { a: 2, b: 40 })).content[0].text, "42");
      assert.equal((await c.getPrompt("greet", { name: "Ada" })).messages[0].content.text, "Hello, Ada!");
      assert.equal((await c.readResource("test://readme")).contents[0].text, "hello from the TypeScript SDK");
    } finally {
      await c.close();
    }
  });

  test("a kind the server does not offer: unsupported and not live; the others live", async () => {
    const only = await startTSServer({ capabilities: { tools: { listChanged: true } } });
    const c = await connect(only.url);
    try {
      assert.deepEqual([c.tools.get().status, c.tools.get().live], ["ready", true]);
      for (const kind of ["prompts", "resources", "resourceTemplates"]) {
        const v = c[kind].get();
        assert.deepEqual([v.status, v.live, v.items.length], ["unsupported", false, 0], kind);
      }
      const listen = only.requests.find((r) => r.headers["mcp-method"] === "subscriptions/listen");
      assert.deepEqual(JSON.parse(listen.body).params.notifications, { toolsListChanged: true }, "asks only for what the server offers");
    } finally {
      await c.close();
      await only.close();
    }
  });

  test("2025-11-25 pinned: the TypeScript SDK's stateless fallback serves lists and calls", async () => {
    const c = await connect(ts.url, { protocolVersion: "2025-11-25" });
    try {
      assert.equal(c.protocolVersion, "2025-11-25");
      assert.deepEqual(keys(c.tools.get()), ["add", "echo"]);
      assert.equal((await c.callTool("echo", { text: "old era" })).content[0].text, "old era");
    } finally {
      await c.close();
    }
  });
});

// Issue 31: behind misbehaving servers and proxies one bad answer costs one
// request, never the session (a scripted server: hostile-http.js).
describe("Streamable HTTP under a misbehaving server: one bad answer costs one request", () => {
  const opts = { protocolVersion: "2025-11-25", reconnect: false };

  test("a body cut mid-way fails that call alone; a call on its own POST goes on; the client stays ready", async () => {
    const h = await startHostileHTTP();
    const c = await connect(h.url, opts);
    try {
      const slow = c.callTool("slow", {});
      await assert.rejects(c.callTool("cut", {}), (err) => {
        assert.equal(err.name, "ClosedError", err.message);
        assert.match(err.message, /connection broke while reading the answer to tools\/call/);
        return true;
      });
      assert.equal((await slow).content[0].text, "slow done");
      assert.equal(c.status.get(), "ready");
      assert.equal((await c.callTool("ok", {})).content[0].text, "ok");
    } finally {
      await c.close();
      await h.stop();
    }
  });

  test("a bad answer fails its request at once with a ProtocolError that quotes it; a wrong id names the id it got", async () => {
    const h = await startHostileHTTP();
    const c = await connect(h.url, opts);
    try {
      await assert.rejects(c.callTool("badjson", {}), (err) => err.name === "ProtocolError" && /not valid JSON/.test(err.message) && /oops/.test(err.message));
      await assert.rejects(c.callTool("batch", {}), (err) => err.name === "ProtocolError" && /batch/.test(err.message) && !/WebSocket/.test(err.message));
      await assert.rejects(c.callTool("wrongid", {}), (err) => err.name === "ProtocolError" && /the response to id 999/.test(err.message));
      assert.equal(c.status.get(), "ready");
      assert.equal((await c.callTool("ok", {})).content[0].text, "ok");
    } finally {
      await c.close();
      await h.stop();
    }
  });

  test("a GET stream cut without an answer does not fail connect: the lists are listed, not live", async () => {
    const h = await startHostileHTTP({ get: "cut" });
    const c = await connect(h.url, opts);
    try {
      const v = c.tools.get();
      assert.equal(v.status, "ready");
      assert.equal(v.items.length, 6);
      assert.equal(v.live, false, "the lists do not follow changes without the stream");
    } finally {
      await c.close();
      await h.stop();
    }
  });

  test("redirects: a same-origin 307 is followed with its body; 301 on a POST, a loop and another origin fail saying so", async () => {
    const other = await startHostileHTTP();
    const h = await startHostileHTTP({ away: other.url });
    try {
      const c = await connect(`${h.base}/same`, opts);
      assert.equal(c.tools.get().items.length, 6);
      await c.close();
      assert.ok(h.requests.some((r) => r.path === "/mcp" && r.rpc === "initialize"), "the initialize reached the new path with its body");

      await assert.rejects(connect(`${h.base}/moved`, opts), (err) => /turns it into a GET/.test(err.message) && err.message.includes(`${h.base}/mcp`));
      await assert.rejects(connect(`${h.base}/loop`, opts), (err) => /redirect loop/.test(err.message));
      await assert.rejects(connect(`${h.base}/away`, opts), (err) => /another origin/.test(err.message) && err.message.includes(other.url));
      assert.equal(other.requests.length, 0, "nothing reached the other origin");

      // What fetch said comes first, and is the error's cause.
      await assert.rejects(connect(`${h.base}/bigheader`, opts), (err) => {
        assert.equal(err.name, "DialError", err.message);
        assert.ok(err.cause?.message, JSON.stringify(err.cause));
        assert.ok(err.message.startsWith(`could not connect to ${h.base}/bigheader: `), err.message);
        assert.ok(err.message.includes(err.cause.message), `${err.message} / ${err.cause.message}`);
        return true;
      });
    } finally {
      await h.stop();
      await other.stop();
    }
  });
});
