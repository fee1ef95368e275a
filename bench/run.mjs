// bench/run.mjs: mcplive side by side with the official TypeScript SDK client
// (@modelcontextprotocol/sdk, Client + WebSocketClientTransport), in one
// headless Chromium session, against one go-sdk server (bench/server), on
// the same workloads, alternating between the clients.
//
//   node run.mjs            the full benchmark (a few minutes); writes
//                           results/<date>.json and results/latest.md
//   node run.mjs --smoke    the same code on a tiny workload (CI: under a
//                           minute); writes nothing, fails on any error
//
// Environment: CHROMIUM (default /usr/bin/chromium); GO (default go).
// Needs js/mcplive.wasm and js/wasm_exec.js (./build.sh builds them) and the
// npm package's own files in js/.
import { chromium } from "playwright-core";
import * as esbuild from "esbuild";
import { spawn, execFileSync } from "node:child_process";
import { createInterface } from "node:readline";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH);
const JS = path.join(ROOT, "js");
const SMOKE = process.argv.includes("--smoke");
// --only=latency,burst,big,cold,memory runs a subset (while working on one).
const ONLY = (process.argv.find((a) => a.startsWith("--only=")) ?? "").slice("--only=".length).split(",").filter(Boolean);
const want = (w) => ONLY.length === 0 || ONLY.includes(w);

// Workload sizes. The full ones follow issue 7; the smoke ones only keep the
// code running.
const CFG = SMOKE
  ? {
      latency: { base: 20, samples: 4, batch: 2, warmup: 1 },
      burst: { k: 40, m: 10, runs: 1 },
      big: { n: 250, samples: 2, batch: 1, warmup: 1 },
      cold: { samples: 1, base: 20 },
      memory: { total: 100, batch: 50, m: 20 },
    }
  : {
      latency: { base: 20, samples: 200, batch: 25, warmup: 10 },
      burst: { k: 1000, m: 50, runs: 7 },
      big: { n: 10000, samples: 20, batch: 5, warmup: 2 },
      cold: { samples: 12, base: 20 },
      memory: { total: 10000, batch: 100, m: 100 },
    };

const CLIENTS = [
  { id: "mcplive", page: "mcplive.html" },
  { id: "ts-auto", page: "ts.html?mode=auto" },
  { id: "ts-relist", page: "ts.html?mode=relist" },
];

const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
];

const LOAD_AT_START = os.loadavg();
const log = (...a) => console.error("bench:", ...a);

// ---------- statistics ----------

function stats(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]; // nearest rank
  return {
    n: s.length,
    median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2,
    p95: q(0.95),
    min: s[0],
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

// BROTLI_QUALITY is 11, as build.sh measures the wasm; the smoke run takes
// 5 (quality 11 on the 6 MB wasm takes ~10 s on a busy machine).
const BROTLI_QUALITY = SMOKE ? 5 : 11;

function brotli(buf) {
  return zlib.brotliCompressSync(buf, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
  }).length;
}

// ---------- setup ----------

