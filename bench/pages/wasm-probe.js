// Records every WebAssembly.Memory that an instantiated module exports, so
// that the benchmark can read the size of the wasm linear memory (Go's heap)
// whatever the loader does. Load it before the client library.
const memories = (globalThis.__benchWasmMemories = []);
const keep = (result) => {
  const instance = result instanceof WebAssembly.Instance ? result : result.instance;
  for (const v of Object.values(instance?.exports ?? {})) {
    if (v instanceof WebAssembly.Memory) memories.push(v);
  }
  return result;
};
for (const fn of ["instantiate", "instantiateStreaming"]) {
  const orig = WebAssembly[fn];
  if (orig) WebAssembly[fn] = (...args) => orig.apply(WebAssembly, args).then(keep);
}
