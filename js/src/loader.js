// The Go runtime: loaded once per JS realm (page, worker, Node process) and
// shared by every client. Knows nothing about MCP.

import { fromGo, namedError } from "./errors.js";

const GLOBAL = "__mcplive";

/** @type {Promise<object> | null} */
let shared = null;
/** The runtime that shared resolves to, once started. */
let live = null;
/** Where shared was loaded from (an absolute URL when it could be resolved). */
let sharedFrom = null;

/**
 * loadRuntime starts the wasm on first use and returns the shared runtime.
 * One runtime serves a realm: a later call may leave wasmUrl out or give
 * the same URL; another URL rejects (it would not be loaded). A failed
 * load is not cached: the next call tries again.
 * @param {string | URL | undefined} wasmUrl
 */
export function loadRuntime(wasmUrl) {
  const from = resolve(wasmUrl ?? new URL("../mcplive.wasm", import.meta.url));
  if (!shared) {
    sharedFrom = from;
    shared = start(wasmUrl).catch((err) => {
      shared = null;
      throw err;
    });
  } else if (wasmUrl !== undefined && from !== sharedFrom) {
    return Promise.reject(
      new Error(
        `mcplive: wasmUrl ${from} differs from the URL this realm loaded the wasm from (${sharedFrom}): ` +
          "one Go runtime serves every client of a page, worker or process; leave wasmUrl out or pass the same URL",
      ),
    );
  }
  return shared;
}