function mcpliveMissing() {
  const need = ["package.json", "mcplive.wasm", "wasm_exec.js"];
  const pkg = fs.existsSync(path.join(JS, "package.json")) ? JSON.parse(fs.readFileSync(path.join(JS, "package.json"), "utf8")) : {};
  const entry = (pkg.exports?.["."]?.default ?? pkg.main ?? "index.js").replace(/^\.\//, "");
  need.push(entry);
  return need.filter((f) => !fs.existsSync(path.join(JS, f)));
}

async function bundleTS() {
  const outfile = path.join(BENCH, "dist", "ts-sdk.js");
  await esbuild.build({
    entryPoints: [path.join(BENCH, "src", "ts-sdk.js")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

async function startServer() {
  const bin = path.join(BENCH, ".bin", "bench-server");
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  execFileSync(process.env.GO || "go", ["build", "-o", bin, "./bench/server"], { cwd: ROOT, stdio: "inherit" });
  const proc = spawn(bin, ["-js", JS, "-pages", path.join(BENCH, "pages"), "-dist", path.join(BENCH, "dist")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const rl = createInterface({ input: proc.stdout });
  const line = await new Promise((resolve, reject) => {
    rl.once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  rl.on("line", (l) => log("server:", l));
  const { url } = JSON.parse(line);
  return { proc, url };
}

// ---------- pages ----------

let server; // { url }
let browser;

async function control(op, body = {}) {
  const res = await fetch(`${server.url}/control/${op}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${op}: ${res.status} ${await res.text()}`);
  return res.json();
}

let labels = 0;

// open loads a client's page in a fresh browser context (its own renderer,
// no cache) and waits for its first synced list.
async function open(client, { track } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const label = `${client.id}-${++labels}`;
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  page.on("console", (m) => {
    if (m.type() === "error") log(`[${label}] console: ${m.text()}`);
  });
  const urls = [];
  if (track) page.on("response", (r) => urls.push(r.url()));
  const sep = client.page.includes("?") ? "&" : "?";
  await page.goto(`${server.url}/pages/${client.page}${sep}label=${label}`);
  try {
    await page.waitForFunction(() => globalThis.bench?.ready, null, { timeout: 60000 });
    const ready = await page.evaluate(() => globalThis.bench.ready);
    return { client, context, page, label, ready, urls, errors };
  } catch (e) {
    await context.close();
    throw new Error(`${client.id}: page did not connect: ${errors.map(String).join("; ") || e.message}`);
  }
}

async function closeSession(s) {
  await s.page.evaluate(() => globalThis.bench.close()).catch(() => {});
  await s.context.close();
}

// alternate runs fn for each client, round after round, rotating who goes
// first, so that drift of the machine spreads over all clients alike.
async function alternate(clients, rounds, fn) {
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < clients.length; i++) await fn(clients[(i + r) % clients.length], r);
  }
}

async function heap(s) {
  const cdp = await s.context.newCDPSession(s.page);
  await cdp.send("HeapProfiler.enable");
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  const { wasm, items } = await s.page.evaluate(() => globalThis.bench.memory());
  await cdp.detach();
  return { js: usedSize, wasm, total: usedSize + wasm, items };
}

// ---------- workloads ----------

const results = {};
const failures = [];

function failed(workload, client, e) {
  const msg = `${workload} / ${client}: ${e.message ?? e}`;
  log("FAILED", msg);
  failures.push(msg);
  return msg;
}

async function workloadLatency(clients) {
  const { base, samples, batch, warmup } = CFG.latency;
  log(`1. change → list latency: ${samples} samples per client, list of ${base} tools`);
  await control("set-tools", { n: base });
  const sessions = {};
  for (const c of clients) sessions[c.id] = await open(c);
  let out;
  try {
    out = await changes("latency", clients, sessions, { samples, batch, warmup, timeoutMs: 10000 });
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }
  results.latency = { base, ...out };
}

// changes times single changes (bench.latency), warm-up first, then
// alternating batches; per client: e2e and notified samples and their stats.
async function changes(workload, clients, sessions, { samples, batch, warmup, timeoutMs }) {
  const out = Object.fromEntries(clients.map((c) => [c.id, { e2e: [], notified: [] }]));
  const run = (c, n, prefix) =>
    sessions[c.id].page.evaluate(([n, p, t]) => bench.latency(n, p, t), [n, prefix, timeoutMs]);
  for (const c of clients) await run(c, warmup, `warm-${c.id}-${labels}`);
  await alternate(clients, Math.ceil(samples / batch), async (c, r) => {
    if (out[c.id].error) return;
    try {
      const { e2e, notified } = await run(c, batch, `${workload.split(" ")[0]}-${c.id}-${labels}-${r}`);
      out[c.id].e2e.push(...e2e);
      out[c.id].notified.push(...notified);
    } catch (e) {
      out[c.id].error = failed(workload, c.id, e);
    }
  });
  for (const o of Object.values(out)) {
    o.stats = stats(o.e2e);
    o.notifiedStats = stats(o.notified);
  }
  return out;
}

async function workloadBurst(clients) {
  const { k, m, runs } = CFG.burst;
  log(`2. burst of ${k} changes on a list of ${m} tools: ${runs} runs per client`);
  await control("set-tools", { n: m });
  const sessions = {};
  for (const c of clients) sessions[c.id] = await open(c);
  const out = Object.fromEntries(clients.map((c) => [c.id, { ms: [], lists: [], e2e: [], changeMs: [], notifyMs: [] }]));
  try {
    for (const c of clients) {
      await sessions[c.id].page.evaluate(([k, m, t]) => bench.burst(k, m, m, t), [Math.min(k, 50), m, `warm-${c.id}`]);
    }
    await alternate(clients, runs, async (c, r) => {
      if (out[c.id].error) return;
      try {
        const res = await sessions[c.id].page.evaluate(([k, m, t]) => bench.burst(k, m, m, t), [k, m, `b${r}-${c.id}`]);
        out[c.id].ms.push(res.ms);
        for (const k of ["lists", "e2e", "changeMs", "notifyMs"]) out[c.id][k].push(res[k]);
      } catch (e) {
        out[c.id].error = failed("burst", c.id, e);
      }
    });
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }
  for (const o of Object.values(out)) {
    o.stats = stats(o.ms);
    o.listStats = stats(o.lists);
    o.e2eStats = stats(o.e2e);
    o.notifyMsStats = stats(o.notifyMs);
  }
  results.burst = { k, m, ...out };
}

async function workloadBig(clients) {
  const { n, samples, batch, warmup } = CFG.big;
  log(`3. big list: ${n} tools in pages of 100, ${samples} changes per client`);
  await control("set-tools", { n });
  const walking = clients.filter((c) => c.id !== "ts-auto");
  const sessions = {};
  let out;
  try {
    for (const c of walking) sessions[c.id] = await open(c);
    out = await changes("big list", walking, sessions, { samples, batch, warmup, timeoutMs: 60000 });
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }

  // The SDK's auto-refresh calls listTools() once: show what its
  // application sees after one change instead of timing it.
  const auto = clients.find((c) => c.id === "ts-auto");
  if (auto) {
    const s = await open(auto);
    try {
      await s.page.evaluate(() => bench.latency(1, "big-auto", 10000));
      const after = await s.page.evaluate(() => bench.count);
      const { tools } = await control("counts");
      out[auto.id] = {
        itemsAfterChange: after,
        serverTools: tools,
        note: `its list holds ${after.toLocaleString("en")} of the server's ${tools.toLocaleString("en")} tools after a change (it lists the first page only)`,
      };
    } catch (e) {
      out[auto.id] = { error: failed("big list", auto.id, e) };
    } finally {
      await closeSession(s);
    }
  }
  results.big = { n, ...out };
}

async function workloadCold(clients) {
  const { samples, base } = CFG.cold;
  log(`4. cold start: ${samples} page loads per client`);
  await control("set-tools", { n: base });
  const out = Object.fromEntries(clients.map((c) => [c.id, { samples: [], files: null }]));
  await alternate(clients, samples, async (c) => {
    if (out[c.id].error) return;
    try {
      const s = await open(c, { track: !out[c.id].files });
      out[c.id].samples.push(s.ready.firstList);
      if (!out[c.id].files) out[c.id].files = s.urls;
      await closeSession(s);
    } catch (e) {
      out[c.id].error = failed("cold start", c.id, e);
    }
  });
  for (const o of Object.values(out)) {
    o.stats = stats(o.samples);
    o.bytes = o.files ? shipped(o.files) : null;
    delete o.files;
  }
  results.cold = { base, ...out };
}

// shipped adds up the client library files a page downloaded (not the page
// and the harness): raw (as served; the TS bundle is minified) and brotli.
function shipped(urls) {
  const files = [];
  for (const u of new Set(urls)) {
    const p = new URL(u).pathname;
    let f;
    if (p.startsWith("/mcplive/")) f = path.join(JS, p.slice("/mcplive/".length));
    else if (p.startsWith("/dist/")) f = path.join(BENCH, "dist", p.slice("/dist/".length));
    else continue;
    const b = fs.readFileSync(f);
    files.push({ file: path.relative(ROOT, f), raw: b.length, brotli: brotli(b) });
  }
  const sum = (k) => files.reduce((a, x) => a + x[k], 0);
  return { raw: sum("raw"), brotli: sum("brotli"), files };
}

async function workloadMemory(clients) {
  const { total, batch, m } = CFG.memory;
  log(`5. memory after ${total} changes (bursts of ${batch} on ${m} tools)`);
  await control("set-tools", { n: m });
  const out = {};
  await alternate(clients, 1, async (c) => {
    try {
      const s = await open(c);
      try {
        const before = await heap(s);
        const ms = await s.page.evaluate(([t, b, m, tag]) => bench.churn(t, b, m, m, tag), [total, batch, m, `mem-${c.id}`]);
        out[c.id] = { before, after: await heap(s), ms };
      } finally {
        await closeSession(s);
      }
    } catch (e) {
      out[c.id] = { error: failed("memory", c.id, e) };
    }
  });
  results.memory = { total, batch, m, ...out };
}

// ---------- report ----------

const fmtMs = (x) => (x == null ? "–" : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const fmtB = (b) => (b >= 1e6 ? (b / 1e6).toFixed(2) + " MB" : (b / 1e3).toFixed(1) + " KB");
const ratio = (a, b) => {
  if (a == null || b == null || b === 0) return "–";
  const r = a / b;
  return (r >= 10 ? r.toFixed(0) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(2)) + "×";
};
const msCell = (o) => (o?.error ? "failed" : o?.stats ? `${fmtMs(o.stats.median)} / ${fmtMs(o.stats.p95)}` : "–");

function table(ids) {
  const has = (id) => ids.includes(id);
  const rows = [];
  const row = (name, cell, val) => {
    const v = (id) => (has(id) ? val(id) : null);
    rows.push([
      name,
      ...["mcplive", "ts-auto", "ts-relist"].map((id) => (has(id) ? cell(id) : "–")),
      ratio(v("mcplive"), v("ts-auto")),
      ratio(v("mcplive"), v("ts-relist")),
    ]);
  };
  const L = results.latency, B = results.burst, G = results.big, C = results.cold, M = results.memory;
  if (L) {
    const n = Math.min(...ids.map((id) => L[id]?.stats?.n ?? 0));
    const nl = (id) => ({ error: L[id]?.error, stats: L[id]?.notifiedStats });
    row(`1. change → list, ms, from the list_changed frame's arrival in the page (median / p95; ${n} samples each)`, (id) => msCell(nl(id)), (id) => L[id]?.notifiedStats?.median);
    row("1. change → list, ms, from the page's change request (adds one loopback HTTP request)", (id) => msCell(L[id]), (id) => L[id]?.stats?.median);
  }
  if (B) {
    row(`2. burst of ${B.k}: tools/list requests (median)`, (id) => (B[id]?.error ? "failed" : B[id]?.listStats ? String(B[id].listStats.median) : "–"), (id) => B[id]?.listStats?.median);
    row(`2. burst of ${B.k}: ms from the first notification until the final list (median / p95)`, (id) => msCell(B[id]), (id) => B[id]?.stats?.median);
  }
  if (G) {
    const nl = (id) => ({ error: G[id]?.error, stats: G[id]?.notifiedStats });
    row(`3. ${G.n.toLocaleString("en")} tools, pages of 100: change → full list, ms (median / p95)`, (id) => (G[id]?.note ? `n/a: ${G[id].note}` : msCell(nl(id))), (id) => G[id]?.notifiedStats?.median);
  }
  if (C) {
    row("4. cold start: page load → first synced list, ms (median / p95)", (id) => msCell(C[id]), (id) => C[id]?.stats?.median);
    row(`4. bytes shipped, brotli -q ${BROTLI_QUALITY} (raw)`, (id) => (C[id]?.bytes ? `${fmtB(C[id].bytes.brotli)} (${fmtB(C[id].bytes.raw)})` : "–"), (id) => C[id]?.bytes?.brotli);
  }
  if (M) {
    row(`5. memory after ${M.total.toLocaleString("en")} changes: JS heap + wasm memory`, (id) => {
      const a = M[id]?.after;
      if (M[id]?.error) return "failed";
      if (!a) return "–";
      return a.wasm ? `${fmtB(a.total)} (JS ${fmtB(a.js)} + wasm ${fmtB(a.wasm)})` : fmtB(a.total);
    }, (id) => M[id]?.after?.total);
  }
  const head = ["workload", "mcplive", "TS SDK, auto-refresh (default)", "TS SDK, re-list every notification", "mcplive / TS auto", "mcplive / TS re-list"];
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

// aims checks the targets of issue 7 (measured, never asserted).
function aims() {
  const L = results.latency, B = results.burst, G = results.big;
  const med = (o) => o?.stats?.median;
  const lines = [];
  const aim = (text, ok, got) => lines.push(`- ${ok == null ? "not measured" : ok ? "met" : "missed"}: ${text} (${got})`);
  if (L) {
    // The frame's arrival is the closest the page can see to "the server
    // adds one tool"; the request-based times are shown alongside.
    const nm = (id) => L[id]?.notifiedStats?.median;
    const r = nm("mcplive") / nm("ts-relist"), re = med(L.mcplive) / med(L["ts-relist"]);
    aim("change → list at most 1.1× the TS SDK's re-list-on-every-notification mode", r ? r <= 1.1 : null, `${r?.toFixed(2)}× from the frame's arrival; ${re?.toFixed(2)}× from the change request`);
    const f = nm("ts-auto") / nm("mcplive"), fe = med(L["ts-auto"]) / med(L.mcplive);
    aim("change → list at least 50× faster than the TS SDK's default auto-refresh", f ? f >= 50 : null, `${f?.toFixed(0)}× faster from the frame's arrival; ${fe?.toFixed(0)}× from the change request`);
  }
  if (B) {
    const w = B.mcplive?.listStats?.max;
    aim(`a burst of ${B.k} in at most 3 list walks`, w == null ? null : w <= 3, `at most ${w} in ${B.mcplive?.lists?.length ?? 0} runs`);
    const m = med(B.mcplive), a = med(B["ts-auto"]), r = med(B["ts-relist"]);
    aim("the burst converges sooner than both TS SDK modes", m == null ? null : m < a && m < r, `${fmtMs(m)} ms vs ${fmtMs(a)} and ${fmtMs(r)} ms`);
  }
  if (G) {
    const r = G.mcplive?.notifiedStats?.median / G["ts-relist"]?.notifiedStats?.median;
    aim(`the big list at most 1.0× the TS SDK's time`, r ? r <= 1.0 : null, `${r?.toFixed(2)}×`);
  }
  return lines;
}

function markdown(meta, ids) {
  const v = meta.versions;
  const B = results.burst, M = results.memory, G = results.big;
  return [
    `Run of ${meta.date.slice(0, 16).replace("T", " ")} UTC on ${meta.machine.cpuModel} (${meta.machine.cpus} cores, ${(meta.machine.memory / 2 ** 30).toFixed(0)} GiB, ${meta.machine.platform} ${meta.machine.release}): ` +
      `Chromium ${v.chromium} headless, Go ${v.go}, Node ${v.node}, @modelcontextprotocol/sdk ${v.sdk}, mcplive ${v.mcplive}; ` +
      `server: go-sdk ${v.goSdk} over WebSocket on loopback; 1-minute load average ${meta.machine.loadavgAtStart[0].toFixed(1)} at start, ${meta.machine.loadavgAtEnd[0].toFixed(1)} at the end. Cells: median / p95. Ratio: mcplive / TS SDK on the medians (below 1: mcplive is faster or smaller).`,
    "",
    table(ids),
    "",
    "How it is measured (bench/run.mjs, bench/server, bench/pages):",
    "- Every client runs in its own browser context of one headless Chromium and renders nothing; \"its list\" is what the application code receives: mcplive's `client.tools.subscribe`, the TS SDK's `onChanged` callback (auto-refresh: `listChanged: { tools: { onChanged } }`, defaults: 300 ms debounce, one `listTools()` call), or the app's own walk of every page on each notification (re-list mode; the newest-started walk wins).",
    "- The server sends exactly one `notifications/tools/list_changed` per change, at once (the go-sdk's own, 10 ms debounced notification is replaced, see bench/server). The clients take turns, in rotating order, on the same server.",
    "- 1: the server adds a tool (and removes the previous one, so the list keeps its size); timed from the moment the notification frame reaches the page (a listener registered before the client's own), and from the page's control request (one more loopback HTTP request, the same for every client).",
    B ? `- 2: the server makes ${B.k} changes to a list of ${B.m} tools, then sends the ${B.k} notifications back to back (as a server that changes its tools in a loop does); timed from the first notification's arrival; requests counted by the server.` : "",
    G ? `- 3: as 1 with ${G.n.toLocaleString("en")} tools in pages of 100, timed from the frame's arrival.` : "",
    `- 4: a fresh browser context per load (no cache, no compiled-wasm cache); the time is \`performance.now()\` when the first full list reaches the app. Bytes: the client library files the page downloaded, each compressed with brotli -q ${BROTLI_QUALITY} (the TS SDK: \`Client\` + \`WebSocketClientTransport\` bundled and minified with esbuild).`,
    M ? `- 5: ${M.total.toLocaleString("en")} changes in bursts of ${M.batch} on ${M.m} tools, each burst awaited; then two forced garbage collections; V8 heap in use (DevTools Runtime.getHeapUsage) plus the byte length of every WebAssembly.Memory (Go's linear memory, which never shrinks).` : "",
    "",
    "Against the aims of issue 7 (measured, never asserted):",
    ...aims(),
    "",
  ].filter((l, i, a) => l !== "" || a[i - 1] !== "").join("\n");
}

function versions(browserVersion) {
  const read = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
  const run = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { cwd: ROOT, encoding: "utf8" }).trim();
    } catch {
      return "unknown";
    }
  };
  const goSdk = run(process.env.GO || "go", ["list", "-m", "-f", "{{.Version}}", "github.com/modelcontextprotocol/go-sdk"]);
  let mcplive = "unknown";
  try {
    mcplive = `${read(path.join(JS, "package.json")).version} (${run("git", ["rev-parse", "--short", "HEAD"])}${run("git", ["status", "--porcelain", "--", "js", "wasm", "*.go"]) ? ", uncommitted changes" : ""})`;
  } catch {}
  return {
    go: run(process.env.GO || "go", ["env", "GOVERSION"]).replace(/^go/, ""),
    node: process.versions.node,
    chromium: browserVersion,
    sdk: read(path.join(BENCH, "node_modules/@modelcontextprotocol/sdk/package.json")).version,
    playwright: read(path.join(BENCH, "node_modules/playwright-core/package.json")).version,
    esbuild: esbuild.version,
    goSdk,
    mcplive,
  };
}

// ---------- main ----------

async function main() {
  const missing = mcpliveMissing();
  if (missing.length) throw new Error(`the npm package in js/ is incomplete (missing ${missing.join(", ")}): run ./build.sh first`);
  const clients = CLIENTS;
  const t0 = Date.now();
  await bundleTS();
  server = await startServer();
  log(`setup: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  log(`server at ${server.url}`);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  try {
    const phases = { latency: workloadLatency, burst: workloadBurst, big: workloadBig, cold: workloadCold, memory: workloadMemory };
    for (const [name, fn] of Object.entries(phases)) {
      if (!want(name)) continue;
      const t = Date.now();
      await fn(clients);
      log(`   ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
    const meta = {
      date: new Date().toISOString(),
      smoke: SMOKE,
      seconds: Math.round((Date.now() - t0) / 1000),
      machine: {
        platform: os.platform(),
        release: os.release(),
        arch: os.arch(),
        cpuModel: os.cpus()[0]?.model ?? "unknown CPU",
        cpus: os.cpus().length,
        memory: os.totalmem(),
        loadavgAtStart: LOAD_AT_START,
        loadavgAtEnd: os.loadavg(),
      },
      versions: versions(browser.version()),
      config: CFG,
    };
    const md = markdown(meta, clients.map((c) => c.id));
    console.log(md);
    if (!SMOKE && ONLY.length === 0) {
      const dir = path.join(BENCH, "results");
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${meta.date.slice(0, 10)}.json`);
      fs.writeFileSync(file, JSON.stringify({ ...meta, failures, results }, null, 2) + "\n");
      fs.writeFileSync(path.join(dir, "latest.md"), md);
      log(`wrote ${path.relative(ROOT, file)} and bench/results/latest.md (${meta.seconds} s)`);
    } else {
      // Partial and smoke runs keep their raw data out of results/.
      fs.writeFileSync(path.join(BENCH, ".bin", "last.json"), JSON.stringify({ ...meta, failures, results }, null, 2) + "\n");
      log(`${SMOKE ? "smoke" : "partial"} run done in ${meta.seconds} s (raw data: bench/.bin/last.json)`);
    }
  } finally {
    await browser.close();
    server.proc.stdin.end();
    server.proc.kill();
  }
  if (failures.length) {
    log(`${failures.length} workload(s) failed:\n  ${failures.join("\n  ")}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  log(e.stack || e.message || e);
  process.exit(1);
});
