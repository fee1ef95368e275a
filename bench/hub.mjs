// The hub benchmark (issue 30), in Node with the real wasm: SERVERS go-sdk
// test servers (internal/cmd/mcplive-testserver) of TOOLS tools each, in one
// hub; one change on one server → the merged store updated, against the same
// change in a hub of one server; memory per added server.
//
//   node --expose-gc --experimental-websocket hub.mjs [--servers 20] [--tools 500] [--runs 30]
//
// ./build.sh bench runs it (the test server binary is built there). Prints a
// markdown table.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { createHub } from "../js/index.js";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const SERVERS = arg("servers", 20);
const TOOLS = arg("tools", 500);
const RUNS = arg("runs", 30);

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, "bench", ".bin", "mcplive-testserver");
const built = spawnSync("go", ["build", "-o", bin, "./internal/cmd/mcplive-testserver"], { cwd: root, stdio: "inherit" });
if (built.status !== 0) process.exit(1);

async function startServer() {
  const proc = spawn(bin, ["-page-size", String(TOOLS + 10)], { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise((resolve) => createInterface({ input: proc.stdout }).once("line", resolve));
  const { http, ws } = JSON.parse(line);
  const control = async (op, body = {}) => {
    const res = await fetch(`${http}/control/${op}`, { method: "POST", body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`control ${op}: ${res.status}`);
  };
  await control("add-tools", { name: "tool", count: TOOLS - 4, description: "A tool of the benchmark." }); // + echo, add, fail, slow
  return { ws, control, stop: () => proc.stdin.end() };
}

const gc = () => globalThis.gc?.();
const mem = () => {
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers, rss: m.rss };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

function waitFor(store, pred) {
  return new Promise((resolve) => {
    const off = store.subscribe((v) => pred(v) && (queueMicrotask(() => off()), resolve(v)));
  });
}

/** measure runs RUNS changes on server s of hub: end to end (control → merged store) and the hub's own work. */
async function measure(hub, s, id) {
  const e2e = [];
  const work = [];
  let recreated = 0;
  let maxRecreated = 0;
  for (let i = 0; i < RUNS; i++) {
    const name = `${id}__bench${i}`;
    const before = hub.tools.get();
    const t0 = performance.now();
    const arrived = waitFor(hub.tools, (v) => v.items.some((t) => t.name === name));
    await s.control("add-tool", { name: `bench${i}`, description: "added" });
    const after = await arrived;
    e2e.push(performance.now() - t0);
    const kept = new Set(before.items);
    const fresh = after.items.filter((t) => !kept.has(t)).length;
    recreated += fresh;
    maxRecreated = Math.max(maxRecreated, fresh);
    // The hub's work for one server's change, synchronous: approve()
    // re-syncs that server's list (every item looked at, one re-created)
    // and rebuilds the merged store.
    const t1 = performance.now();
    hub.approve(name);
    work.push(performance.now() - t1);
  }
  return { e2e, work, recreated: recreated / RUNS, maxRecreated, items: hub.tools.get().items.length };
}

const servers = await Promise.all(Array.from({ length: SERVERS }, startServer));

// Warm the runtime (wasm load) with one hub of one server, then measure it.
const one = createHub();
await one.add("s0", servers[0].ws, { maxMessageBytes: 64 << 20 });
const single = await measure(one, servers[0], "s0");
await one.close();

const hub = createHub();
const adds = [];
let prev = mem();
for (let i = 0; i < SERVERS; i++) {
  const t0 = performance.now();
  await hub.add(`s${i}`, servers[i].ws, { maxMessageBytes: 64 << 20 });
  const ms = performance.now() - t0;
  const now = mem();
  adds.push({ ms, heap: now.heap - prev.heap, buffers: now.buffers - prev.buffers, rss: now.rss - prev.rss });
  prev = now;
}
const many = await measure(hub, servers[SERVERS - 1], `s${SERVERS - 1}`);
await hub.close();
for (const s of servers) s.stop();

const f = (x) => x.toFixed(2);
const mb = (x) => (x / 1048576).toFixed(2);
const rest = adds.slice(1); // the first add also warms the hub's code
const avg = (k) => rest.reduce((a, x) => a + x[k], 0) / rest.length;
console.log(`\n### Hub: ${SERVERS} servers × ${TOOLS} tools (Node ${process.version}, real wasm, WebSocket, ${RUNS} changes each)\n`);
console.log("| one change (a tool added) on one server | hub of 1 server | hub of " + SERVERS + " servers |");
console.log("|---|---|---|");
console.log(`| tools in the merged store | ${single.items} | ${many.items} |`);
console.log(`| control request → merged store updated, median (p95) ms | ${f(median(single.e2e))} (${f(p95(single.e2e))}) | ${f(median(many.e2e))} (${f(p95(many.e2e))}) |`);
console.log(`| the hub's own work for it (re-sync of that server + merged store), median (p95) ms | ${f(median(single.work))} (${f(p95(single.work))}) | ${f(median(many.work))} (${f(p95(many.work))}) |`);
console.log(`| merged items re-created per change, mean (max) | ${single.recreated} (${single.maxRecreated}) | ${many.recreated} (${many.maxRecreated}) |`);
console.log(`\n| per added server (${TOOLS} tools; mean of servers 2…${SERVERS}) | value |`);
console.log("|---|---|");
console.log(`| hub.add → resolved (connect + first sync + merge), ms | ${f(avg("ms"))} |`);
console.log(`| JS heap, MB | ${mb(avg("heap"))} |`);
console.log(`| RSS (JS heap + the wasm's linear memory + the rest), MB | ${mb(avg("rss"))} |`);
if (!globalThis.gc) console.log("\n(run with --expose-gc for steadier memory numbers)");
process.exit(0);
