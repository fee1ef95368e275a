// worker.js: the client (the wasm, its memory and the WebSocket) lives in a Web Worker;
// the page gets each list as plain data (structured clone) and asks the worker for calls.
import { connect } from "mcplive";

const ready = connect("ws://127.0.0.1:8080/mcp", { clientInfo: { name: "my-app", version: "1.0.0" } });

ready.then(
  (client) => {
    for (const kind of ["tools", "prompts", "resources", "resourceTemplates"]) {
      client[kind].subscribe(({ items, status, version }) => postMessage({ kind, items, status, version }));
    }
  },
  (err) => postMessage({ kind: "error", error: `${err.name}: ${err.message}` }),
);

// { id, name, args } from the page → { id, result } or { id, error }
addEventListener("message", async ({ data: { id, name, args } }) => {
  try {
    postMessage({ id, result: await (await ready).callTool(name, args) });
  } catch (err) {
    postMessage({ id, error: `${err.name}: ${err.message}` });
  }
});
