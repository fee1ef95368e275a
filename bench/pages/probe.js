// Loaded by every benchmark page before its client library (a classic
// script, so it runs first):
//  - records every WebAssembly.Memory that an instantiated module exports,
//    so that the benchmark can read the size of the wasm linear memory (Go's
//    heap) whatever the loader does;
//  - timestamps the arrival of each notifications/tools/list_changed frame on
//    any WebSocket (its listener is registered in the constructor, so it runs
//    before the client's own), so that a change can also be timed from the
//    moment the client could first react to it.
globalThis.__benchProbe = { memories: [], notified: 0, firstNotified: 0 };

const keep = (result) => {
  const instance = result instanceof WebAssembly.Instance ? result : result.instance;
  for (const v of Object.values(instance?.exports ?? {})) {
    if (v instanceof WebAssembly.Memory) __benchProbe.memories.push(v);
  }
  return result;
};
for (const fn of ["instantiate", "instantiateStreaming"]) {
  const orig = WebAssembly[fn];
  if (orig) WebAssembly[fn] = (...args) => orig.apply(WebAssembly, args).then(keep);
}

const NativeWebSocket = WebSocket;
globalThis.WebSocket = class WebSocket extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => {
      if (typeof e.data === "string" && e.data.length < 200 && e.data.includes('"notifications/tools/list_changed"')) {
        __benchProbe.notified = performance.now();
        if (!__benchProbe.firstNotified) __benchProbe.firstNotified = __benchProbe.notified;
      }
    });
  }
};
