// bench/node.mjs: the change → list workload in Node 22 (where agents run
// MCP clients), mcplive's npm package (the real wasm) side by side with the
// TypeScript SDK 1.x re-listing every page on every notification, in one
// process, over WebSocket (2025-11-25), alternating batches. run.mjs starts
// it with a Node 22 binary (the "node" section) against a bench server whose
// pages are small, and reads one JSON line from its stdout:
//   { negotiated: {key: version}, latency: {key: {e2e: [ms], notified: [ms],
//     cpu: [ms of the process's CPU time per change, one per batch]}} }
//
//   node node.mjs --server=http://127.0.0.1:port --js=<package dir>
//                 --tools=105 --samples=200 --batch=25 --warmup=10
//                 [--floor=<floor.wasm>]
//
// --floor adds the floor client: bench/floor's wasm (Go's runtime and
// coder/websocket carry the bytes, JS parses each page; no library), the
// least a Go wasm client on these parts pays.
//
// As in the browser pages (pages/harness.js): a change is timed from just
// before the control request that makes it, and from the arrival of its
// notifications/tools/list_changed frame (a message listener registered in
// the WebSocket constructor, before the client's own), until the
// application's list holds the new tool.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { listEveryPage } from "./pages/relist.js";
import { connectFloor } from "./pages/floor.js";

const arg = (name, dflt) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const SERVER = arg("server");
const JS_DIR = arg("js");
const TOOLS = Number(arg("tools", 105));
const SAMPLES = Number(arg("samples", 200));
const BATCH = Number(arg("batch", 25));
const WARMUP = Number(arg("warmup", 10));
const FLOOR = arg("floor");
if (!SERVER || !JS_DIR) throw new Error("usage: node node.mjs --server=URL --js=DIR [--tools= --samples= --batch= --warmup=]");

// The arrival of each list_changed frame, per WebSocket URL label.
const arrived = new Map();
const NOTE = '"notifications/tools/list_changed"';
const NativeWebSocket = globalThis.WebSocket;
globalThis.WebSocket = class WebSocket extends NativeWebSocket {
  constructor(url, ...rest) {
    super(url, ...rest);
    const label = new URL(url).searchParams.get("label");
    this.addEventListener("message", (e) => {
      if (typeof e.data === "string" && e.data.length < 200 && e.data.includes(NOTE)) arrived.set(label, performance.now());
    });
  }
};

async function control(op, body = {}) {
  const res = await fetch(`${SERVER}/control/${op}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`control ${op}: ${res.status} ${await res.text()}`);
  return res.json();
}

// An app: the list it shows and who waits for a tool to appear in it.
function newApp() {
  const app = { items: [], waiting: null };
  app.setList = (items) => {
    const t = performance.now();
    app.items = items;
    if (app.waiting && items.some((x) => x.name === app.waiting.name)) {
      const w = app.waiting;
      app.waiting = null;
      w.resolve(t);
    }
  };
  app.waitFor = (name) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for tool ${name}`)), 10000);
      app.waiting = { name, resolve: (t) => (clearTimeout(timer), resolve(t)) };
    });
  return app;
}

// The clients, as a user writes them.
const clients = {
  async mcplive(url, app) {
    const { connect } = await import(pathToFileURL(path.join(JS_DIR, "index.js")).href);
    const client = await connect(url, { clientInfo: { name: "mcplive-bench", version: "1.0.0" } });
    client.tools.subscribe(({ items }) => app.setList(items));
    return { close: () => client.close(), version: client.protocolVersion };
  },
  async "ts-relist"(url, app) {
    const client = new Client({ name: "ts-sdk-bench", version: "1.0.0" });
    const listAll = () => listEveryPage(client);
    let started = 0, applied = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      const seq = ++started;
      const tools = await listAll();
      if (seq > applied) {
        applied = seq;
        app.setList(tools);
      }
    });
    const transport = new WebSocketClientTransport(new URL(url));
    let version = null;
    const set = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (v) => ((version = v), set?.(v));
    await client.connect(transport);
    app.setList(await listAll());
    return { close: () => client.close(), version };
  },
  // The floor (bench/floor/main.go; one per process), as pages/floor.html.
  async floor(url, app) {
    const dial = await import(pathToFileURL(path.join(JS_DIR, "src", "dial.js")).href);
    await import(pathToFileURL(path.join(JS_DIR, "wasm_exec.js")).href);
    const instantiate = async (imports) => (await WebAssembly.instantiate(fs.readFileSync(FLOOR), imports)).instance;
    return connectFloor(url, app, dial, instantiate);
  },
};
if (!FLOOR) delete clients.floor;

async function main() {
  await control("set-tools", { n: TOOLS });
  const ws = SERVER.replace(/^http/, "ws");
  const open = {};
  const out = {};
  const negotiated = {};
  for (const key of Object.keys(clients)) {
    const label = `node-${key}`;
    const app = newApp();
    const c = await clients[key](`${ws}/mcp?label=${label}&era=2025-11-25`, app);
    if (app.items.length !== TOOLS) throw new Error(`${key}: ${app.items.length} tools after connect, want ${TOOLS}`);
    open[key] = { label, app, c, prev: "" };
    out[key] = { e2e: [], notified: [], cpu: [] };
    negotiated[key] = c.version ?? null;
  }
  const run = async (key, n, record) => {
    const o = open[key];
    // The process's CPU time (user + system) over the batch, per change:
    // only this client works meanwhile (the batches alternate), so it is
    // this client's cost of a change plus the control request's, the same
    // for every client. Less moved by the host's load than the latency.
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const name = `${o.label}-${record ? "s" : "w"}-${out[key].e2e.length}-${i}`;
      const seen = o.app.waitFor(name);
      arrived.delete(o.label);
      const t0 = performance.now();
      await control("add", { name, remove: o.prev, target: o.label });
      o.prev = name;
      const t = await seen;
      if (!record) continue;
      out[key].e2e.push(t - t0);
      out[key].notified.push(arrived.has(o.label) ? t - arrived.get(o.label) : NaN);
    }
    if (record) {
      const u = process.cpuUsage(cpu0);
      out[key].cpu.push((u.user + u.system) / 1000 / n);
    }
  };
  const keys = Object.keys(clients);
  for (const k of keys) await run(k, WARMUP, false);
  for (let r = 0; r < Math.ceil(SAMPLES / BATCH); r++) {
    for (let i = 0; i < keys.length; i++) await run(keys[(i + r) % keys.length], BATCH, true);
  }
  for (const o of Object.values(open)) await o.c.close();
  process.stdout.write(JSON.stringify({ node: process.version, negotiated, latency: out }) + "\n");
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error("node bench:", e.stack || e);
    process.exit(1);
  },
);
