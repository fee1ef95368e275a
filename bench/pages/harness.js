// The in-page side of the benchmark, shared by every client page. A page
// calls start(adapter) once; the adapter connects its client and reports
// every list the application would render through app.setList(items).
// run.mjs drives the workloads through window.bench (page.evaluate), so a
// measured interval never includes a Playwright round trip.
//
// All times are performance.now() in this page (5 µs resolution: the pages
// are cross-origin isolated). A change is timed from just before the page
// asks the server for it (one loopback HTTP request, the same for every
// client) until the application's list shows it.

const params = new URL(location.href).searchParams;
const label = params.get("label") || "anon";
// ?transport=ws (default) or http: the same /mcp over WebSocket or Streamable
// HTTP. ?era=2025-11-25 makes the server refuse 2026-07-28 on this
// connection (server/discover: method not found), as a 2025-11-25 server does.
const transport = params.get("transport") || "ws";
const era = params.get("era") || "";
const query = `label=${encodeURIComponent(label)}${era ? `&era=${encodeURIComponent(era)}` : ""}`;
const mcpURL = transport === "http"
  ? `${location.origin}/mcp?${query}`
  : `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/mcp?${query}`;

// app is the application's view of the tool list.
const app = {
  items: [],
  errors: [], // what the client reported instead of a list (auto-refresh failures)
  waiters: new Set(),
  setList(items, source) {
    const t = performance.now();
    // The first list with tools in it (issue 32: a returning visit's first visible list).
    if (!app.firstShown && items.length > 0) {
      app.firstShown = t;
      app.firstSource = source ?? null;
    }
    if (items === app.items) return;
    app.items = items;
    for (const w of app.waiters) {
      if (w.pred(items)) {
        app.waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(t);
      }
    }
  },
};