/** resolve makes a wasm URL comparable: absolute where the base is known. */
function resolve(url) {
  const base = globalThis.location?.href ?? (isNode ? `file://${process.cwd()}/` : undefined);
  try {
    return new URL(String(url), base).href;
  } catch {
    return String(url);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * textReader returns the function through which Go reads a WebSocket text
 * message (wasm/coder-websocket.patch, wsjs.OnMessage): it encodes the
 * message's UTF-8 bytes straight into Go's memory at addr when they fit in
 * cap bytes and returns their count, returns -n (n > cap) when they need up
 * to n bytes, and returns undefined for any other message. One encode and
 * no JS garbage, where the JS string would be hashed, encoded and copied
 * twice on its way in.
 * @param {WebAssembly.Memory} memory the Go instance's memory
 */
function textReader(memory) {
  return (e, addr, cap) => {
    const s = e.data;
    if (typeof s !== "string" || !Number.isInteger(addr) || !Number.isInteger(cap) || addr <= 0) return undefined;
    // A view per message: memory.buffer is replaced when Go's memory grows.
    const r = encoder.encodeInto(s, new Uint8Array(memory.buffer, addr, cap));
    return r.read === s.length ? r.written : -3 * s.length;
  };
}

/**
 * textWriter returns the function through which Go sends a WebSocket text
 * message (wasm/coder-websocket.patch, wsjs.SendTextVia): it decodes the
 * len UTF-8 bytes at addr in Go's memory and sends the string. One decode,
 * where a Go string would be decoded, entered in wasm_exec.js's table of
 * values (hashed whole) and taken out again by a finalizer.
 * @param {WebAssembly.Memory} memory the Go instance's memory
 */
function textWriter(memory) {
  return (ws, addr, len) => {
    // A view per message: memory.buffer is replaced when Go's memory grows.
    ws.send(decoder.decode(new Uint8Array(memory.buffer, addr, len)));
  };
}

async function start(wasmUrl) {
  // Fetch and compile the wasm while wasm_exec.js loads: the compile needs
  // no imports, only the instantiation does.
  const module = compile(wasmUrl ?? new URL("../mcplive.wasm", import.meta.url));
  module.catch(() => {}); // awaited below; a failure there is what the caller sees
  if (typeof globalThis.Go !== "function") {
    // The wasm_exec.js of the Go that built the wasm: defines globalThis.Go.
    // Loaded on demand, so importing this package has no side effects.
    await import("../wasm_exec.js");
  }
  const go = new globalThis.Go();
  // A wasm linear memory never shrinks, so heap headroom is memory the page
  // keeps for good. The live heap is small (the lists), so a collection at
  // +25% instead of +100% costs little: measured in the benchmark, wasm
  // memory after 10,000 changes went from 10.9 to 7.9 MB with no change in
  // change → list latency or the 10,000-tool re-list. In the environment
  // rather than debug.SetGCPercent in Go: runtime/debug links fmt and os.
  go.env = { ...go.env, GOGC: "25" };
  const timers = timerControl(go);
  let instance;
  try {
    instance = await WebAssembly.instantiate(await module, go.importObject);
  } catch (err) {
    if (err?.name === "LoadError") throw err;
    // Not a wasm (an HTML page served in its place), or a wasm of another Go.
    throw loadError(`mcplive: cannot compile or start the wasm: ${err?.message ?? err}`, err);
  }

  let exited = false;
  const pending = new Set();
  const onExit = () => {
    exited = true;
    if (live === runtime) live = shared = null; // a later connect starts a new runtime
    const err = exitError();
    for (const reject of pending) reject(err);
    pending.clear();
  };
  // run() executes Go's main synchronously up to its first block, which is
  // after main registered the API; the Promise settles only if Go exits.
  go.run(instance).then(onExit, onExit);
  const api = globalThis[GLOBAL];
  delete globalThis[GLOBAL];
  if (!api || typeof api.connect !== "function") {
    throw loadError("mcplive: the wasm module did not start (see the console for Go's error)");
  }
  api.textFrames?.(textReader(instance.exports.mem), textWriter(instance.exports.mem));

  let nextRequest = 0;
  let nextClient = 0;
  const runtime = Object.freeze({
    api,
    version: api.version,
    /** A fresh id for a request that may be aborted (never 0). */
    requestId: () => ++nextRequest,
    /** A fresh client id (never 0): JS chooses it before Go connects. */
    clientId: () => ++nextClient,
    /**
     * call runs fn (a call into Go returning a Promise) and settles with it,
     * a Go rejection turned into an Error (fromGo); if the Go runtime exits
     * meanwhile, the Promise rejects instead of hanging forever.
     */
    call(fn) {
      if (exited) return Promise.reject(exitError());
      return new Promise((resolve, reject) => {
        pending.add(reject);
        const done = () => pending.delete(reject);
        let p;
        try {
          p = fn();
        } catch (err) {
          done();
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        Promise.resolve(p).then(
          (v) => (done(), resolve(v)),
          (e) => (done(), reject(fromGo(e))),
        );
      });
    },
    hold: timers.hold,
  });
  live = runtime;
  return runtime;
}

function exitError() {
  return namedError("ClosedError", "mcplive: the Go runtime has exited (see the console for why); connect again to start a new one");
}

/**
 * timerControl makes the Go runtime's timers stop keeping Node alive while
 * no client is open. Every Go timer becomes a setTimeout in wasm_exec.js,
 * and Go never clears the one it scheduled last, even when that timer was
 * stopped (a 30 s request timeout, a 15 s heartbeat): without this, Node
 * would wait for them after close(). While a client is open or connecting
 * the timers stay referenced (a reconnect backoff must keep Node alive).
 * No-op in browsers (their timers have no unref).
 */
function timerControl(go) {
  let active = 0;
  const gojs = go.importObject?.gojs;
  const timeouts = () => (go._scheduledTimeouts instanceof Map ? go._scheduledTimeouts.values() : []);
  const schedule = gojs?.["runtime.scheduleTimeoutEvent"];
  if (typeof schedule === "function") {
    gojs["runtime.scheduleTimeoutEvent"] = (sp) => {
      schedule(sp);
      if (active === 0) go._scheduledTimeouts?.get?.(go._nextCallbackTimeoutID - 1)?.unref?.();
    };
  }
  return {
    /** hold keeps timers referenced until the returned release is called. */
    hold() {
      if (active++ === 0) for (const t of timeouts()) t?.ref?.();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--active === 0) for (const t of timeouts()) t?.unref?.();
      };
    },
  };
}

const isNode = typeof process === "object" && typeof process.versions?.node === "string";

/**
 * compile fetches and compiles the wasm: streaming when the server sends
 * application/wasm, from the bytes otherwise (a wrong MIME type, a proxy);
 * from the file system for file: URLs and paths in Node.
 * @returns {Promise<WebAssembly.Module>}
 */
async function compile(source) {
  let url = source;
  if (typeof url === "string" && isNode && !/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    const { pathToFileURL } = await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeModule("url"));
    url = pathToFileURL(url);
  }
  if (String(url).startsWith("file:")) {
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeModule("fs/promises"));
    return WebAssembly.compile(await readFile(new URL(url)));
  }
  let res = await fetchWasm(url);
  const type = (res.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
  if (typeof WebAssembly.compileStreaming === "function" && type === "application/wasm") {
    try {
      return await WebAssembly.compileStreaming(res);
    } catch {
      res = await fetchWasm(url); // streaming failed (a proxy, an encoding): try the plain way once
    }
  }
  return WebAssembly.compile(await res.arrayBuffer());
}

async function fetchWasm(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (cause) {
    throw loadError(`mcplive: cannot load the wasm from ${url}: ${cause?.message ?? cause}`, cause);
  }
  if (!res.ok) {
    let body = "";
    try {
      body = (await res.text()).slice(0, 2000);
    } catch {
      // no body to read
    }
    let why = `HTTP ${res.status}`;
    if (res.status === 403 && /vite|allow list|fs\.allow/i.test(body)) {
      why +=
        ": Vite's dev server refuses files outside its allow list, and this package is outside it (installed from a folder or with npm link: a symlink). " +
        "Install it from a tarball (npm pack, then npm install ./mcplive-<version>.tgz), or add its folder to server.fs.allow in vite.config";
    } else if (res.status === 404) {
      why += ": the wasm is not served at that URL (a bundler that does not copy it: pass wasmUrl)";
    }
    throw loadError(`mcplive: cannot load the wasm from ${url}: ${why}`);
  }
  return res;
}

/** loadError is the error of a wasm that could not be fetched, compiled or started. */
function loadError(message, cause) {
  const err = new Error(message, cause === undefined ? undefined : { cause });
  err.name = "LoadError";
  return err;
}

// nodeModule hides Node built-ins from bundlers that would try to resolve
// them for the browser; only Node reaches these imports.
function nodeModule(name) {
  return "node:" + name;
}
