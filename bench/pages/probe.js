// Loaded by every benchmark page before its client library (a classic
// script, so it runs first):
//  - records every WebAssembly.Memory that an instantiated module exports,
//    so that the benchmark can read the size of the wasm linear memory (Go's
//    heap) whatever the loader does;
//  - timestamps the arrival of each notifications/tools/list_changed frame on
//    any WebSocket (its listener is registered in the constructor, so it runs
//    before the client's own), or in any event-stream body that fetch
//    delivers (Streamable HTTP: the body is passed through a stream that
//    looks at each chunk before the client reads it), so that a change can
//    also be timed from the moment the client could first react to it.
//  - records the page's long tasks (Chromium's PerformanceObserver
//    "longtask" entries: every task of the page's main thread that ran 50 ms
//    or more, wasm included; buffered, so the tasks before this script are in
//    it too), so that the benchmark can report the longest task and the total
//    blocking time of an interval (harness.js, mainThread).
// scriptStart: when the page's scripts began (this is the first of each page).
globalThis.__benchProbe = { memories: [], notified: 0, firstNotified: 0, scriptStart: performance.now(), longTasks: [], takeLongTasks: () => {}, marks: {} };

// mark records when a step of a client's start first happened (the cold
// start's profile, run.mjs --only=profile): the wasm compiled and
// instantiated, the Go program's API registered, each JSON-RPC method's
// first request sent and first answer received, on either transport.
const mark = (name) => {
  if (!(name in __benchProbe.marks)) __benchProbe.marks[name] = performance.now();
};
for (const name of ["__mcplive", "floorConnect"]) {
  let v;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get: () => v,
    set: (x) => {
      if (x !== undefined) mark("go:api");
      v = x;
    },
  });
}
// Only the first messages of a page are looked at (a start's), so that the
// workloads after it pay nothing and keep no ids.
let rpcLooks = 64;
const rpcOut = (text) => {
  if (rpcLooks <= 0 || typeof text !== "string" || text.length > 4000) return;
  rpcLooks--;
  const m = /"method"\s*:\s*"([^"]+)"/.exec(text);
  const id = /"id"\s*:\s*("?[^,}"]+"?)/.exec(text);
  if (m) {
    mark(`send:${m[1]}`);
    if (id) rpcIds.set(id[1], m[1]);
  }
};
const rpcIn = (text) => {
  if (rpcLooks <= 0 || typeof text !== "string") return;
  rpcLooks--;
  const id = /"id"\s*:\s*("?[^,}"]+"?)/.exec(text.slice(0, 200));
  if (id && rpcIds.has(id[1])) mark(`recv:${rpcIds.get(id[1])}`);
};
const rpcIds = new Map();

{
  const push = (entries) => {
    for (const e of entries) __benchProbe.longTasks.push({ start: e.startTime, duration: e.duration });
  };
  try {
    const observer = new PerformanceObserver((list) => push(list.getEntries()));
    observer.observe({ type: "longtask", buffered: true });
    // The entries queued for the observer and not yet delivered.
    __benchProbe.takeLongTasks = () => push(observer.takeRecords());
  } catch (e) {
    __benchProbe.longTasks = null; // no long-task entries in this browser
  }
}

const keep = (result) => {
  const instance = result instanceof WebAssembly.Instance ? result : result.instance;
  for (const v of Object.values(instance?.exports ?? {})) {
    if (v instanceof WebAssembly.Memory) __benchProbe.memories.push(v);
  }
  return result;
};
for (const fn of ["instantiate", "instantiateStreaming"]) {
  const orig = WebAssembly[fn];
  if (orig) WebAssembly[fn] = (...args) => (mark(`wasm:${fn}-call`), orig.apply(WebAssembly, args).then((r) => (mark(`wasm:${fn}`), keep(r))));
}
for (const fn of ["compile", "compileStreaming"]) {
  const orig = WebAssembly[fn];
  if (orig) WebAssembly[fn] = (...args) => (mark(`wasm:${fn}-call`), orig.apply(WebAssembly, args).then((r) => (mark(`wasm:${fn}`), r)));
}

const NOTE = '"notifications/tools/list_changed"';

function stamp() {
  __benchProbe.notified = performance.now();
  if (!__benchProbe.firstNotified) __benchProbe.firstNotified = __benchProbe.notified;
}

const NativeWebSocket = WebSocket;
globalThis.WebSocket = class WebSocket extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    mark("ws:new");
    this.addEventListener("open", () => mark("ws:open"));
    this.addEventListener("message", (e) => {
      rpcIn(e.data);
      if (typeof e.data === "string" && e.data.length < 200 && e.data.includes(NOTE)) stamp();
    });
  }
  send(data) {
    rpcOut(data);
    return super.send(data);
  }
};

// Every fetch whose answer is an event stream gets its body through a
// TransformStream that stamps a chunk holding a list_changed (the end of
// the previous chunk is kept, so a name split across chunks is seen too).
// The same hop for every client; status and headers are kept.
const nativeFetch = globalThis.fetch;
globalThis.fetch = async function fetch(...args) {
  const reqBody = args[1]?.body;
  rpcOut(typeof reqBody === "string" ? reqBody : undefined);
  const url = String(args[0]?.url ?? args[0]);
  if (url.endsWith(".wasm")) mark("wasm:fetch");
  const res = await nativeFetch.apply(this, args);
  if (url.endsWith(".wasm")) mark("wasm:response");
  if (rpcLooks > 0 && typeof reqBody === "string" && !(res.headers.get("content-type") || "").startsWith("text/event-stream")) {
    const m = /"method"\s*:\s*"([^"]+)"/.exec(reqBody.slice(0, 4000));
    if (m) mark(`recv:${m[1]}`); // the headers of the answer (a JSON body follows at once)
  }
  if (!res.body || !(res.headers.get("content-type") || "").startsWith("text/event-stream")) return res;
  const decoder = new TextDecoder();
  let tail = "";
  const body = res.body.pipeThrough(new TransformStream({
    transform(chunk, out) {
      const text = tail + decoder.decode(chunk, { stream: true });
      rpcIn(text.slice(text.indexOf("{")));
      if (text.includes(NOTE)) stamp();
      tail = text.slice(1 - NOTE.length);
      out.enqueue(chunk);
    },
  }));
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
};
