// The early dial (src/dial.js), with the real wasm and a real server: connect
// opens the WebSocket before it waits for the runtime, the client's first
// dial uses that socket, and what the server said before Go listened is not
// lost. A file of its own: the first connect of this process loads the
// runtime, which is the case the early dial is for.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { connect } from "../index.js";
import { startServer } from "./helpers.js";

let server, wasmServer;
const Original = globalThis.WebSocket;
const made = []; // every WebSocket constructed, by URL
let firstMessage; // resolves when any socket gets its first message
const gotMessage = new Promise((resolve) => (firstMessage = resolve));

before(async () => {
  server = await startServer();
  globalThis.WebSocket = class WebSocket extends Original {
    constructor(url, protocols) {
      super(url, protocols);
      made.push(String(url));
      this.addEventListener("message", () => firstMessage(), { once: true });
    }
  };
  // The wasm, served only once a socket has its first message: the runtime
  // cannot start, and so cannot dial, before the server has spoken.
  const bytes = await readFile(new URL("../mcplive.wasm", import.meta.url));
  wasmServer = createServer(async (req, res) => {
    await gotMessage;
    res.writeHead(200, { "Content-Type": "application/wasm" });
    res.end(bytes);
  });
  await new Promise((resolve) => wasmServer.listen(0, "127.0.0.1", resolve));
});

after(async () => {
  globalThis.WebSocket = Original;
  wasmServer?.close();
  await server?.stop();
});

test("the socket is made at once, the dial uses it, and a message that came before Go listened is answered", async () => {
  const url = `${server.ws}?greet=1`;
  const wasmUrl = `http://127.0.0.1:${wasmServer.address().port}/mcplive.wasm`;
  const pending = connect(url, { protocolVersion: "2025-11-25", wasmUrl });
  assert.deepEqual(made, [url], "the WebSocket was made before connect's first await");
  const client = await pending;
  try {
    assert.deepEqual(made, [url], "no second socket: the dial adopted the early one");
    assert.equal(client.status.get(), "ready");
    assert.ok(client.tools.get().items.length > 0, "the first list came over it");
    // The server's ping came before the runtime existed: it was kept and
    // given to Go once Go listened, and Go answered it.
    await server.waitForLog("greet: answered");
    await client.ping();
  } finally {
    await client.close();
  }
  // Later connects (the runtime is loaded) make one socket each too.
  const again = await connect(server.ws, { protocolVersion: "2025-11-25" });
  assert.deepEqual(made, [url, server.ws]);
  await again.close();
});
