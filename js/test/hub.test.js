// The hub (src/hub.js) against real servers through the real wasm: two
// go-sdk test servers (one over WebSocket, one over Streamable HTTP) and a
// TypeScript SDK v2 server (2026-07-28 over Streamable HTTP), all at once in
// one hub, each changing its lists while the others do too. Waits for
// events and store values, never for time.
import { sha256 } from "../src/hash.js";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect, createHub, memoryApprovals, localStorageApprovals, toolResultFor } from "../index.js";
import { startServer, waitFor, recorder } from "./helpers.js";
import { startTSServer } from "./ts-server.js";

const HUB_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const FAST = { reconnect: { initialDelayMs: 50, maxDelayMs: 200 }, dialTimeoutMs: 2000 };
const LONG = "t".repeat(120);

const names = (v) => v.items.map((i) => i.name).sort();
const of = (v, server) => v.items.filter((i) => i.server === server);
const has = (name) => (v) => v.items.some((i) => i.name === name);
const hasNot = (name) => (v) => !v.items.some((i) => i.name === name);

describe("hub: three servers at once", () => {
  let ws, http, ts, hub;
  before(async () => {
    [ws, http, ts] = await Promise.all([startServer(), startServer(), startTSServer()]);
    hub = createHub({ clientInfo: { name: "hub-test", version: "1" } });
    await Promise.all([
      hub.add("code", ws.ws, FAST),
      hub.add("docs", http.mcp, { ...FAST, protocolVersion: "2025-11-25" }),
      hub.add("ts", ts.url, FAST),
    ]);
  });
  after(async () => {
    await hub?.close();
    await Promise.all([ws?.stop(), http?.stop(), ts?.close()]);
  });

  test("the merged stores hold every server's items with hub names, server and serverName", () => {
    const tools = hub.tools.get();
    assert.equal(tools.status, "ready");
    for (const id of ["code", "docs", "ts"]) assert.ok(tools.items.some((t) => t.name === `${id}__echo` && t.serverName === "echo" && t.server === id), id);
    for (const t of tools.items) {
      assert.match(t.name, HUB_NAME);
      assert.match(t.fingerprint, /^[0-9a-f]{64}$/);
      assert.equal(t.stale, false);
      assert.equal(t.approval, "none");
      assert.ok(Object.isFrozen(t));
    }
    assert.deepEqual(hub.resolve("docs__echo"), { server: "docs", name: "echo" });
    assert.deepEqual(hub.resolve("ts__greet"), { server: "ts", name: "greet" });
    assert.equal(hub.resolve("nope"), undefined);
    const servers = hub.servers.get();
    assert.deepEqual(servers.map((s) => [s.id, s.status]), [["code", "ready"], ["docs", "ready"], ["ts", "ready"]].sort((a, b) => servers.findIndex((s) => s.id === a[0]) - servers.findIndex((s) => s.id === b[0])));
    assert.deepEqual(Object.fromEntries(servers.map((s) => [s.id, s.protocolVersion])), { code: "2026-07-28", docs: "2025-11-25", ts: "2026-07-28" });
    // Resources: both go servers list test://readme, and so does the TS one.
    assert.equal(hub.resources.get().items.filter((r) => r.uri === "test://readme").length, 3);
  });

  test("each server changes its lists while the others do too; other servers' items keep their identity", async () => {
    const before = hub.tools.get();
    const seen = recorder();
    const off = hub.on("change", seen.push);
    try {
      await Promise.all([ws.control("add-tool", { name: "w1" }), http.control("add-tool", { name: "h1" }), ts.addTool("s1")]);
      await ws.control("add-prompt", { name: "wp" });
      const after = await waitFor(hub.tools, (v) => ["code__w1", "docs__h1", "ts__s1"].every((n) => v.items.some((i) => i.name === n)));
      await waitFor(hub.prompts, has("code__wp"));
      for (const t of before.items) assert.ok(after.items.includes(t), `${t.name} kept its object`);
      // One event per server change, each with the server that caused it.
      const ev = await seen.next((e) => e.kind === "tools" && e.added.some((i) => i.name === "docs__h1"));
      assert.equal(ev.server, "docs");
      assert.deepEqual(ev.added.map((i) => i.name), ["docs__h1"]);
      assert.deepEqual([ev.removed.length, ev.changed.length], [0, 0]);
      assert.equal(ev.version, hub.tools.get().version >= ev.version ? ev.version : NaN);
      for (const e of seen.seen) assert.ok(["code", "docs", "ts"].includes(e.server));
      // One server's change re-creates only its own item.
      const mid = hub.tools.get();
      await http.control("remove-tool", { name: "h1" });
      const later = await waitFor(hub.tools, hasNot("docs__h1"));
      assert.deepEqual(mid.items.filter((i) => !later.items.includes(i)).map((i) => i.name), ["docs__h1"]);
    } finally {
      off();
    }
  });

  test("a call routed to each server by hub name; prompts and resources too", async () => {
    for (const id of ["code", "docs", "ts"]) {
      const r = await hub.callTool(`${id}__echo`, { text: `hi ${id}` });
      assert.equal(r.content[0].text, `hi ${id}`);
    }
    const p = await hub.getPrompt("ts__greet", { name: "Ada" });
    assert.match(p.messages[0].content.text, /Ada/);
    await assert.rejects(hub.readResource("test://readme"), /pass \{ server \}/);
    const r = await hub.readResource("test://readme", { server: "ts" });
    assert.equal(r.contents[0].text, "hello from the TypeScript SDK");
    const t = await hub.readResource("test://items/7", { server: "docs" });
    assert.ok(t.contents.length > 0);
    await assert.rejects(hub.callTool("nobody__echo", {}), (err) => err.name === "NotFoundError");
    // resources/subscribe through the hub, routed by URI and server.
    await ws.control("add-resource", { uri: "test://only-code", name: "only", text: "v1" });
    await waitFor(hub.resources, (v) => v.items.some((i) => i.uri === "test://only-code"));
    const got = recorder();
    const stop = hub.subscribeResource("test://only-code", (contents) => got.push(contents[0].text));
    await got.next((t) => t === "v1");
    await ws.control("update-resource", { uri: "test://only-code", text: "v2" });
    await got.next((t) => t === "v2");
    stop();
  });

  test("names with '.', of 120 characters, and clashing: fit ^[a-zA-Z0-9_-]{1,64}$, unique, resolved back", async () => {
    await Promise.all([
      ws.control("add-tool", { name: "a.b" }),
      ws.control("add-tool", { name: "a_b" }),
      ws.control("add-tool", { name: LONG }),
      http.control("add-tool", { name: LONG }),
      http.control("add-tool", { name: "x.y" }),
    ]);
    const v = await waitFor(hub.tools, (v) => of(v, "code").filter((i) => [LONG, "a.b", "a_b"].includes(i.serverName)).length === 3 && of(v, "docs").some((i) => i.serverName === LONG) && of(v, "docs").some((i) => i.serverName === "x.y"));
    const all = v.items.map((i) => i.name);
    assert.equal(new Set(all).size, all.length, "hub names are unique");
    for (const n of all) assert.match(n, HUB_NAME);
    const by = (server, name) => v.items.find((i) => i.server === server && i.serverName === name).name;
    assert.equal(by("code", "a_b"), "code__a_b", "the name that needed no change keeps the plain name");
    assert.match(by("code", "a.b"), /^code__a_b_[0-9a-f]{8}$/);
    assert.equal(by("docs", "x.y"), "docs__x_y");
    assert.match(by("code", LONG), /^code__t+_[0-9a-f]{8}$/);
    assert.equal(by("code", LONG).length, 64);
    assert.notEqual(by("code", LONG), by("docs", LONG));
    for (const i of v.items) assert.deepEqual(hub.resolve(i.name), { server: i.server, name: i.serverName });
    const r = await hub.callTool(by("code", "a.b"), { text: "dot" });
    assert.equal(r.content[0].text, "dot");

    // The same servers in another order give the same names.
    const other = createHub();
    try {
      await other.add("docs", http.mcp, FAST);
      await other.add("ts", ts.url, FAST);
      await other.add("code", ws.ws, FAST);
      const mine = new Map(hub.tools.get().items.map((i) => [`${i.server} ${i.serverName}`, i.name]));
      for (const i of other.tools.get().items) assert.equal(i.name, mine.get(`${i.server} ${i.serverName}`), `${i.server} ${i.serverName}`);
    } finally {
      await other.close();
    }
    await Promise.all(["a.b", "a_b", LONG].map((name) => ws.control("remove-tool", { name })));
    await Promise.all([LONG, "x.y"].map((name) => http.control("remove-tool", { name })));
    await waitFor(hub.tools, (v) => !v.items.some((i) => i.serverName === LONG || i.serverName === "x.y" || i.serverName === "a.b"));
  });

  test("removed and added again: one change per kind removes its items; the same names come back", async () => {
    const before = hub.tools.get();
    const docsNames = of(before, "docs").map((i) => i.name).sort();
    const seen = recorder();
    const off = hub.on("change", seen.push);
    await hub.remove("docs");
    off();
    const removedTools = seen.seen.filter((e) => e.kind === "tools");
    assert.equal(removedTools.length, 1);
    assert.deepEqual(removedTools[0].removed.map((i) => i.name).sort(), docsNames);
    assert.equal(removedTools[0].server, "docs");
    const gone = hub.tools.get();
    assert.equal(of(gone, "docs").length, 0);
    for (const t of of(before, "code")) assert.ok(gone.items.includes(t), "the others keep their objects");
    assert.ok(!hub.servers.get().some((s) => s.id === "docs"));
    assert.equal(hub.resolve("docs__echo"), undefined);
    await hub.add("docs", http.mcp, { ...FAST, protocolVersion: "2025-11-25" });
    assert.deepEqual(of(hub.tools.get(), "docs").map((i) => i.name).sort(), docsNames);
  });

  test("add: ids are checked, a failed connect leaves the hub as it was", async () => {
    for (const bad of ["", "a b", "x".repeat(33), "a.b", 7, "code"]) await assert.rejects(hub.add(bad, ws.ws), TypeError, String(bad));
    const before = [hub.tools.get(), hub.servers.get().map((s) => s.id)];
    await assert.rejects(hub.add("dead", "ws://127.0.0.1:1/mcp", { dialTimeoutMs: 500, reconnect: false }));
    assert.equal(hub.tools.get(), before[0]);
    assert.deepEqual(hub.servers.get().map((s) => s.id), before[1]);
  });

  test("filters apply to the merged stores and to toolsFor, and again after a re-list", async () => {
    hub.filter({ server: ["code", "ts"], exclude: ["*slow*", /fail/] });
    let v = hub.tools.get();
    assert.ok(v.items.every((i) => i.server !== "docs" && !/slow|fail/.test(i.name)));
    assert.ok(hub.toolsFor("anthropic").every((t) => !t.name.startsWith("docs__")));
    await ws.control("add-tool", { name: "slow2" });
    await ws.control("add-tool", { name: "kept" });
    v = await waitFor(hub.tools, has("code__kept"));
    assert.ok(!v.items.some((i) => i.name === "code__slow2"));
    hub.filter((item, kind) => kind !== "tools" || item.server === "ts");
    assert.ok(hub.tools.get().items.every((i) => i.server === "ts"));
    hub.filter(null);
    assert.ok(hub.tools.get().items.some((i) => i.name === "code__slow2"));
  });

  test("a description change after approval: approval 'changed', left out of toolsFor, calls refused until approved again", async () => {
    await http.control("add-tool", { name: "deploy", description: "Deploys." });
    await waitFor(hub.tools, has("docs__deploy"));
    hub.approve("docs__deploy");
    let item = hub.tools.get().items.find((i) => i.name === "docs__deploy");
    assert.equal(item.approval, "approved");
    const seen = recorder();
    const off = hub.on("change", seen.push);
    await http.control("add-tool", { name: "deploy", description: "Deploys, and also deletes everything." });
    const ev = await seen.next((e) => e.changed.some((c) => c.item.name === "docs__deploy"));
    off();
    const c = ev.changed.find((c) => c.item.name === "docs__deploy");
    assert.deepEqual([...c.fields].sort(), ["approval", "description"]);
    assert.equal(c.previous.description, "Deploys.");
    item = hub.tools.get().items.find((i) => i.name === "docs__deploy");
    assert.equal(item.approval, "changed");
    for (const api of ["openai-chat", "openai-responses", "anthropic"]) {
      const list = hub.toolsFor(api);
      assert.ok(!JSON.stringify(list).includes("docs__deploy"), api);
      assert.ok(JSON.stringify(list).includes("docs__echo"), api);
    }
    assert.ok(!("docs__deploy" in hub.toolsFor("ai-sdk")));
    await assert.rejects(hub.callTool("docs__deploy", {}), (err) => err.name === "ApprovalError");
    hub.approve("docs__deploy");
    assert.equal(hub.tools.get().items.find((i) => i.name === "docs__deploy").approval, "approved");
    assert.ok("docs__deploy" in hub.toolsFor("ai-sdk"));
    const r = await hub.callTool("docs__deploy", { text: "ok" });
    assert.equal(r.content[0].text, "ok");
  });

  test("toolsFor: the shapes of the model APIs; runTool turns results into their tool results", async () => {
    const chat = hub.toolsFor("openai-chat");
    assert.equal(chat, hub.toolsFor("openai-chat"), "the same list until the tools change");
    const echo = chat.find((t) => t.function.name === "ts__echo");
    assert.deepEqual(echo.type, "function");
    assert.equal(echo.function.parameters.type, "object");
    const resp = hub.toolsFor("openai-responses").find((t) => t.name === "code__add");
    assert.deepEqual([resp.type, resp.strict, resp.description], ["function", false, "Adds two numbers."]);
    const anth = hub.toolsFor("anthropic").find((t) => t.name === "code__add");
    assert.deepEqual(Object.keys(anth.input_schema.properties).sort(), ["a", "b"]);

    assert.deepEqual(await hub.runTool("openai-chat", { id: "c1", type: "function", function: { name: "code__add", arguments: '{"a":2,"b":3}' } }), { role: "tool", tool_call_id: "c1", content: "5" });
    assert.deepEqual(await hub.runTool("openai-responses", { type: "function_call", call_id: "c2", name: "ts__echo", arguments: '{"text":"yo"}' }), {
      type: "function_call_output",
      call_id: "c2",
      output: "yo",
    });
    const failed = await hub.runTool("anthropic", { type: "tool_use", id: "c3", name: "code__fail", input: {} });
    assert.equal(failed.type, "tool_result");
    assert.equal(failed.tool_use_id, "c3");
    assert.equal(failed.is_error, true);
    const img = { content: [{ type: "text", text: "a chart" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], isError: false };
    assert.deepEqual(toolResultFor("anthropic", img, "i").content[1], { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } });
    assert.equal(toolResultFor("openai-responses", img, "i").output[1].image_url, "data:image/png;base64,iVBORw0KGgo=");
    assert.equal(toolResultFor("openai-chat", img, "i").content, "a chart\n[image image/png]");
    assert.deepEqual(toolResultFor("ai-sdk", { content: [], structuredContent: { n: 1 } }), { type: "json", value: { n: 1 } });
    assert.deepEqual(toolResultFor("ai-sdk", { content: [{ type: "text", text: "bad" }], isError: true }), { type: "error-text", value: "bad" });
    assert.equal(toolResultFor("openai-chat", { content: [{ type: "text", text: "bad" }], isError: true }, "x").content, "Error: bad");
    assert.throws(() => hub.toolsFor("gemini"), TypeError);
  });

  test("an AI SDK generateText run with its mock model calls a tool through the hub while that server's list changes", async () => {
    const { generateText, stepCountIs } = await import("ai");
    const { MockLanguageModelV4 } = await import("ai/test");
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const calls = [];
    const model = new MockLanguageModelV4({
      doGenerate: async (opts) => {
        calls.push(opts);
        if (calls.length === 1) {
          // The list changes while the conversation runs: a tool appears on the TS server.
          ts.addTool("late", "Arrived during the run.");
          await waitFor(hub.tools, has("ts__late"));
          return { content: [{ type: "tool-call", toolCallId: "t1", toolName: "ts__echo", input: JSON.stringify({ text: "through the hub" }) }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
        }
        return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools: hub.toolsFor("ai-sdk"), prompt: "echo something", stopWhen: stepCountIs(3) });
    assert.equal(result.text, "done");
    const step1 = result.steps[0];
    assert.equal(step1.toolResults.length, 1);
    assert.equal(step1.toolResults[0].toolName, "ts__echo");
    assert.equal(step1.toolResults[0].output.content[0].text, "through the hub");
    // The model was offered the hub's tools in the first call.
    assert.ok(calls[0].tools.some((t) => t.name === "ts__echo"));
    // What went back to the model in the second call: the tool output as toModelOutput made it.
    const toolMsg = calls[1].prompt.find((m) => m.role === "tool");
    assert.deepEqual(toolMsg.content[0].output, { type: "text", value: "through the hub" });
    // The tools for the next run include the new one.
    assert.ok("ts__late" in hub.toolsFor("ai-sdk"));
    ts.removeTool("late");
    await waitFor(hub.tools, hasNot("ts__late"));
  });

  test("one server killed and restarted: its items stay, stale, the others are untouched; back to fresh", async () => {
    const port = new URL(ws.ws).port;
    const before = hub.tools.get();
    const others = before.items.filter((i) => i.server !== "code");
    await ws.stop();
    const down = await waitFor(hub.tools, (v) => of(v, "code").length > 0 && of(v, "code").every((i) => i.stale), 10000, "code's items stale");
    assert.equal(down.status, "stale");
    for (const i of others) assert.ok(down.items.includes(i), `${i.name} untouched`);
    assert.deepEqual(of(down, "code").map((i) => i.name).sort(), of(before, "code").map((i) => i.name).sort());
    await waitFor(hub.servers, (s) => s.find((e) => e.id === "code").status === "reconnecting");
    // The others still answer while one is down.
    assert.equal((await hub.callTool("ts__echo", { text: "still" })).content[0].text, "still");
    ws = await startServer(["-addr", `127.0.0.1:${port}`]);
    const up = await waitFor(hub.tools, (v) => of(v, "code").length > 0 && of(v, "code").every((i) => !i.stale), 15000, "code fresh again");
    assert.equal(up.status, "ready");
    await waitFor(hub.servers, (s) => s.find((e) => e.id === "code").status === "ready");
    // The restarted server has its initial list: what was added before is gone.
    assert.ok(!up.items.some((i) => i.name === "code__kept"));
    assert.equal((await hub.callTool("code__echo", { text: "back" })).content[0].text, "back");
  });
});

describe("hub: names option and approvals storage", () => {
  let server;
  before(async () => (server = await startServer()));
  after(() => server?.stop());

  test("names() replaces the default; a clash rejects add and names both items; a bad name is refused", async () => {
    const hub = createHub({ names: (id, name) => name });
    try {
      await hub.add("one", server.ws, FAST);
      assert.ok(hub.tools.get().items.some((i) => i.name === "echo"));
      const before = hub.tools.get();
      await assert.rejects(hub.add("two", server.mcp, FAST), (err) => /names gave "(\w+)" to the tool "\1" of "two" and to "\1" of "one"/.test(err.message));
      assert.equal(hub.tools.get(), before);
      assert.deepEqual(hub.servers.get().map((s) => s.id), ["one"]);
    } finally {
      await hub.close();
    }
    const bad = createHub({ names: (id, name) => `${id}.${name}` });
    try {
      await assert.rejects(bad.add("one", server.ws, FAST), /does not fit/);
    } finally {
      await bad.close();
    }
  });

  test("approvals are kept through the storage adapter, keyed by server URL and tool name", async () => {
    const area = new Map();
    globalThis.localStorage = { getItem: (k) => area.get(k) ?? null, setItem: (k, v) => area.set(k, String(v)), removeItem: (k) => area.delete(k) };
    try {
      const a = createHub({ approvals: localStorageApprovals() });
      await a.add("x", server.ws, FAST);
      a.approve("x__echo");
      await a.close();
      // Keyed by a hash: no URL (which may carry a token) in storage.
      assert.deepEqual([...area.keys()], [`mcplive-approval:${sha256(`mcplive-approval\n${server.ws}\necho`)}`]);
      // Another hub, another id, the same URL: the approval holds.
      const b = createHub({ approvals: localStorageApprovals() });
      await b.add("y", server.ws, FAST);
      assert.equal(b.tools.get().items.find((i) => i.name === "y__echo").approval, "approved");
      assert.equal(b.tools.get().items.find((i) => i.name === "y__add").approval, "none");
      await b.close();
    } finally {
      delete globalThis.localStorage;
    }
    const m = memoryApprovals();
    m.set("k", "v");
    assert.equal(m.get("k"), "v");
    assert.throws(() => createHub({ approvals: {} }), TypeError);
    assert.throws(() => createHub({ nope: 1 }), TypeError);
  });

  test("a closed hub: its items stale, its clients' lists stale and not live", async () => {
    const hub = createHub();
    const client = await hub.add("s", server.ws, FAST);
    assert.ok(hub.tools.get().items.every((i) => i.stale === false));
    await hub.close();
    const v = hub.tools.get();
    assert.equal(v.status, "stale");
    assert.ok(v.items.length > 0 && v.items.every((i) => i.stale === true), "every item stale");
    for (const k of ["tools", "prompts", "resources", "resourceTemplates"]) assert.equal(client[k].get().live, false, k);
    assert.deepEqual(hub.servers.get().map((s) => s.status), ["closed"]);
  });

  test("approvals of a URL with credentials keep none of them in storage; an approval kept under the old raw key is moved to the hashed one", async () => {
    const area = new Map();
    globalThis.localStorage = { getItem: (k) => area.get(k) ?? null, setItem: (k, v) => area.set(k, String(v)), removeItem: (k) => area.delete(k) };
    const secretUrl = `${server.ws}?access_token=SECRET-APPROVAL`;
    try {
      const a = createHub({ approvals: localStorageApprovals() });
      await a.add("x", secretUrl, FAST);
      a.approve("x__echo");
      assert.equal(a.tools.get().items.find((i) => i.name === "x__echo").approval, "approved");
      await a.close();
      assert.equal(area.size, 1);
      for (const [k, v] of area) assert.doesNotMatch(`${k} ${v}`, /SECRET|access_token|127\.0\.0\.1/);
      // A kept approval under the raw key (mcplive before this change) still holds, and moves.
      const fp = [...area.values()][0];
      area.clear();
      area.set(`mcplive-approval:${secretUrl} echo`, fp);
      const b = createHub({ approvals: localStorageApprovals() });
      await b.add("y", secretUrl, FAST);
      assert.equal(b.tools.get().items.find((i) => i.name === "y__echo").approval, "approved");
      await b.close();
      assert.deepEqual([...area.keys()].filter((k) => k.includes("SECRET")), []);
      assert.equal(area.size, 1);
    } finally {
      delete globalThis.localStorage;
    }
  });

  test("the hub's clients are ordinary clients of the one runtime", async () => {
    const hub = createHub();
    const client = await hub.add("s", server.mcp, FAST);
    const direct = await connect(server.ws);
    try {
      assert.equal(client.tools.get().items.length, direct.tools.get().items.length);
      assert.equal(hub.client("s"), client);
    } finally {
      await direct.close();
      await hub.close();
    }
  });
});

// Hub names depend only on the set of (server, name) pairs: a clash made by
// a server added later, or by a later list change, renames the items of
// both servers, in the same merged value, whatever the order.
describe("hub: names when a later server or a later change makes a clash", () => {
  let alpha, alphaX;
  before(async () => {
    [alpha, alphaX] = await Promise.all([startServer(), startServer()]);
  });
  after(() => Promise.all([alpha?.stop(), alphaX?.stop()]));

  /**
   * watched is a hub whose every tools value is checked as it is set: each
   * shown name resolves back to its own server and server name. bad lists
   * the names that did not.
   */
  function watched() {
    const hub = createHub();
    const bad = [];
    const versions = [];
    const off = hub.tools.subscribe((v) => {
      versions.push(v.version);
      for (const i of v.items) {
        const r = hub.resolve(i.name);
        if (r?.server !== i.server || r?.name !== i.serverName) bad.push(`${i.name} (${i.server} ${i.serverName}) resolves to ${JSON.stringify(r)} at version ${v.version}`);
      }
    });
    const events = [];
    const offEv = hub.on("change", (e) => e.kind === "tools" && events.push(e));
    return { hub, bad, events, versions, close: () => (off(), offEv(), hub.close()) };
  }

  const shown = (hub) => new Map(hub.tools.get().items.map((i) => [`${i.server} ${i.serverName}`, i.name]));
  const clashing = (v, pairs) => pairs.every(([s, n]) => v.items.some((i) => i.server === s && i.serverName === n && /_[0-9a-f]{8}$/.test(i.name)));

  test("added in either order: both items suffixed at once, the same names in both hubs, every shown name resolved and callable", async () => {
    await Promise.all([alpha.control("add-tool", { name: "x__y" }), alphaX.control("add-tool", { name: "y" })]);
    const one = watched();
    const two = watched();
    try {
      await one.hub.add("alpha", alpha.ws, FAST);
      assert.equal(shown(one.hub).get("alpha x__y"), "alpha__x__y", "alone, the plain name");
      await one.hub.add("alpha__x", alphaX.mcp, FAST);
      await two.hub.add("alpha__x", alphaX.mcp, FAST);
      await two.hub.add("alpha", alpha.ws, FAST);
      const pairs = [["alpha", "x__y"], ["alpha__x", "y"]];
      for (const w of [one, two]) assert.ok(clashing(w.hub.tools.get(), pairs), JSON.stringify([...shown(w.hub)]));
      assert.deepEqual([...shown(one.hub)].sort(), [...shown(two.hub)].sort(), "the same names in both hubs");
      assert.notEqual(shown(one.hub).get("alpha x__y"), shown(one.hub).get("alpha__x y"));
      assert.equal(one.hub.resolve("alpha__x__y"), undefined, "the plain name is nobody's");
      // The rename is a change of alpha's segment, at the version of the
      // clash: in hub names (the events' identity), the old name removed
      // and the new one added.
      const clash = one.events.find((e) => e.server === "alpha__x" && e.added.length);
      const rename = one.events.find((e) => e.server === "alpha" && e.removed.some((i) => i.name === "alpha__x__y"));
      assert.ok(rename, JSON.stringify(one.events.map((e) => [e.server, e.version, e.added.map((i) => i.name), e.removed.map((i) => i.name)])));
      assert.equal(rename.version, clash.version);
      assert.deepEqual(rename.added.map((i) => [i.name, i.serverName]), [[shown(one.hub).get("alpha x__y"), "x__y"]]);
      for (const w of [one, two]) {
        for (const [key, name] of shown(w.hub)) {
          if (!["alpha x__y", "alpha__x y"].includes(key)) continue;
          const r = await w.hub.callTool(name, { text: key });
          assert.ok(!r.isError, `${name}: ${JSON.stringify(r)}`);
        }
      }
      // Removed and added again: the same names; removal gives alpha its plain name back.
      const before = shown(one.hub);
      await one.hub.remove("alpha__x");
      assert.equal(shown(one.hub).get("alpha x__y"), "alpha__x__y");
      await one.hub.add("alpha__x", alphaX.mcp, FAST);
      assert.deepEqual([...shown(one.hub)].sort(), [...before].sort());
      for (const w of [one, two]) assert.deepEqual(w.bad, []);
    } finally {
      await Promise.all([one.close(), two.close()]);
      await Promise.all([alpha.control("remove-tool", { name: "x__y" }), alphaX.control("remove-tool", { name: "y" })]);
    }
  });

  test("made by later list changes in either order: the same names, never a name that resolve does not map back", async () => {
    const w = watched();
    const pairs = [["alpha", "x__z"], ["alpha__x", "z"]];
    try {
      await w.hub.add("alpha", alpha.ws, FAST);
      await w.hub.add("alpha__x", alphaX.mcp, FAST);
      // alpha__x first, then alpha.
      await alphaX.control("add-tool", { name: "z" });
      await waitFor(w.hub.tools, (v) => v.items.some((i) => i.name === "alpha__x__z"));
      await alpha.control("add-tool", { name: "x__z" });
      const first = shown(await waitFor(w.hub.tools, (v) => clashing(v, pairs)) && w.hub);
      await Promise.all([alpha.control("remove-tool", { name: "x__z" }), alphaX.control("remove-tool", { name: "z" })]);
      await waitFor(w.hub.tools, (v) => !v.items.some((i) => ["x__z", "z"].includes(i.serverName)));
      // alpha first, then alpha__x.
      await alpha.control("add-tool", { name: "x__z" });
      await waitFor(w.hub.tools, (v) => v.items.some((i) => i.name === "alpha__x__z" && i.server === "alpha"));
      await alphaX.control("add-tool", { name: "z" });
      const second = shown(await waitFor(w.hub.tools, (v) => clashing(v, pairs)) && w.hub);
      for (const key of ["alpha x__z", "alpha__x z"]) assert.equal(second.get(key), first.get(key), key);
      assert.deepEqual(w.bad, []);
      // Every value was checked: the versions only grew.
      assert.ok(w.versions.every((v, i) => i === 0 || v >= w.versions[i - 1]));
    } finally {
      await w.close();
      await Promise.all([alpha.control("remove-tool", { name: "x__z" }), alphaX.control("remove-tool", { name: "z" })]);
    }
  });
});
