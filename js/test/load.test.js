// A wasm that cannot be loaded, and a runtime without a WebSocket: named
// errors (LoadError, DialError) that say the cause. Its own file: a realm
// that loaded the wasm once keeps it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { connect } from "../index.js";

async function serve(handler) {
  const srv = createServer(handler);
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}`, close: () => srv.close() };
}

test("the wasm fetched with 403 under Vite's dev server: LoadError naming the allow list and the fixes", async () => {
  const vite = await serve((req, res) => {
    res.writeHead(403, { "Content-Type": "text/plain" });
    res.end(`The request url "/work/mcplive/js/mcplive.wasm" is outside of Vite serving allow list.\n\n- /work/app\n\nRefer to docs https://vite.dev/config/server-options.html#server-fs-allow for configurations and more details.`);
  });
  try {
    await assert.rejects(connect("ws://127.0.0.1:9/mcp", { wasmUrl: `${vite.url}/@fs/work/mcplive/js/mcplive.wasm`, reconnect: false }), (err) => {
      assert.equal(err.name, "LoadError", err.message);
      for (const want of ["HTTP 403", "Vite", "allow list", "tarball", "server.fs.allow"]) assert.ok(err.message.includes(want), `${want}: ${err.message}`);
      return true;
    });
  } finally {
    vite.close();
  }
});

test("a wasm URL that serves a page, or nothing: LoadError", async () => {
  const srv = await serve((req, res) => {
    if (req.url === "/page.wasm") res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>app</title>");
    else res.writeHead(404).end();
  });
  try {
    await assert.rejects(connect("http://127.0.0.1:9/mcp", { wasmUrl: `${srv.url}/page.wasm` }), { name: "LoadError" });
    await assert.rejects(connect("http://127.0.0.1:9/mcp", { wasmUrl: `${srv.url}/missing.wasm` }), (err) => err.name === "LoadError" && /HTTP 404/.test(err.message));
  } finally {
    srv.close();
  }
});

test("no global WebSocket: a DialError", async () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "WebSocket");
  delete globalThis.WebSocket;
  try {
    await assert.rejects(connect("ws://127.0.0.1:9/mcp"), (err) => err.name === "DialError" && /no global WebSocket/.test(err.message));
  } finally {
    if (saved) Object.defineProperty(globalThis, "WebSocket", saved);
  }
});
