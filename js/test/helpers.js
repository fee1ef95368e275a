// Test helpers: the Go test server (internal/cmd/mcplive-testserver) and
// small waits on stores, events and log lines. No test sleeps: each waits
// for the event it needs, and proves that nothing else happened with a
// sentinel change that must arrive after anything that was still coming.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";

const BIN = process.env.MCPLIVE_TESTSERVER;

/** The Chromium the browser tests drive: $CHROMIUM or Debian's; undefined when there is none. */
export const CHROMIUM = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));
/** The browser tests' skip reason: false when there is a Chromium. */
export const NO_CHROMIUM = CHROMIUM ? false : "no Chromium: install Debian's chromium (../build.sh test does) or set CHROMIUM";
// Flags that keep Chromium off the (closed) network.
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** launchChromium starts a headless Chromium through playwright-core. */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * startServer runs a test server; it stops with stop() or when this
 * process exits (its stdin closes).
 */
export async function startServer(args = []) {
  if (!BIN) throw new Error("MCPLIVE_TESTSERVER is not set: run the tests with `npm test`");
  const proc = spawn(BIN, args, { stdio: ["pipe", "pipe", "pipe"] });
  const log = [];
  const logWaiters = new Set();
  createInterface({ input: proc.stderr }).on("line", (l) => {
    log.push(l);
    for (const w of logWaiters) w(l);
  });
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const line = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("test server did not start: " + log.join("\n"))), 10000);
    createInterface({ input: proc.stdout }).once("line", (l) => (clearTimeout(t), resolve(l)));
    proc.once("error", reject);
  });
  const { http, ws } = JSON.parse(line);
  return {
    http,
    ws,
    /** The same endpoint over Streamable HTTP. */
    mcp: `${http}/mcp`,
    log,
    /** control posts one control operation (see the server's doc). */
    async control(op, body = {}) {
      const res = await fetch(`${http}/control/${op}`, { method: "POST", body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`control ${op}: HTTP ${res.status}: ${await res.text()}`);
      return res.json();
    },
    /** waitForLog resolves once the server logged a line that includes text. */
    waitForLog(text, ms = 5000) {
      if (log.some((l) => l.includes(text))) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => (logWaiters.delete(w), reject(new Error(`the server did not log ${JSON.stringify(text)}: ${log.join("\n")}`))), ms);
        const w = (l) => l.includes(text) && (clearTimeout(t), logWaiters.delete(w), resolve());
        logWaiters.add(w);
      });
    },
    async stop() {
      proc.stdin.end();
      await exited;
    },
  };
}

/**
 * The transports and protocol revisions the tests run over, against the
 * same go-sdk server (it speaks both on /mcp). The 2026-07-28 modes pin
 * nothing: the client tries that revision first; the 2025-11-25 ones pin it
 * with the option protocolVersion.
 */
export const MODES = Object.freeze([
  { name: "WebSocket, 2026-07-28", transport: "ws", version: "2026-07-28", options: {} },
  { name: "WebSocket, 2025-11-25", transport: "ws", version: "2025-11-25", options: { protocolVersion: "2025-11-25" } },
  { name: "Streamable HTTP, 2026-07-28", transport: "http", version: "2026-07-28", options: {} },
  { name: "Streamable HTTP, 2025-11-25", transport: "http", version: "2025-11-25", options: { protocolVersion: "2025-11-25" } },
]);

/** urlFor is the server's MCP endpoint over mode's transport. */
export const urlFor = (server, mode) => (mode.transport === "ws" ? server.ws : server.mcp);

/** waitFor resolves with a store's value once pred(value) holds. */
export function waitFor(store, pred, ms = 5000, what = "store value") {
  return new Promise((resolve, reject) => {
    let off = () => {};
    const t = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${what}; last: ${JSON.stringify(store.get())}`))), ms);
    off = store.subscribe((v) => {
      if (pred(v)) {
        clearTimeout(t);
        queueMicrotask(() => off());
        resolve(v);
      }
    });
  });
}

/** nextEvent resolves with the next client event of type for which pred holds. */
export function nextEvent(client, type, pred = () => true, ms = 5000) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (off(), reject(new Error(`timed out waiting for a ${type} event`))), ms);
    const off = client.on(type, (ev) => {
      if (pred(ev)) {
        clearTimeout(t);
        off();
        resolve(ev);
      }
    });
  });
}

/**
 * recorder collects what a callback gets and lets a test wait for the
 * value it needs: const r = recorder(); subscribe(r.push); await r.next(pred).
 */
export function recorder() {
  const seen = [];
  let waiters = [];
  const push = (v) => {
    seen.push(v);
    for (const w of waiters) w();
  };
  /** next resolves with the first value, from index `from` on, for which pred holds. */
  const next = (pred = () => true, { from = 0, ms = 5000, what = "a value" } = {}) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const i = seen.findIndex((v, n) => n >= from && pred(v));
        if (i < 0) return false;
        done();
        resolve(seen[i]);
        return true;
      };
      const t = setTimeout(() => (done(), reject(new Error(`timed out waiting for ${what}; seen: ${JSON.stringify(seen)}`))), ms);
      const done = () => (clearTimeout(t), (waiters = waiters.filter((w) => w !== check)));
      if (!check()) waiters.push(check);
    });
  return { seen, push, next };
}

/** The control operations that add and remove an item of each kind, and its key field. */
export const KIND_OPS = {
  tools: { field: "name", add: (k) => ["add-tool", { name: k }], remove: (k) => ["remove-tool", { name: k }] },
  prompts: { field: "name", add: (k) => ["add-prompt", { name: k }], remove: (k) => ["remove-prompt", { name: k }] },
  resources: { field: "uri", add: (k) => ["add-resource", { uri: k, name: k }], remove: (k) => ["remove-resource", { uri: k }] },
  resourceTemplates: {
    field: "uriTemplate",
    add: (k) => ["add-template", { uriTemplate: k, name: k }],
    remove: (k) => ["remove-template", { uriTemplate: k }],
  },
};

let sentinels = 0;

/**
 * sentinel proves that no change of kind is still on its way: it adds a
 * sentinel item on the server and waits for the change event that brings
 * it (the server notifies in order and a kind's re-lists are applied in
 * order, so anything the earlier changes caused has arrived before it),
 * then removes it again. It returns the change events of kind that came
 * before the sentinel's, from the moment sentinel was called.
 */
export async function sentinel(server, client, kind) {
  const { field, add, remove } = KIND_OPS[kind];
  const key = kind.startsWith("resource") ? `test://sentinel-${++sentinels}${kind === "resourceTemplates" ? "/{x}" : ""}` : `sentinel-${++sentinels}`;
  const before = [];
  let off;
  const arrived = new Promise((resolve) => {
    off = client.on("change", (ev) => {
      if (ev.kind !== kind) return;
      if (ev.added.some((i) => i[field] === key)) resolve();
      else before.push(ev);
    });
  });
  await server.control(...add(key));
  await withTimeout(arrived, 5000, `the sentinel ${key}`);
  off();
  const gone = nextEvent(client, "change", (ev) => ev.kind === kind && ev.removed.some((i) => i[field] === key));
  await server.control(...remove(key));
  await gone;
  return before;
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)))]).finally(() =>
    clearTimeout(t),
  );
}

export const keys = (value, field = "name") => value.items.map((i) => i[field]).sort();