// waitFor resolves with the time at which the application's list first
// satisfies pred (checked on every new list only).
function waitFor(pred, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const w = { pred, resolve };
    w.timer = setTimeout(() => {
      app.waiters.delete(w);
      reject(new Error(`${label}: timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    app.waiters.add(w);
  });
}

async function control(op, body = {}) {
  const res = await fetch(`/control/${op}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ target: label, ...body }),
  });
  if (!res.ok) throw new Error(`control ${op}: ${res.status} ${await res.text()}`);
  return res.json();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// LONG_TASK is the threshold of a long task (50 ms): the part of a task
// beyond it is "blocking time" (what Lighthouse's Total Blocking Time adds up).
const LONG_TASK = 50;

// mainThread returns, for each window [from, to] (performance.now() times),
// the long-task entries of the page (probe.js) that overlap it:
// { longest, tbt, tasks }: the longest one's duration (0 when none), the
// total blocking time (the sum of duration − 50 ms), and how many. The
// benchmark's main-thread rows come from a trace instead (run.mjs,
// mainFromTrace: these entries miss the tasks that V8 itself posts, such as
// the one that resolves a wasm instantiation and runs a Go program's start);
// bench.spin sets the two side by side. The entry of a task is queued when
// the task ends, so this first yields once: the task that closed the last
// window has ended by then.
async function mainThread(windows) {
  await sleep(0);
  const probe = globalThis.__benchProbe;
  probe.takeLongTasks();
  if (!probe.longTasks) return windows.map(() => null);
  return windows.map(([from, to]) => {
    let longest = 0, tbt = 0, tasks = 0;
    for (const t of probe.longTasks) {
      if (t.start > to || t.start + t.duration < from) continue;
      longest = Math.max(longest, t.duration);
      tbt += Math.max(0, t.duration - LONG_TASK);
      tasks++;
    }
    return { longest, tbt, tasks };
  });
}
const toolName = (i) => "t" + String(i).padStart(5, "0");

let prevAdded = "";

const bench = {
  label,
  ready: null, // Promise<{ firstList }> set by start
  get count() { return app.items.length; },
  get errors() { return app.errors.slice(); },

  // latency adds n tools one after the other (each replacing the previous
  // one added here, so the list keeps its size) and returns, per change,
  // the ms until the application's list contains the new tool: from just
  // before the page asks the server for the change (e2e), and from the
  // arrival of the list_changed frame in the page (notified).
  async latency(n, prefix, timeoutMs = 10000) {
    const e2e = [], notified = [], windows = [];
    for (let i = 0; i < n; i++) {
      const name = `${prefix}-${i}`;
      const seen = waitFor((items) => items.some((t) => t.name === name), timeoutMs, `tool ${name}`);
      __benchProbe.notified = 0;
      const t0 = performance.now();
      await control("add", { name, remove: prevAdded });
      prevAdded = name;
      const t = await seen;
      e2e.push(t - t0);
      notified.push(__benchProbe.notified ? t - __benchProbe.notified : NaN);
      windows.push([__benchProbe.notified || t0, t]);
    }
    // windows: each change from the notification's arrival until the app
    // has the list (run.mjs reads the page's main thread over them in a trace).
    return { e2e, notified, windows };
  },

  // spin blocks the page's main thread for ms milliseconds in one task and
  // returns the busy interval ([from, to]) and what the page's long-task
  // entries say of it (mainThread). mode "js": a busy loop in JS, in a timer's
  // task; "wasm": in a WebAssembly module (a loop of 2^16 subtractions between
  // two reads of the clock), in a timer's task; "instantiate": the same wasm
  // loop run where a Go wasm program starts, in the continuation of
  // WebAssembly.instantiate (the microtasks of the task V8 posts when the
  // instance is ready). run.mjs checks that the trace shows each as a task at
  // least ms long.
  async spin(ms, mode = "js") {
    let t0, t1;
    if (mode === "instantiate") {
      const { instance } = await WebAssembly.instantiate(SPINNER, spinnerImports);
      t0 = performance.now();
      instance.exports.spin(ms);
      t1 = performance.now();
    } else {
      const exports = mode === "wasm" ? (await WebAssembly.instantiate(SPINNER, spinnerImports)).instance.exports : null;
      await sleep(0); // a task of its own
      t0 = performance.now();
      if (exports) exports.spin(ms);
      else while (performance.now() - t0 < ms);
      t1 = performance.now();
    }
    const [main] = await mainThread([[t0, t1]]);
    return { window: [t0, t1], ms: t1 - t0, main };
  },

  // burst has the server make k changes back to back (change i sets the
  // description of tool i mod m to tag-i), then send one notification per
  // change back to back, and returns the ms from the first notification's
  // arrival until the application's list equals the server's final list of
  // n tools, and the number of tools/list requests this client sent for it.
  async burst(k, m, n, tag, timeoutMs = 60000, count = true) {
    const want = new Map();
    for (let i = 0; i < k; i++) want.set(toolName(i % m), `${tag}-${i}`);
    const done = (items) => {
      if (items.length !== n) return false;
      let hits = 0;
      for (const t of items) {
        const d = want.get(t.name);
        if (d === undefined) continue;
        if (t.description !== d) return false;
        hits++;
      }
      return hits === want.size;
    };
    await control("reset");
    const seen = waitFor(done, timeoutMs, `the final list of a burst of ${k}`);
    __benchProbe.firstNotified = 0;
    const t0 = performance.now();
    const { changeMs, notifyMs } = await control("burst", { k, m, tag });
    const t = await seen;
    return {
      ms: t - __benchProbe.firstNotified, // from the first notification's arrival
      e2e: t - t0, // from the request, including the server's changes
      changeMs,
      notifyMs,
      lists: count ? await bench.quietCount() : null,
    };
  },

  // quietCount waits until this client sent no tools/list request for
  // 500 ms and returns its count since the last reset.
  async quietCount() {
    let last = -1, same = 0;
    for (;;) {
      const { lists } = await control("counts");
      if (lists === last) { if (++same >= 5) return lists; } else { last = lists; same = 0; }
      await sleep(100);
    }
  },

  // churn applies total changes in bursts of batch (on m tools of a list of
  // n), waiting after each burst until the application's list has caught up.
  async churn(total, batch, m, n, tag) {
    const t0 = performance.now();
    for (let done = 0; done < total; done += batch) {
      await bench.burst(Math.min(batch, total - done), m, n, `${tag}-${done}`, 120000, false);
    }
    return performance.now() - t0;
  },

  // memory reports what the page itself can see; run.mjs adds the JS heap
  // from the DevTools protocol after a forced garbage collection.
  memory() {
    const wasm = __benchProbe.memories.reduce((s, m) => s + m.buffer.byteLength, 0);
    return { wasm, items: app.items.length };
  },

  close: async () => {},
};

// SPINNER is a small wasm module whose spin(ms) loops until
// performance.now() has advanced ms milliseconds since its call. Its text
// form:
//   (module
//     (import "env" "now" (func $now (result f64)))
//     (func (export "spin") (param $ms f64) (local $t0 f64) (local $i i32)
//       (local.set $t0 (call $now))
//       (loop $outer
//         (local.set $i (i32.const 65536))
//         (loop $inner
//           (local.set $i (i32.sub (local.get $i) (i32.const 1)))
//           (br_if $inner (local.get $i)))
//         (br_if $outer (f64.lt (f64.sub (call $now) (local.get $t0)) (local.get $ms))))))
const SPINNER = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x09, 0x02, 0x60, 0x00, 0x01, 0x7c, 0x60, 0x01, 0x7c, 0x00, // types: () -> f64, (f64) -> ()
  0x02, 0x0b, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x03, 0x6e, 0x6f, 0x77, 0x00, 0x00, // import env.now
  0x03, 0x02, 0x01, 0x01, // func 1: type 1
  0x07, 0x08, 0x01, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x01, // export "spin"
  0x0a, 0x2d, 0x01, 0x2b, 0x02, 0x01, 0x7c, 0x01, 0x7f, // code: 1 body, locals f64, i32
  0x10, 0x00, 0x21, 0x01, // t0 = now()
  0x03, 0x40, // loop outer
  0x41, 0x80, 0x80, 0x04, 0x21, 0x02, // i = 65536
  0x03, 0x40, // loop inner
  0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02, // i = i - 1
  0x20, 0x02, 0x0d, 0x00, 0x0b, // br_if inner (i); end
  0x10, 0x00, 0x20, 0x01, 0xa1, 0x20, 0x00, 0x63, 0x0d, 0x00, 0x0b, // br_if outer (now() - t0 < ms); end
  0x0b, // end of body
]);
const spinnerImports = { env: { now: () => performance.now() } };

// start connects through adapter.connect(mcpURL, app) and records the time
// of the first synced list (from navigation start). adapter.protocolVersion
// (client) names the revision the client negotiated.
export function start(adapter) {
  globalThis.bench = bench;
  bench.ready = (async () => {
    const client = await adapter.connect(mcpURL, app);
    const firstList = performance.now();
    bench.close = () => client.close();
    const scriptStart = globalThis.__benchProbe?.appStart ?? 0;
    const pageStart = globalThis.__benchProbe?.scriptStart ?? 0;
    return {
      firstList,
      scriptStart,
      firstShown: app.firstShown - scriptStart,
      firstShownFromPage: app.firstShown - pageStart,
      pageStart,
      firstSource: app.firstSource,
      tools: app.items.length,
      protocolVersion: adapter.protocolVersion?.(client) ?? null,
    };
  })();
  // run.mjs waits for one of these two console messages: a wait through
  // page.waitForFunction would have Playwright inject its script (~330 KB)
  // into the page while the client starts, on the page's thread.
  bench.ready.then(
    () => console.debug("bench:ready"),
    (e) => console.error(`bench: connect failed: ${e?.message ?? e}`),
  );
}
