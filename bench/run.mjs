// bench/run.mjs: mcplive side by side with the official TypeScript SDK
// clients in one headless Chromium session, against one go-sdk server
// (bench/server), on the same workloads, alternating between the clients.
// Five sections, each its own table:
//   ws        WebSocket, 2025-11-25: mcplive (and, with BENCH_BEFORE, the
//             same page on an older build: "mcplive@before") vs
//             @modelcontextprotocol/sdk 1.x (Client + WebSocketClientTransport)
//             and "floor" (bench/floor: Go's runtime and coder/websocket
//             in wasm carrying the bytes, JS parsing each page; no library):
//             what any Go wasm client on these parts pays at least
//   http      Streamable HTTP, 2025-11-25: mcplive vs 1.x's
//             StreamableHTTPClientTransport
//   http-2026 Streamable HTTP, 2026-07-28: mcplive vs the v2 client
//             (@modelcontextprotocol/client, versionNegotiation "auto")
//   ws-2026   WebSocket, 2026-07-28: mcplive alone (no TS SDK client
//             speaks it over WebSocket)
//   node      Node 22, WebSocket, 2025-11-25: node.mjs in one Node process,
//             mcplive vs 1.x re-listing on every notification, a list of
//             11 small pages (a second server with -page-size 10), and
//             the floor
//
//   node run.mjs            the full benchmark (several minutes); writes
//                           results/<date>.json and results/latest.md
//   node run.mjs --smoke    the same code on a tiny workload (CI: under a
//                           minute); writes nothing, fails on any error
//   --only=latency,burst,big,cold,memory,node,returning   a subset of the workloads
//   --only=profile          where each cold start goes, its steps' times (opt-in;
//                           the smoke run runs it too)
//   --sections=ws,http,http-2026,ws-2026,returning,node   a subset of the sections
//
// Environment: CHROMIUM (default /usr/bin/chromium); GO (default go).
// BENCH_BEFORE=<git revision> adds the "mcplive@before" column to the ws
// section: the package of that commit (its js/ files and its wasm, built
// here with the release flags into .bin/). BENCH_AFTER=<git revision> builds
// "mcplive" from a commit the same way; without it a full run builds it from
// the working tree (a snapshot, so that a rebuild of js/ during the run
// cannot change it), and a smoke run uses js/ as ./build.sh left it.
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
// "profile" (workloadProfile) runs only when asked for, and in the smoke run
// (so that it cannot rot).
const want = (w) => (ONLY.length === 0 && (w !== "profile" || SMOKE)) || ONLY.includes(w);

// Workload sizes. The full ones follow issue 7; the smoke ones only keep the
// code running.
const CFG = SMOKE
  ? {
      latency: { base: 20, samples: 4, batch: 2, warmup: 1, steadyAfter: 4, steadySamples: 2 },
      burst: { k: 40, m: 10, runs: 1 },
      big: { n: 250, samples: 2, batch: 1, warmup: 1, traced: 1 },
      cold: { samples: 1, base: 20, traced: 1 },
      memory: { total: 100, batch: 50, m: 20 },
      node: { tools: 105, pageSize: 10, samples: 4, batch: 2, warmup: 1 },
      returning: { samples: 1, base: 20 },
    }
  : {
      latency: { base: 20, samples: 200, batch: 25, warmup: 10, steadyAfter: 400, steadySamples: 100 },
      burst: { k: 1000, m: 50, runs: 7 },
      big: { n: 10000, samples: 20, batch: 5, warmup: 2, traced: 5 },
      cold: { samples: 12, base: 20, traced: 6 },
      memory: { total: 10000, batch: 100, m: 100 },
      node: { tools: 105, pageSize: 10, samples: 200, batch: 25, warmup: 10 },
      returning: { samples: 12, base: 20 },
    };

// BENCH_BURST_RUNS overrides the burst's runs per client (its times are
// bimodal over WebSocket: see bench/HISTORY.md).
if (process.env.BENCH_BURST_RUNS) CFG.burst.runs = Number(process.env.BENCH_BURST_RUNS);
const BEFORE = process.env.BENCH_BEFORE || "";
const AFTER = process.env.BENCH_AFTER || "";
const SECTIONS_WANTED = (process.argv.find((a) => a.startsWith("--sections=")) ?? "").slice("--sections=".length).split(",").filter(Boolean);

// A client: key (its column), name (the column's title), page (with the
// harness's ?transport= and ?era=), auto (the TS SDK's auto-refresh mode:
// timed like the others except on the big list, see workloadBig).
// era=2025-11-25 makes the server refuse 2026-07-28 on that connection (as
// a 2025-11-25 server does), so that mcplive, which tries 2026-07-28 first,
// falls back to initialize: one more round trip at connect, as against any
// 2025-11-25 server. (mcplive runs with its defaults: its protocolVersion
// option would pin a revision and skip the probe.)
const FAT_FLOOR = process.env.BENCH_FAT_FLOOR === "1";

const SECTIONS = [
  {
    id: "ws",
    title: "WebSocket, protocol 2025-11-25",
    workloads: ["latency", "burst", "big", "cold", "profile", "memory"],
    clients: [
      { key: "mcplive", name: "mcplive", page: "mcplive.html?transport=ws&era=2025-11-25" },
      ...(BEFORE ? [{ key: "mcplive-before", name: "mcplive@before", page: "mcplive.html?variant=before&transport=ws&era=2025-11-25" }] : []),
      { key: "ts-auto", name: "TS SDK 1.x, auto-refresh (default)", page: "ts.html?transport=ws&era=2025-11-25&mode=auto", auto: true },
      { key: "ts-relist", name: "TS SDK 1.x, re-list every notification", page: "ts.html?transport=ws&era=2025-11-25&mode=relist" },
      // The floor of this section's rows: see bench/floor/main.go.
      { key: "floor", name: "floor: Go wasm + coder/websocket, no library", page: "floor.html?transport=ws&era=2025-11-25", floor: true },
      // BENCH_FAT_FLOOR=1: the floor with mcplive's package linked in and
      // never called (bench/floor/fat.go): what the wasm's size alone costs.
      ...(FAT_FLOOR ? [{ key: "floor-fat", name: "fat floor: the floor + mcplive linked, never called", page: "floor.html?transport=ws&era=2025-11-25&wasm=floor-fat", floor: true }] : []),
    ],
  },
  {
    id: "http",
    title: "Streamable HTTP, protocol 2025-11-25",
    workloads: ["latency", "burst", "big", "cold"],
    clients: [
      { key: "mcplive", name: "mcplive", page: "mcplive.html?transport=http&era=2025-11-25" },
      { key: "ts-auto", name: "TS SDK 1.x, auto-refresh (default)", page: "ts.html?transport=http&era=2025-11-25&mode=auto", auto: true },
      { key: "ts-relist", name: "TS SDK 1.x, re-list every notification", page: "ts.html?transport=http&era=2025-11-25&mode=relist" },
    ],
  },
  {
    id: "http-2026",
    title: "Streamable HTTP, protocol 2026-07-28",
    workloads: ["latency", "burst", "big", "cold"],
    clients: [
      { key: "mcplive", name: "mcplive", page: "mcplive.html?transport=http&era=2026-07-28" },
      { key: "ts-auto", name: "TS SDK 2.x, auto-refresh (default)", page: "ts.html?sdk=2&transport=http&era=2026-07-28&mode=auto", auto: true },
      { key: "ts-relist", name: "TS SDK 2.x, re-list every notification", page: "ts.html?sdk=2&transport=http&era=2026-07-28&mode=relist" },
    ],
  },
  {
    // No TS SDK client speaks 2026-07-28 over WebSocket: mcplive alone, to
    // set its two eras side by side on one transport.
    id: "ws-2026",
    title: "WebSocket, protocol 2026-07-28 (mcplive only: no TS SDK client speaks it over WebSocket)",
    workloads: ["latency", "burst", "big"],
    clients: [{ key: "mcplive", name: "mcplive", page: "mcplive.html?transport=ws" }],
  },
  {
    // A returning visit (issue 32): the page loaded once in its browser
    // context (the wasm in the HTTP cache, its compiled code cached, the
    // catalog in IndexedDB), then reloaded; the time from the page's script
    // start to the first tools list the app can show.
    id: "returning",
    title: "Returning visit, Streamable HTTP, protocol 2026-07-28: the page reloaded, script start → first visible tools list",
    workloads: ["returning", "profile"],
    clients: [
      { key: "mcplive", name: 'mcplive, open() + cache: "indexeddb"', page: "mcplive.html?transport=http&era=2026-07-28&cache=indexeddb" },
      ...(BEFORE ? [{ key: "mcplive-before", name: 'mcplive@before, open() + cache: "indexeddb"', page: "mcplive.html?variant=before&transport=http&era=2026-07-28&cache=indexeddb" }] : []),
      { key: "mcplive-nocache", name: "mcplive, no cache", page: "mcplive.html?transport=http&era=2026-07-28" },
      { key: "ts-relist", name: "TS SDK 2.x", page: "ts.html?sdk=2&transport=http&era=2026-07-28&mode=relist" },
    ],
  },
  {
    // Node 22, where agents run: node.mjs in one Node process (no browser),
    // against a second bench server with small pages.
    id: "node",
    title: "Node 22, WebSocket, protocol 2025-11-25 (one Node process, no browser)",
    workloads: ["node"],
    clients: [
      { key: "mcplive", name: "mcplive" },
      { key: "ts-relist", name: "TS SDK 1.x, re-list every notification" },
      { key: "floor", name: "floor: Go wasm + coder/websocket, no library", floor: true },
    ],
  },
].filter((s) => SECTIONS_WANTED.length === 0 || SECTIONS_WANTED.includes(s.id));
for (const sec of SECTIONS) for (const c of sec.clients) c.id = `${sec.id}:${c.key}`;

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

