import { connect } from "mcplive";

// esbuild bundles no wasm: build.mjs copies it next to the bundle, and wasmUrl points there.
const client = await connect("ws://127.0.0.1:8080/mcp", { wasmUrl: new URL("./mcplive.wasm", import.meta.url) });
client.tools.subscribe(({ items, status, version }) => {
  document.querySelector("h2").textContent = `Tools v${version} (${status})`;
  document.querySelector("ul").replaceChildren(...items.map((t) => Object.assign(document.createElement("li"), { textContent: t.name })));
});