function mcpliveMissing(dir) {
  const need = ["package.json", "mcplive.wasm", "wasm_exec.js"];
  const pkg = fs.existsSync(path.join(dir, "package.json")) ? JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) : {};
  const entry = (pkg.exports?.["."]?.default ?? pkg.main ?? "index.js").replace(/^\.\//, "");
  need.push(entry);
  return need.filter((f) => !fs.existsSync(path.join(dir, f)));
}

const GO = process.env.GO || "go";
const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

// buildPackage builds the npm package's files (package.json, index.js,
// src/, the wasm with the release flags of build.sh, wasm_exec.js) into
// .bin/<name>/js from a git revision (git archive) or, when rev is "", from
// the working tree; the last revision's build is kept and reused.
function buildPackage(name, rev) {
  const sha = rev ? git("rev-parse", "--verify", `${rev}^{commit}`) : "";
  const dir = path.join(BENCH, ".bin", rev ? `${name}-${sha.slice(0, 12)}` : name);
  const js = path.join(dir, "js");
  if (rev && mcpliveMissing(js).length === 0) return { dir: js, rev: sha };
  // One build per name is kept.
  fs.mkdirSync(path.join(BENCH, ".bin"), { recursive: true });
  for (const d of fs.readdirSync(path.join(BENCH, ".bin"), { withFileTypes: true })) {
    if (d.isDirectory() && (d.name === name || d.name.startsWith(`${name}-`))) fs.rmSync(path.join(BENCH, ".bin", d.name), { recursive: true, force: true });
  }
  fs.mkdirSync(dir, { recursive: true });
  const t = Date.now();
  if (rev) {
    execFileSync("sh", ["-c", `git archive ${sha} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: "inherit" });
  } else {
    // The working tree: the Go module and the package's own files.
    const files = git("ls-files", "--cached", "--others", "--exclude-standard", "--", "go.mod", "go.sum", ":(glob)*.go", "internal", "wasm", "js/package.json", "js/index.js", "js/src");
    for (const f of new Set(files.split("\n"))) {
      if (!f || !fs.existsSync(path.join(ROOT, f))) continue; // deleted in the working tree
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
    }
  }
  const out = path.join(js, "mcplive.wasm");
  // As build.sh: with the go.mod of wasm/modfile.sh (coder/websocket's
  // browser build without net/http), where the revision has one.
  const modfile = fs.existsSync(path.join(dir, "wasm", "modfile.sh"))
    ? ["-modfile=" + execFileSync("bash", [path.join(dir, "wasm", "modfile.sh")], { cwd: dir, encoding: "utf8" }).trim()]
    : [];
  execFileSync(GO, ["build", ...modfile, "-tags", "mcplive_rawitems", "-trimpath", "-ldflags=-s -w -buildid=", "-o", out, "./wasm"], {
    cwd: dir,
    stdio: "inherit",
    env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
  });
  // As build.sh: the data segments merged (internal/cmd/wasmmerge), where
  // the revision has the pass.
  if (fs.existsSync(path.join(dir, "internal", "cmd", "wasmmerge"))) {
    execFileSync(GO, ["run", "./internal/cmd/wasmmerge", "-q", out], { cwd: dir, stdio: "inherit" });
  }
  fs.chmodSync(out, 0o644);
  const goroot = execFileSync(GO, ["env", "GOROOT"], { encoding: "utf8" }).trim();
  fs.copyFileSync(path.join(goroot, "lib", "wasm", "wasm_exec.js"), path.join(js, "wasm_exec.js"));
  log(`built ${name} (${rev ? sha.slice(0, 12) : "working tree"}) in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  return { dir: js, rev: sha || `${git("rev-parse", "HEAD")}+working tree` };
}

// wasmSizes measures a package's wasm: raw, gzip -9, brotli (as build.sh).
function wasmSizes(dir) {
  const b = fs.readFileSync(path.join(dir, "mcplive.wasm"));
  return { raw: b.length, gzip: zlib.gzipSync(b, { level: 9 }).length, brotli: brotli(b) };
}

// buildFloor builds bench/floor (the floor column) into dist/floor.wasm,
// with the flags and go.mod of mcplive's own wasm, and returns its sizes.
function buildFloor() {
  const out = path.join(BENCH, "dist", "floor.wasm");
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const modfile = execFileSync("bash", [path.join(ROOT, "wasm", "modfile.sh")], { cwd: ROOT, encoding: "utf8" }).trim();
  execFileSync(GO, ["build", `-modfile=${modfile}`, "-trimpath", "-ldflags=-s -w -buildid=", "-o", out, "./bench/floor"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
  });
  if (FAT_FLOOR) {
    // As mcplive's wasm: the items' raw JSON (no encoding/json), the data
    // segments merged.
    const fat = path.join(BENCH, "dist", "floor-fat.wasm");
    execFileSync(GO, ["build", `-modfile=${modfile}`, "-tags", "fatfloor mcplive_rawitems", "-trimpath", "-ldflags=-s -w -buildid=", "-o", fat, "./bench/floor"], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
    });
    execFileSync(GO, ["run", "./internal/cmd/wasmmerge", "-q", fat], { cwd: ROOT, stdio: "inherit" });
    const f = fs.readFileSync(fat);
    console.log(`bench: fat floor: ${f.length} bytes raw, ${brotli(f)} brotli`);
  }
  const b = fs.readFileSync(out);
  return { raw: b.length, gzip: zlib.gzipSync(b, { level: 9 }).length, brotli: brotli(b) };
}

// The TS SDK bundles: src/<name>.js → dist/<name>.js.
const BUNDLES = ["ts-sdk", "ts-sdk-http", "ts-sdk2-http"];

async function bundleTS() {
  await esbuild.build({
    entryPoints: BUNDLES.map((b) => path.join(BENCH, "src", `${b}.js`)),
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: path.join(BENCH, "dist"),
    logLevel: "warning",
  });
}

// The mcplive packages under test, bundled and minified the same way
// (index.js → dist/mcplive.js, dist/mcplive-before.js), as an app's bundler
// would: loaded as a dozen separate ES modules, the page would wait for
// three rounds of imports before it could ask for the wasm, which the TS
// SDK's single bundle does not pay. wasm_exec.js (imported on demand by the
// loader) goes into the bundle; the wasm stays where the package has it,
// and the page passes its URL (wasmUrl).
async function bundleMcplive() {
  const entries = { mcplive: PKG.mcplive.dir, "mcplive-before": PKG.before?.dir };
  for (const [name, dir] of Object.entries(entries)) {
    if (!dir) continue;
    await esbuild.build({
      entryPoints: [path.join(dir, "index.js")],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      outfile: path.join(BENCH, "dist", `${name}.js`),
      logLevel: "warning",
    });
  }
}

async function startServer(extra = []) {
  const bin = path.join(BENCH, ".bin", "bench-server");
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  execFileSync(GO, ["build", "-o", bin, "./bench/server"], { cwd: ROOT, stdio: "inherit" });
  const args = ["-js", PKG.mcplive.dir, "-pages", path.join(BENCH, "pages"), "-dist", path.join(BENCH, "dist")];
  if (PKG.before) args.push("-js-before", PKG.before.dir);
  args.push(...extra);
  const proc = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
  const rl = createInterface({ input: proc.stdout });
  const line = await new Promise((resolve, reject) => {
    rl.once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  rl.on("line", (l) => log("server:", l));
  const { url } = JSON.parse(line);
  return { proc, url };
}

// PKG: the mcplive packages under test: { mcplive, before? }, each
// { dir, rev }.
let PKG;

// ---------- pages ----------

let server; // { url }
let browser;
let browserCDP; // a CDP session on the browser, for its processes' CPU time

// chromiumCPU is the CPU time, in ms, that every process of the browser has
// used so far (DevTools SystemInfo.getProcessInfo: the browser's, each
// page's renderer, the network service's), or NaN when it cannot be read.
// Between two readings only the client of that batch works, so the
// difference is its cost in the browser, wherever it is spent: the page's
// thread, V8's background compiles, the browser and network processes.
async function chromiumCPU() {
  try {
    const { processInfo } = await browserCDP.send("SystemInfo.getProcessInfo");
    return processInfo.reduce((sum, p) => sum + p.cpuTime * 1000, 0);
  } catch {
    return NaN;
  }
}

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
// no cache) and waits for its first synced list. beforeLoad: called before
// the page's load, with the context's renderer running a blank page of the
// same origin (pages/blank.html; a traced load starts its trace there).
async function open(client, { track, beforeLoad } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const label = `${client.id.replace(":", "-")}-${++labels}`;
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  // The 404 of a 2025-11-25 HTTP server to mcplive's server/discover probe
  // is expected (see the server's era parameter).
  const probe404 = client.page.includes("transport=http&era=2025-11-25");
  page.on("console", (m) => {
    if (m.type() === "error" && !(probe404 && m.text().includes("status of 404"))) log(`[${label}] console: ${m.text()}`);
  });
  // The page says on its console when its client has the first list, or
  // failed (harness.js, start): unlike page.waitForFunction, this needs no
  // script of Playwright's in the page while the client starts (~330 KB,
  // ~35 ms of the page's thread, which landed inside every cold start).
  let settle;
  const outcome = new Promise((resolve) => (settle = resolve));
  page.on("console", (m) => {
    const t = m.text();
    if (t === "bench:ready") settle(null);
    else if (m.type() === "error" && t.startsWith("bench: connect failed: ")) settle(new Error(t.slice("bench: connect failed: ".length)));
  });
  const urls = [];
  if (track) page.on("response", (r) => urls.push(r.url()));
  const sep = client.page.includes("?") ? "&" : "?";
  if (beforeLoad) {
    await page.goto(`${server.url}/pages/blank.html`);
    await beforeLoad();
  }
  await page.goto(`${server.url}/pages/${client.page}${sep}label=${label}`);
  try {
    let timer;
    const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no first list within 60 s")), 60000)));
    const err = await Promise.race([outcome, timeout]).finally(() => clearTimeout(timer));
    if (err) throw err;
    const ready = await page.evaluate(() => globalThis.bench.ready);
    negotiated[client.id] ??= ready.protocolVersion;
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

// results[section][workload][client key]; negotiated[client id]: the
// protocol revision its first page reported.
const results = {};
const negotiated = {};
const failures = [];

function failed(workload, client, e) {
  const msg = `${workload} / ${client}: ${e.message ?? e}`;
  log("FAILED", msg);
  failures.push(msg);
  return msg;
}

// Every workload takes one section and returns its results by client key.

async function workloadLatency(sec) {
  const { base, samples, batch, warmup, steadyAfter, steadySamples } = CFG.latency;
  log(`1. [${sec.id}] change → list latency: ${samples} samples per client, list of ${base} tools; then ${steadySamples} more after ${steadyAfter} untimed changes`);
  await control("set-tools", { n: base });
  const sessions = {};
  try {
    for (const c of sec.clients) sessions[c.id] = await open(c);
    const first = await changes("latency", sec.clients, sessions, { samples, batch, warmup, timeoutMs: 10000 });
    // The same pages again after steadyAfter more changes each: V8 has
    // compiled the hot code with its optimizing tier by then (for a Go wasm
    // that takes hundreds of changes of background compiling, which the
    // rows above include; see bench/README.md, "Steady state"). Not for the
    // auto-refresh mode, whose 300 ms debounce is all of its time.
    const steadyClients = sec.clients.filter((c) => !c.auto && !first[c.key]?.error);
    const steady = await changes("steady", steadyClients, sessions, { samples: steadySamples, batch, warmup: steadyAfter, timeoutMs: 10000 });
    return { base, steadyAfter: steadyAfter + warmup + samples, ...first, steady };
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }
}

// changes times single changes (bench.latency), warm-up first, then
// alternating batches; per client: e2e and notified samples and their stats.
async function changes(workload, clients, sessions, { samples, batch, warmup, timeoutMs }) {
  const out = Object.fromEntries(clients.map((c) => [c.key, { e2e: [], notified: [], cpu: [] }]));
  const run = (c, n, prefix) =>
    sessions[c.id].page.evaluate(([n, p, t]) => bench.latency(n, p, t), [n, prefix, timeoutMs]);
  for (const c of clients) await run(c, warmup, `warm-${sessions[c.id].label}`);
  await alternate(clients, Math.ceil(samples / batch), async (c, r) => {
    if (out[c.key].error) return;
    try {
      const cpu0 = await chromiumCPU();
      const { e2e, notified } = await run(c, batch, `${workload.split(" ")[0]}-${sessions[c.id].label}-${r}`);
      const cpu1 = await chromiumCPU();
      out[c.key].e2e.push(...e2e);
      out[c.key].notified.push(...notified);
      if (Number.isFinite(cpu1 - cpu0)) out[c.key].cpu.push((cpu1 - cpu0) / e2e.length);
    } catch (e) {
      out[c.key].error = failed(workload, c.id, e);
    }
  });
  for (const o of Object.values(out)) {
    o.stats = stats(o.e2e);
    o.notifiedStats = stats(o.notified);
    o.cpuStats = stats(o.cpu);
  }
  return out;
}

async function workloadBurst(sec) {
  const { k, m, runs } = CFG.burst;
  log(`2. [${sec.id}] burst of ${k} changes on a list of ${m} tools: ${runs} runs per client`);
  await control("set-tools", { n: m });
  const sessions = {};
  const out = Object.fromEntries(sec.clients.map((c) => [c.key, { ms: [], lists: [], e2e: [], changeMs: [], notifyMs: [] }]));
  try {
    for (const c of sec.clients) sessions[c.id] = await open(c);
    for (const c of sec.clients) {
      await sessions[c.id].page.evaluate(([k, m, t]) => bench.burst(k, m, m, t), [Math.min(k, 50), m, `warm-${c.key}`]);
    }
    await alternate(sec.clients, runs, async (c, r) => {
      if (out[c.key].error) return;
      try {
        const res = await sessions[c.id].page.evaluate(([k, m, t]) => bench.burst(k, m, m, t), [k, m, `b${r}-${c.key}`]);
        out[c.key].ms.push(res.ms);
        for (const k of ["lists", "e2e", "changeMs", "notifyMs"]) out[c.key][k].push(res[k]);
      } catch (e) {
        out[c.key].error = failed("burst", c.id, e);
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
  return { k, m, ...out };
}

async function workloadBig(sec) {
  const { n, samples, batch, warmup } = CFG.big;
  log(`3. [${sec.id}] big list: ${n} tools in pages of 100, ${samples} changes per client`);
  await control("set-tools", { n });
  // 1.x's auto-refresh lists the first page only: it is shown, not timed.
  const firstPageOnly = (c) => c.auto && !c.page.includes("sdk=2");
  const out = {};
  const walking = [];
  const sessions = {};
  try {
    for (const c of sec.clients.filter((c) => !firstPageOnly(c))) {
      try {
        sessions[c.id] = await open(c);
        walking.push(c);
      } catch (e) {
        // 2.x: its listTools() (the app's first list, and its own
        // auto-refresh) refuses more than 64 pages by default.
        out[c.key] = { note: `it cannot list them: ${String(e.message ?? e).replace(/^.*?page did not connect: /, "").split("\n")[0].slice(0, 160)}`, failedToOpen: true };
      }
    }
    Object.assign(out, await changes("big list", walking, sessions, { samples, batch, warmup, timeoutMs: 60000 }));
    // The page's main thread during a change, from the notification's
    // arrival to the list the app got: more changes, one per trace (the
    // timed ones above are not traced).
    await alternate(walking, CFG.big.traced, async (c, r) => {
      const o = out[c.key];
      if (o.error || o.mainError) return;
      try {
        const { main } = await traceMain(async () => {
          const { windows } = await sessions[c.id].page.evaluate(([p, t]) => bench.latency(1, p, t), [`traced-${sessions[c.id].label}-${r}`, 60000]);
          return { page: sessions[c.id].page, windows };
        });
        pushMain(o, main);
      } catch (e) {
        o.mainError = failed("big list (traced)", c.id, e);
      }
    });
    for (const c of walking) mainStats(out[c.key]);
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }

  for (const auto of sec.clients.filter(firstPageOnly)) {
    let s;
    try {
      s = await open(auto);
      const t = await s.page.evaluate(() => bench.latency(1, "big-auto", 10000).then(() => null, (e) => e.message));
      const after = await s.page.evaluate(() => bench.count);
      const { tools } = await control("counts");
      out[auto.key] = {
        itemsAfterChange: after,
        serverTools: tools,
        note: t
          ? `its list did not show the change: ${t}`
          : `its list holds ${after.toLocaleString("en")} of the server's ${tools.toLocaleString("en")} tools after a change (it lists the first page only)`,
      };
    } catch (e) {
      out[auto.key] = { error: failed("big list", auto.id, e) };
    } finally {
      if (s) await closeSession(s);
    }
  }
  return { n, ...out };
}

// revisit reloads a session's page (same browser context: its HTTP cache,
// compiled wasm and IndexedDB kept) and waits for its first synced list.
async function revisit(s) {
  let settle;
  const outcome = new Promise((resolve) => (settle = resolve));
  const on = (m) => {
    const t = m.text();
    if (t === "bench:ready") settle(null);
    else if (m.type() === "error" && t.startsWith("bench: connect failed: ")) settle(new Error(t.slice("bench: connect failed: ".length)));
  };
  s.page.on("console", on);
  try {
    await s.page.reload();
    let timer;
    const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no first list within 60 s")), 60000)));
    const err = await Promise.race([outcome, timeout]).finally(() => clearTimeout(timer));
    if (err) throw err;
    return await s.page.evaluate(() => globalThis.bench.ready);
  } finally {
    s.page.off("console", on);
  }
}

// workloadReturning: per client, one first visit, then samples reloads of
// the same page; each reload timed from the page's script start (probe.js)
// to the first list the app got with tools in it (mcplive with the cache:
// the kept one), and to the first synced list.
async function workloadReturning(sec) {
  const { samples, base } = CFG.returning;
  log(`7. [${sec.id}] returning visit: ${samples} reloads per client`);
  await control("set-tools", { n: base });
  const out = Object.fromEntries(sec.clients.map((c) => [c.key, { samples: [], synced: [], fromPage: [], syncedFromPage: [], sources: [] }]));
  // Every client's page stays open in its own context; the reloads take
  // turns, in rotating order, so that the machine's drift spreads alike.
  const sessions = {};
  try {
    for (const c of sec.clients) {
      try {
        sessions[c.key] = await open(c);
        // One reload first: the compiled wasm is cached on the second load.
        await revisit(sessions[c.key]);
      } catch (e) {
        out[c.key].error = failed("returning visit", c.id, e);
      }
    }
    await alternate(sec.clients, samples, async (c) => {
      if (out[c.key].error) return;
      try {
        const r = await revisit(sessions[c.key]);
        out[c.key].samples.push(r.firstShown);
        out[c.key].synced.push(r.firstList - r.scriptStart);
        out[c.key].fromPage.push(r.firstShownFromPage);
        out[c.key].syncedFromPage.push(r.firstList - r.pageStart);
        out[c.key].sources.push(r.firstSource);
      } catch (e) {
        out[c.key].error = failed("returning visit", c.id, e);
      }
    });
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }
  for (const o of Object.values(out)) {
    o.stats = stats(o.samples);
    o.syncedStats = stats(o.synced);
    o.fromPageStats = stats(o.fromPage);
    o.syncedFromPageStats = stats(o.syncedFromPage);
  }
  return { base, ...out };
}

// workloadProfile (opt-in: --only=profile): where a client's cold start
// goes (issue 49). Per client, page loads (a fresh context each, as the cold
// row; for the returning section reloads of one page, as that row), each
// reporting when its steps first happened, in ms from the page's navigation
// start (probe.js, mark; the resource timing of the client's files); the
// medians are logged and kept in the results.
async function workloadProfile(sec) {
  const samples = CFG.cold.samples;
  log(`P. [${sec.id}] cold start profile: ${samples} loads per client`);
  await control("set-tools", { n: CFG.cold.base });
  const out = Object.fromEntries(sec.clients.map((c) => [c.key, { marks: [] }]));
  const read = (page) =>
    page.evaluate(() => {
      const m = { ...globalThis.__benchProbe.marks, firstList: globalThis.bench.readyValue?.firstList };
      m["page:script"] = globalThis.__benchProbe.scriptStart;
      if (globalThis.__benchProbe.appStart) m["page:app"] = globalThis.__benchProbe.appStart;
      for (const e of performance.getEntriesByType("resource")) {
        const name = new URL(e.name).pathname;
        if (/\.(wasm|js)$/.test(name) && !name.startsWith("/pages/")) {
          m[`res:${name}:start`] = e.startTime;
          m[`res:${name}:end`] = e.responseEnd;
        }
      }
      return m;
    });
  const returning = sec.workloads.includes("returning");
  const sessions = {};
  try {
    if (returning) for (const c of sec.clients) {
      sessions[c.key] = await open(c);
      await revisit(sessions[c.key]);
    }
    await alternate(sec.clients, samples, async (c) => {
      let s = sessions[c.key];
      let r;
      if (returning) r = await revisit(s);
      else {
        s = await open(c);
        r = s.ready;
      }
      const m = await read(s.page);
      m.firstList = r.firstList;
      if (r.firstShown != null && Number.isFinite(r.firstShown)) m.firstShown = r.firstShown + r.scriptStart;
      out[c.key].marks.push(m);
      if (!returning) await closeSession(s);
    });
  } finally {
    for (const s of Object.values(sessions)) await closeSession(s);
  }
  for (const [key, o] of Object.entries(out)) {
    const names = [...new Set(o.marks.flatMap((m) => Object.keys(m)))];
    o.medians = Object.fromEntries(
      names.map((n) => [n, stats(o.marks.map((m) => m[n]))?.median]).sort((a, b) => (a[1] ?? 0) - (b[1] ?? 0)),
    );
    log(`   ${sec.id} ${key}: ` + Object.entries(o.medians).map(([n, t]) => `${n} ${fmtMs(t)}`).join(", "));
  }
  return out;
}

async function workloadCold(sec) {
  const { samples, base } = CFG.cold;
  log(`4. [${sec.id}] cold start: ${samples} page loads per client`);
  await control("set-tools", { n: base });
  const out = Object.fromEntries(sec.clients.map((c) => [c.key, { samples: [], files: null }]));
  await alternate(sec.clients, samples, async (c) => {
    if (out[c.key].error) return;
    try {
      const s = await open(c, { track: !out[c.key].files });
      out[c.key].samples.push(s.ready.firstList);
      if (!out[c.key].files) out[c.key].files = s.urls;
      await closeSession(s);
    } catch (e) {
      out[c.key].error = failed("cold start", c.id, e);
    }
  });
  // The page's main thread, from page load to the first synced list, in
  // loads of their own (traced; the timed ones above are not).
  await alternate(sec.clients, CFG.cold.traced, async (c) => {
    if (out[c.key].error || out[c.key].mainError) return;
    let s, tracing = false;
    try {
      // The trace starts once the fresh context's renderer runs (a blank
      // page of the same origin: pages/blank.html), before the page's load.
      s = await open(c, {
        beforeLoad: async () => {
          await startTrace();
          tracing = true;
        },
      });
      tracing = false;
      pushMain(out[c.key], await endTrace(s.page, [[0, s.ready.firstList]]));
    } catch (e) {
      out[c.key].mainError = failed("cold start (traced)", c.id, e);
    } finally {
      if (tracing) await stopTrace().catch(() => {});
      if (s) await closeSession(s);
    }
  });
  for (const o of Object.values(out)) {
    o.stats = stats(o.samples);
    mainStats(o);
    o.bytes = o.files ? shipped(o.files) : null;
    delete o.files;
  }
  return { base, ...out };
}

// shipped adds up the client library files a page downloaded (not the page
// and the harness): raw (as served; the TS bundles are minified) and brotli.
function shipped(urls) {
  const files = [];
  const roots = { "/mcplive/": PKG.mcplive.dir, "/mcplive-before/": PKG.before?.dir, "/dist/": path.join(BENCH, "dist") };
  for (const u of new Set(urls)) {
    const p = new URL(u).pathname;
    const prefix = Object.keys(roots).find((r) => p.startsWith(r) && roots[r]);
    if (!prefix) continue;
    const f = path.join(roots[prefix], p.slice(prefix.length));
    const b = fs.readFileSync(f);
    files.push({ file: path.relative(ROOT, f), raw: b.length, brotli: brotli(b) });
  }
  const sum = (k) => files.reduce((a, x) => a + x[k], 0);
  return { raw: sum("raw"), brotli: sum("brotli"), files };
}

async function workloadMemory(sec) {
  const { total, batch, m } = CFG.memory;
  log(`5. [${sec.id}] memory after ${total} changes (bursts of ${batch} on ${m} tools)`);
  await control("set-tools", { n: m });
  const out = {};
  await alternate(sec.clients, 1, async (c) => {
    try {
      const s = await open(c);
      try {
        const before = await heap(s);
        const ms = await s.page.evaluate(([t, b, m, tag]) => bench.churn(t, b, m, m, tag), [total, batch, m, `mem-${c.key}`]);
        out[c.key] = { before, after: await heap(s), ms };
      } finally {
        await closeSession(s);
      }
    } catch (e) {
      out[c.key] = { error: failed("memory", c.id, e) };
    }
  });
  return { total, batch, m, ...out };
}

// node22 is a Node 22 binary: the conformance suite's (npm node@22), or
// one npx fetches.
function node22() {
  const local = path.join(ROOT, "conformance", "node_modules", "node", "bin", "node");
  if (fs.existsSync(local)) return { cmd: local, args: [] };
  return { cmd: "npx", args: ["-y", "node@22"] };
}

// workloadNode runs node.mjs (change → list in Node 22, mcplive vs the TS
// SDK re-listing on every notification) against its own server, whose
// pages hold pageSize tools: a list of tools in ceil(tools / pageSize)
// small pages.
async function workloadNode(sec) {
  const { tools, pageSize, samples, batch, warmup } = CFG.node;
  log(`6. [${sec.id}] change → list in Node 22: ${samples} samples per client, ${tools} tools in pages of ${pageSize}`);
  const srv = await startServer(["-page-size", String(pageSize)]);
  try {
    const { cmd, args } = node22();
    const flags = [`--server=${srv.url}`, `--js=${PKG.mcplive.dir}`, `--tools=${tools}`, `--samples=${samples}`, `--batch=${batch}`, `--warmup=${warmup}`];
    if (sec.clients.some((c) => c.floor)) flags.push(`--floor=${path.join(BENCH, "dist", "floor.wasm")}`);
    const proc = spawn(cmd, [...args, path.join(BENCH, "node.mjs"), ...flags], { cwd: BENCH, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_OPTIONS: "" } });
    let stdout = "";
    proc.stdout.on("data", (d) => (stdout += d));
    const code = await new Promise((resolve) => proc.once("close", resolve));
    if (code !== 0) throw new Error(`node.mjs exited with ${code}`);
    const res = JSON.parse(stdout.trim().split("\n").pop());
    const out = { base: tools, pages: Math.ceil(tools / pageSize), node: res.node };
    for (const c of sec.clients) {
      const o = res.latency[c.key];
      out[c.key] = { ...o, stats: stats(o.e2e), notifiedStats: stats(o.notified), cpuStats: o.cpu?.length ? stats(o.cpu) : null };
      negotiated[c.id] = res.negotiated[c.key];
    }
    return out;
  } catch (e) {
    const msg = failed("node", sec.id, e);
    return Object.fromEntries(sec.clients.map((c) => [c.key, { error: msg }]));
  } finally {
    srv.proc.stdin.end();
    srv.proc.kill();
  }
}

// ---------- the page's main thread, from a trace ----------

// The main-thread rows (3 and 4) come from a Chromium trace of the page
// (the DevTools performance panel's categories): every task its renderer's
// main thread ran (RunTask), whatever posted it. The page's own long-task
// entries (PerformanceObserver "longtask") miss the tasks V8 posts itself,
// such as the one that resolves a wasm instantiation and so runs a Go
// program's start in its microtasks: checkMainThread shows both.
const TRACE_CATEGORIES = ["disabled-by-default-devtools.timeline", "blink.user_timing"];
const LONG_TASK_MS = 50;
let traceMarks = 0;

// traceMain runs fn in a trace of the browser; fn drives one page and
// returns { page, windows, ... }, windows being intervals [from, to] in the
// page's performance.now() time. It returns fn's result with main: for each
// window, mainFromTrace's figures. A trace costs the page some time: the
// workloads trace samples of their own, apart from the timed ones.
// The page must exist before the trace starts (see pages/blank.html).
async function traceMain(fn) {
  await startTrace();
  let res;
  try {
    res = await fn();
  } catch (e) {
    await stopTrace().catch(() => {});
    throw e;
  }
  return { ...res, main: await endTrace(res.page, res.windows) };
}

// startTrace starts a trace of the browser (DevTools Tracing, its events
// reported on the browser's session); stopTrace ends it and returns its
// events.
let traceEvents = null;

async function startTrace() {
  if (traceEvents) throw new Error("a trace is running already");
  await processesSettled();
  traceEvents = [];
  await browserCDP.send("Tracing.start", { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: "ReportEvents" });
}

async function stopTrace() {
  const done = new Promise((resolve) => browserCDP.once("Tracing.tracingComplete", resolve));
  try {
    await browserCDP.send("Tracing.end");
    await done;
    return traceEvents;
  } finally {
    traceEvents = null;
  }
}

// endTrace stops the trace and returns mainFromTrace's figures for the
// page's windows.
async function endTrace(page, windows) {
  const name = `bench:align-${++traceMarks}`;
  let at, events;
  try {
    // A mark ties the page's clock to the trace's.
    at = await page.evaluate((n) => performance.mark(n).startTime, name);
  } finally {
    events = await stopTrace();
  }
  return mainFromTrace(events, name, at, windows);
}

// mainFromTrace finds the page's main thread in a trace (the thread of the
// performance.mark name, made at the page's time at ms), its tasks of 50 ms
// or more (RunTask events; a task nested in another is part of it), and for
// each window the tasks that overlap it: { longest, tbt, tasks }: the
// longest one's duration (0: no task of 50 ms), the total blocking time (the
// sum of each one's duration beyond 50 ms, as Lighthouse's TBT), and how
// many. A task counts whole (the task that applies a list runs on after the
// app has it, and it blocked the page as long).
function mainFromTrace(traceEvents, name, at, windows) {
  const mark = traceEvents.find((e) => e.name === name);
  if (!mark) throw new Error(`the trace has no mark ${name} of the page`);
  const zero = mark.ts - at * 1000; // µs: the page's time 0 in the trace
  let end = -Infinity;
  const tasks = traceEvents
    .filter((e) => e.name === "RunTask" && e.ph === "X" && e.pid === mark.pid && e.tid === mark.tid && e.dur >= LONG_TASK_MS * 1000)
    .sort((a, b) => a.ts - b.ts)
    .filter((e) => (e.ts >= end ? ((end = e.ts + e.dur), true) : false))
    .map((e) => ({ start: (e.ts - zero) / 1000, duration: e.dur / 1000 }));
  return windows.map(([from, to]) => {
    let longest = 0, tbt = 0, n = 0;
    for (const t of tasks) {
      if (t.start > to || t.start + t.duration < from) continue;
      longest = Math.max(longest, t.duration);
      tbt += t.duration - LONG_TASK_MS;
      n++;
    }
    return { longest, tbt, tasks: n };
  });
}

// processesSettled waits (up to 5 s) until the browser's processes have
// been the same for 300 ms: a trace that starts while a process starts (the
// spare renderer Chromium launches after a navigation) waits 10 s for it,
// and one that ends after a process started during it waits 5 s.
async function processesSettled() {
  let last = "", same = 0;
  for (let i = 0; i < 50 && same < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const { processInfo } = await browserCDP.send("SystemInfo.getProcessInfo");
    const ids = processInfo.map((p) => p.id).sort().join(",");
    same = ids === last ? same + 1 : 0;
    last = ids;
  }
}

// pushMain adds main-thread figures to a client's samples; mainStats sums
// them up (median / p95 of the longest task and of the blocking time).
function pushMain(o, main) {
  for (const m of main) {
    (o.longest ??= []).push(m.longest);
    (o.tbt ??= []).push(m.tbt);
  }
}

function mainStats(o) {
  if (!o.longest) return;
  o.longestStats = stats(o.longest);
  o.tbtStats = stats(o.tbt);
}

// checkMainThread checks, on a page without a client (pages/spin.html),
// that the trace shows a known busy loop of SPIN_MS as one task at least
// that long: in JS and in wasm, each in a timer's task, and in wasm in the
// continuation of WebAssembly.instantiate (where a Go program starts); a
// miss fails the run. Its figures, and what the page's long-task entries
// said of each, go into the report.
const SPIN_MS = 200;
const SPIN_MODES = ["js", "wasm", "instantiate"];
let mainCheck = null;

async function checkMainThread() {
  const s = await open({ id: "check:spin", page: "spin.html" });
  try {
    const { spins, main } = await traceMain(async () => {
      const spins = [];
      for (const mode of SPIN_MODES) spins.push(await s.page.evaluate(([ms, m]) => bench.spin(ms, m), [SPIN_MS, mode]));
      return { page: s.page, spins, windows: spins.map((r) => r.window) };
    });
    mainCheck = {};
    SPIN_MODES.forEach((mode, i) => {
      const r = spins[i], m = main[i];
      mainCheck[mode] = { busy: r.ms, trace: m.longest, tasks: m.tasks, longtask: r.main?.longest ?? null };
      // The trace's clock is the page's; 1 ms for the alignment.
      if (m.longest < r.ms - 1) {
        failed("main-thread check", `spin.html (${mode})`, new Error(`a busy loop of ${r.ms.toFixed(1)} ms (${mode}) showed in the trace as ${m.tasks ? `a longest task of ${m.longest.toFixed(1)} ms` : "no task of 50 ms"}`));
      }
    });
    log(`main-thread check, a busy loop of ${SPIN_MS} ms: ${SPIN_MODES.map((m) => `${m}: ${fmtMs(mainCheck[m].busy)} ms busy, trace ${fmtMs(mainCheck[m].trace)} ms, long-task entries ${fmtMs(mainCheck[m].longtask)} ms`).join("; ")}`);
  } finally {
    await closeSession(s);
  }
}

const WORKLOADS = { latency: workloadLatency, burst: workloadBurst, big: workloadBig, cold: workloadCold, profile: workloadProfile, memory: workloadMemory, node: workloadNode, returning: workloadReturning };

// ---------- report ----------

const fmtMs = (x) => (x == null ? "–" : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const fmtB = (b) => (b >= 1e6 ? (b / 1e6).toFixed(2) + " MB" : (b / 1e3).toFixed(1) + " KB");
const ratio = (a, b) => {
  if (a == null || b == null || b === 0) return "–";
  const r = a / b;
  return (r >= 10 ? r.toFixed(0) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(2)) + "×";
};
const msCell = (o) => (o?.error ? "failed" : o?.stats ? `${fmtMs(o.stats.median)} / ${fmtMs(o.stats.p95)}` : "–");

// mainRows adds a workload's two main-thread rows (the longest task, the
// total blocking time) to a table, when some client of it has figures.
function mainRows(what, W, keys, row) {
  if (!keys.some((k) => W[k]?.longestStats)) return;
  const cell = (k, s) => (W[k]?.note ? "n/a" : msCell({ error: W[k]?.error ?? W[k]?.mainError, stats: W[k]?.[s] }));
  const n = Math.min(...keys.filter((k) => W[k]?.longestStats).map((k) => W[k].longestStats.n));
  row(`${what}: longest task, ms (median / p95; ${n} traced samples each)`, (k) => cell(k, "longestStats"), (k) => W[k]?.longestStats?.median);
  row(`${what}: total blocking time (the sum over its long tasks of their time beyond 50 ms), ms`, (k) => cell(k, "tbtStats"), (k) => W[k]?.tbtStats?.median);
}

// short names the ratio columns use.
const SHORT = { "mcplive-nocache": "mcplive no cache", "mcplive-before": "mcplive@before", "ts-auto": "TS auto", "ts-relist": "TS re-list", floor: "floor", "floor-fat": "fat floor" };

function table(sec) {
  const R = results[sec.id] ?? {};
  const keys = sec.clients.map((c) => c.key);
  const others = keys.filter((k) => k !== "mcplive");
  const rows = [];
  const row = (name, cell, val) => {
    rows.push([name, ...keys.map((k) => cell(k)), ...others.map((k) => ratio(val("mcplive"), val(k)))]);
  };
  const L = R.latency, B = R.burst, G = R.big, C = R.cold, M = R.memory, N = R.node, T = R.returning;
  if (T) {
    const n = Math.min(...keys.map((k) => T[k]?.stats?.n ?? 0));
    row(`7. returning visit: the app's script start → first visible tools list, ms (median / p95; ${n} reloads each)`, (k) => msCell(T[k]), (k) => T[k]?.stats?.median);
    row("7. returning visit: the app's script start → first synced list (the server's), ms", (k) => msCell({ error: T[k]?.error, stats: T[k]?.syncedStats }), (k) => T[k]?.syncedStats?.median);
    row("7. returning visit: the page's first script → first visible tools list (adds loading the client library's JS), ms", (k) => msCell({ error: T[k]?.error, stats: T[k]?.fromPageStats }), (k) => T[k]?.fromPageStats?.median);
    row("7. returning visit: the page's first script → first synced list (adds loading the client library's JS), ms", (k) => msCell({ error: T[k]?.error, stats: T[k]?.syncedFromPageStats }), (k) => T[k]?.syncedFromPageStats?.median);
  }
  if (L) {
    const n = Math.min(...keys.map((k) => L[k]?.stats?.n ?? 0));
    const nl = (k) => ({ error: L[k]?.error, stats: L[k]?.notifiedStats });
    row(`1. change → list, ms, from the list_changed's arrival in the page (median / p95; ${n} samples each)`, (k) => msCell(nl(k)), (k) => L[k]?.notifiedStats?.median);
    row("1. change → list, ms, from the page's change request (adds one loopback HTTP request)", (k) => msCell(L[k]), (k) => L[k]?.stats?.median);
    const nb = Math.min(...keys.map((k) => L[k]?.cpuStats?.n ?? 0));
    if (nb > 0) row(`1. CPU time per change, all of Chromium's processes, ms (median / p95 of ${nb} batches)`, (k) => msCell({ error: L[k]?.error, stats: L[k]?.cpuStats }), (k) => L[k]?.cpuStats?.median);
    const S = L.steady;
    if (S) {
      const ns = Math.min(...keys.filter((k) => S[k]).map((k) => S[k]?.stats?.n ?? 0));
      const cell = (k, f) => (S[k] ? msCell(f(S[k])) : "–");
      row(`1s. steady state, after ${L.steadyAfter} changes: change → list, ms, from the list_changed's arrival (median / p95; ${ns} samples each)`, (k) => cell(k, (o) => ({ error: o.error, stats: o.notifiedStats })), (k) => S[k]?.notifiedStats?.median);
      row("1s. steady state: change → list, ms, from the page's change request", (k) => cell(k, (o) => o), (k) => S[k]?.stats?.median);
      if (keys.some((k) => S[k]?.cpuStats?.n)) row("1s. steady state: CPU time per change, all of Chromium's processes, ms", (k) => cell(k, (o) => ({ error: o.error, stats: o.cpuStats })), (k) => S[k]?.cpuStats?.median);
    }
  }
  if (B) {
    row(`2. burst of ${B.k}: tools/list requests (median)`, (k) => (B[k]?.error ? "failed" : B[k]?.listStats ? String(B[k].listStats.median) : "–"), (k) => B[k]?.listStats?.median);
    row(`2. burst of ${B.k}: ms from the first notification until the final list (median / p95)`, (k) => msCell(B[k]), (k) => B[k]?.stats?.median);
  }
  if (G) {
    const nl = (k) => ({ error: G[k]?.error, stats: G[k]?.notifiedStats });
    row(`3. ${G.n.toLocaleString("en")} tools, pages of 100: change → full list, ms (median / p95)`, (k) => (G[k]?.note ? `n/a: ${G[k].note}` : msCell(nl(k))), (k) => G[k]?.notifiedStats?.median);
    const nb = Math.min(...keys.filter((k) => !G[k]?.note).map((k) => G[k]?.cpuStats?.n ?? 0));
    if (nb > 0) row(`3. CPU time per change (a walk of every page), all of Chromium's processes, ms (median / p95 of ${nb} batches)`, (k) => (G[k]?.note ? "n/a" : msCell({ error: G[k]?.error, stats: G[k]?.cpuStats })), (k) => G[k]?.cpuStats?.median);
    mainRows("3. main thread during a change, the notification's arrival → the list applied", G, keys, row);
  }
  if (C) {
    row("4. cold start: page load → first synced list, ms (median / p95)", (k) => msCell(C[k]), (k) => C[k]?.stats?.median);
    mainRows("4. main thread during the cold start, page load → first synced list", C, keys, row);
    row(`4. bytes shipped, brotli -q ${BROTLI_QUALITY} (raw)`, (k) => (C[k]?.bytes ? `${fmtB(C[k].bytes.brotli)} (${fmtB(C[k].bytes.raw)})` : "–"), (k) => C[k]?.bytes?.brotli);
  }
  if (M) {
    row(`5. memory after ${M.total.toLocaleString("en")} changes: JS heap + wasm memory`, (k) => {
      const a = M[k]?.after;
      if (M[k]?.error) return "failed";
      if (!a) return "–";
      return a.wasm ? `${fmtB(a.total)} (JS ${fmtB(a.js)} + wasm ${fmtB(a.wasm)})` : fmtB(a.total);
    }, (k) => M[k]?.after?.total);
  }
  if (N) {
    const n = Math.min(...keys.map((k) => N[k]?.stats?.n ?? 0));
    const nl = (k) => ({ error: N[k]?.error, stats: N[k]?.notifiedStats });
    const what = `${N.base} tools in ${N.pages} pages`;
    row(`6. Node ${N.node ?? "22"}: change → list of ${what}, ms, from the list_changed's arrival (median / p95; ${n} samples each)`, (k) => msCell(nl(k)), (k) => N[k]?.notifiedStats?.median);
    row(`6. Node ${N.node ?? "22"}: change → list of ${what}, ms, from the change request`, (k) => msCell(N[k]), (k) => N[k]?.stats?.median);
    const nb = Math.min(...keys.map((k) => N[k]?.cpuStats?.n ?? 0));
    if (nb > 0) row(`6. Node ${N.node ?? "22"}: CPU time of the process per change (the client's, and the control request's), ms (median / p95 of ${nb} batches)`, (k) => msCell({ error: N[k]?.error, stats: N[k]?.cpuStats }), (k) => N[k]?.cpuStats?.median);
  }
  const head = ["workload", ...sec.clients.map((c) => c.name), ...others.map((k) => `mcplive / ${SHORT[k]}`)];
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

// aims checks the targets of issue 7 on the WebSocket section (measured,
// never asserted).
function aims() {
  const R = results.ws ?? {};
  const L = R.latency, B = R.burst, G = R.big;
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

// floorLines sets the floor against the TS SDK re-listing, row by row: the
// least a Go wasm client on these parts can reach (WebSocket and Node).
function floorLines() {
  const R = results.ws ?? {}, N = results.node?.node;
  const got = [];
  const add = (what, f, t) => {
    if (f != null && t != null && t !== 0) got.push(`${what} ${ratio(f, t)}`);
  };
  const nm = (o) => o?.notifiedStats?.median;
  add("change → list from the frame's arrival", nm(R.latency?.floor), nm(R.latency?.["ts-relist"]));
  add("from the change request", R.latency?.floor?.stats?.median, R.latency?.["ts-relist"]?.stats?.median);
  add("steady state from the frame's arrival", nm(R.latency?.steady?.floor), nm(R.latency?.steady?.["ts-relist"]));
  add(`the ${R.big?.n?.toLocaleString("en") ?? ""}-tool walk`, nm(R.big?.floor), nm(R.big?.["ts-relist"]));
  add("cold start", R.cold?.floor?.stats?.median, R.cold?.["ts-relist"]?.stats?.median);
  add("memory", R.memory?.floor?.after?.total, R.memory?.["ts-relist"]?.after?.total);
  add("Node: change → list from the frame's arrival", nm(N?.floor), nm(N?.["ts-relist"]));
  add("Node: from the change request", N?.floor?.stats?.median, N?.["ts-relist"]?.stats?.median);
  add("Node: CPU per change", N?.floor?.cpuStats?.median, N?.["ts-relist"]?.cpuStats?.median);
  if (!got.length) return [];
  return [`The floor (bench/floor: Go's runtime and coder/websocket in wasm carry the bytes, JS parses each page; no library) against the TS SDK re-listing on every notification: ${got.join("; ")}.`, ""];
}

const fmtSizes = (z) => `${fmtB(z.raw)} raw, ${fmtB(z.gzip)} gzip -9, ${fmtB(z.brotli)} brotli -q ${BROTLI_QUALITY}`;

function markdown(meta) {
  const v = meta.versions;
  const first = (w) => Object.values(results).map((r) => r[w]).find(Boolean);
  const B = first("burst"), M = first("memory"), G = first("big");
  const sizes = meta.wasm;
  const revs = (sec) => sec.clients.map((c) => `${c.name} ${negotiated[c.id] ?? "?"}`).join(", ");
  return [
    `Run of ${meta.date.slice(0, 16).replace("T", " ")} UTC on ${meta.machine.cpuModel} (${meta.machine.cpus} cores, ${(meta.machine.memory / 2 ** 30).toFixed(0)} GiB, ${meta.machine.platform} ${meta.machine.release}): ` +
      `Chromium ${v.chromium} headless, Go ${v.go}, Node ${v.node}, @modelcontextprotocol/sdk ${v.sdk}, @modelcontextprotocol/client ${v.sdk2}, mcplive ${v.mcplive}${v.mcpliveBefore ? `, mcplive@before ${v.mcpliveBefore}` : ""}; ` +
      `server: go-sdk ${v.goSdk} on loopback (WebSocket through mcpws, Streamable HTTP through its own handler); 1-minute load average ${meta.machine.loadavgAtStart[0].toFixed(1)} at start, ${meta.machine.loadavgAtEnd[0].toFixed(1)} at the end. Cells: median / p95. Ratio: mcplive / the other client on the medians (below 1: mcplive is faster or smaller).`,
    "",
    `The wasm: mcplive ${fmtSizes(sizes.mcplive)}${sizes.before ? `; mcplive@before ${fmtSizes(sizes.before)}` : ""}${sizes.floor ? `; floor ${fmtSizes(sizes.floor)}` : ""}.`,
    "",
    ...SECTIONS.flatMap((sec) => (results[sec.id] ? [`### ${sec.title}`, "", `Negotiated: ${revs(sec)}.`, "", table(sec), ""] : [])),
    "How it is measured (bench/run.mjs, bench/server, bench/pages):",
    "- Every client runs in its own browser context of one headless Chromium and renders nothing; \"its list\" is what the application code receives: mcplive's `client.tools.subscribe`, the TS SDK's `onChanged` callback (auto-refresh: `listChanged: { tools: { onChanged } }`, defaults: 300 ms debounce, then one `listTools()` call: the first page in 1.x, every page up to 64 in 2.x), or the app's own re-list of every page on each notification (re-list mode; the newest-started walk wins; 2.x: `listTools()` with `listMaxPages: 0`, and `client.listen()` on a 2026-07-28 connection).",
    "- One server for every client: go-sdk, 100 tools per page. It sends exactly one `notifications/tools/list_changed` per change, at once (the go-sdk's own, 10 ms debounced notification is replaced, see bench/server): a frame on each WebSocket; over HTTP through the go-sdk's own sending path, on the session's GET stream (2025-11-25) or on the `subscriptions/listen` stream with its subscription id (2026-07-28). The clients of a section take turns, in rotating order.",
    "- Protocol revision: the 2025-11-25 sections connect with `?era=2025-11-25`, on which the server answers `server/discover` with method not found, as a 2025-11-25 server does; mcplive, which tries 2026-07-28 first (it runs with its defaults; its `protocolVersion` option would pin a revision), then falls back to `initialize`: one more round trip at connect. The TS SDK 1.x speaks 2025-11-25 only; 2.x is given `versionNegotiation: { mode: \"auto\" }`.",
    results.ws?.latency?.floor || results.node?.node?.floor ? "- The floor column: bench/floor, the least a client on mcplive's parts can do. A Go wasm program on github.com/coder/websocket (its runtime and the WebSocket package: 3 MB of wasm) initializes, and on each notification walks every page, one request at a time; Go only carries the bytes, JS's `JSON.parse` reads each page and hands the list to the app: no stores, no diff, no timeouts. What mcplive does beyond it is mcplive's cost; what the floor pays beyond the TS SDK, any Go wasm client on these parts pays." : "",
    "- 1: the server adds a tool (and removes the previous one, so the list keeps its size); timed from the moment the notification reaches the page (WebSocket: a message listener registered before the client's own; HTTP: the chunk of the event stream that holds it, seen by a pass-through stream that fetch's answer is given before the client reads it), and from the page's control request (one more loopback HTTP request, the same for every client). CPU: the CPU time of all of Chromium's processes (the page's renderer with V8's background compiles, the browser's, the network service's; DevTools SystemInfo.getProcessInfo, 10 ms resolution) over each batch of changes, per change: only the client of that batch works meanwhile; the server's CPU is not in it.",
    "- 1s: the same pages, after a few hundred more changes each (untimed): V8 has by then compiled the hot code with its optimizing tier (TurboFan) in the background. For a Go wasm that takes hundreds of changes: TurboFan spends 10–15 ms of CPU per KB of a Go function's wasm, and on two cores that CPU is taken from the server and the network service while row 1 runs. Row 1 is what a page pays in its first minutes; 1s what a long-lived page pays. The auto-refresh mode is left out (its 300 ms debounce is all of its time).",
    B ? `- 2: the server makes ${B.k} changes to a list of ${B.m} tools, then sends the ${B.k} notifications back to back (as a server that changes its tools in a loop does); timed from the first notification's arrival; requests counted by the server.` : "",
    G ? `- 3: as 1 with ${G.n.toLocaleString("en")} tools in pages of 100, timed from the notification's arrival.` : "",
    first("cold") ? `- 4: a fresh browser context per load (no cache, no compiled-wasm cache); the time is \`performance.now()\` when the first full list reaches the app. Bytes: the client library files the page downloaded, each compressed with brotli -q ${BROTLI_QUALITY} (each client bundled and minified with esbuild, as an app's bundler would: the TS SDKs' \`Client\` + the transport, mcplive's npm package with its \`wasm_exec.js\`; mcplive's wasm is a file of its own).` : "",
    M ? `- 5: ${M.total.toLocaleString("en")} changes in bursts of ${M.batch} on ${M.m} tools, each burst awaited; then two forced garbage collections; V8 heap in use (DevTools Runtime.getHeapUsage) plus the byte length of every WebAssembly.Memory (Go's linear memory, which never shrinks).` : "",
    first("returning") ? `- 7: per client one browser context: the page loaded once and reloaded once (the wasm in the HTTP cache, its compiled code in Chromium's code cache; for mcplive with the cache option, the catalog in IndexedDB), then reloaded ${CFG.returning.samples} times; each reload timed from the start of the app's script (the first line of the page's module script, which runs once its imports, the client library, are loaded) and from the page's first script (the first line of bench/pages/probe.js) to the first list the app's store gave with tools in it (mcplive with the cache: the kept catalog, \`status: "stale"\`, while the wasm starts; the server's go-sdk lists carry \`ttlMs: 0\`, so every list is walked and reconciled), and to the first synced list. mcplive with the cache runs \`open()\` and subscribes at once; the others as in 4.` : "",
    mainCheck ? `- Main thread (rows 3 and 4): a Chromium trace of the page (the categories of DevTools' performance panel), in samples of their own, apart from the timed ones (${first("big") ? `3: ${CFG.big.traced} more changes per client, one trace each` : ""}${first("big") && first("cold") ? "; " : ""}${first("cold") ? `4: ${CFG.cold.traced} more loads per client` : ""}): every task of 50 ms or more that the page's renderer's main thread ran (RunTask: JS, wasm, V8's compiles on that thread, whatever posted the task). Over an interval (3: from the notification's arrival to the list the app got; 4: from the page's navigation start to the first synced list), the longest task that overlaps it (0: none of 50 ms) and the total blocking time, the sum over those tasks of their time beyond 50 ms (as Lighthouse's TBT); a task counts whole. Checked at the start of the run on a page without a client, a busy loop of ${SPIN_MS} ms: ${SPIN_MODES.map((m) => `${{ js: "in JS", wasm: "in wasm", instantiate: "in wasm, in the continuation of WebAssembly.instantiate (where a Go program starts)" }[m]}: ${fmtMs(mainCheck[m]?.busy)} ms busy, ${fmtMs(mainCheck[m]?.trace)} ms in the trace (the page's PerformanceObserver \`longtask\` entries: ${mainCheck[m]?.longtask ? `${fmtMs(mainCheck[m].longtask)} ms` : "none"})`).join("; ")}.` : "",
    first("node") ? `- 6: bench/node.mjs in one Node ${first("node").node ?? "22"} process (no browser; the npm node@22 binary): mcplive's npm package, the TS SDK 1.x re-listing every page on each notification (WebSocketClientTransport) and the floor, alternating batches of ${CFG.node.batch}, against a second server with ${CFG.node.pageSize} tools per page; as 1, timed from the list_changed frame's arrival (a message listener registered in the WebSocket constructor) and from the change request; and the process's CPU time (process.cpuUsage, user + system) over each batch, per change: only the client of that batch works meanwhile.` : "",
    "",
    ...(results.ws ? ["Against the aims of issue 7 (WebSocket; measured, never asserted):", ...aims(), ""] : []),
    ...floorLines(),
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
  const goSdk = run(GO, ["list", "-m", "-f", "{{.Version}}", "github.com/modelcontextprotocol/go-sdk"]);
  const pkgVersion = (p) => {
    try {
      return `${read(path.join(p.dir, "package.json")).version} (${p.rev.slice(0, 7)}${p.rev.includes("working tree") ? ", working tree" : ""})`;
    } catch {
      return "unknown";
    }
  };
  return {
    go: run(GO, ["env", "GOVERSION"]).replace(/^go/, ""),
    node: process.versions.node,
    chromium: browserVersion,
    sdk: read(path.join(BENCH, "node_modules/@modelcontextprotocol/sdk/package.json")).version,
    sdk2: read(path.join(BENCH, "node_modules/@modelcontextprotocol/client/package.json")).version,
    playwright: read(path.join(BENCH, "node_modules/playwright-core/package.json")).version,
    esbuild: esbuild.version,
    goSdk,
    mcplive: pkgVersion(PKG.mcplive),
    mcpliveBefore: PKG.before ? pkgVersion(PKG.before) : undefined,
  };
}

// ---------- main ----------

async function main() {
  const t0 = Date.now();
  PKG = {};
  if (AFTER || !SMOKE) {
    PKG.mcplive = buildPackage("after", AFTER);
  } else {
    const missing = mcpliveMissing(JS);
    if (missing.length) throw new Error(`the npm package in js/ is incomplete (missing ${missing.join(", ")}): run ./build.sh first`);
    let rev = "unknown";
    try {
      rev = `${git("rev-parse", "HEAD")}+working tree`;
    } catch {}
    PKG.mcplive = { dir: JS, rev };
  }
  if (BEFORE) PKG.before = buildPackage("before", BEFORE);
  const wasm = { mcplive: wasmSizes(PKG.mcplive.dir), before: PKG.before ? wasmSizes(PKG.before.dir) : undefined };
  if (SECTIONS.some((s) => s.clients.some((c) => c.floor))) wasm.floor = buildFloor();
  log(`wasm: mcplive ${fmtSizes(wasm.mcplive)}${wasm.before ? `; mcplive@before ${fmtSizes(wasm.before)}` : ""}${wasm.floor ? `; floor ${fmtSizes(wasm.floor)}` : ""}`);
  await bundleTS();
  await bundleMcplive();
  server = await startServer();
  log(`setup: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  log(`server at ${server.url}`);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  browserCDP = await browser.newBrowserCDPSession();
  browserCDP.on("Tracing.dataCollected", ({ value }) => traceEvents?.push(...value));
  try {
    await checkMainThread();
    for (const [name, fn] of Object.entries(WORKLOADS)) {
      if (!want(name)) continue;
      for (const sec of SECTIONS) {
        if (!sec.workloads.includes(name)) continue;
        const t = Date.now();
        (results[sec.id] ??= {})[name] = await fn(sec);
        log(`   ${sec.id} ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
      }
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
      wasm,
      mainCheck,
      config: CFG,
      sections: SECTIONS.map((s) => ({ id: s.id, title: s.title, clients: s.clients.map(({ key, name, page }) => ({ key, name, page, negotiated: negotiated[`${s.id}:${key}`] ?? null })) })),
    };
    const md = markdown(meta);
    console.log(md);
    if (!SMOKE && ONLY.length === 0 && SECTIONS_WANTED.length === 0) {
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
