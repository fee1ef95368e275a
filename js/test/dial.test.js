// dial.js alone, over a stand-in WebSocket class: no wasm, no network.
// (client.test.js checks the real thing in Node, browser.test.js in Chromium.)
import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { beforeDial, afterDial } from "../src/dial.js";

/** A WebSocket that fires what the test tells it to. */
class FakeWebSocket extends EventTarget {
  constructor(url, protocols) {
    super();
    this.url = url;
    this.protocols = protocols;
  }
  fire(type, init = {}) {
    this.dispatchEvent(Object.assign(new Event(type), init));
  }
}

let saved;
beforeEach(() => {
  saved = Object.getOwnPropertyDescriptor(globalThis, "WebSocket");
  globalThis.WebSocket = FakeWebSocket;
});
afterEach(() => {
  if (saved) Object.defineProperty(globalThis, "WebSocket", saved);
  else delete globalThis.WebSocket;
});

/** listen records the events a socket's caller (coder/websocket) would see. */
function listen(ws) {
  const seen = [];
  for (const type of ["open", "error", "close"]) ws.addEventListener(type, (e) => seen.push(type === "close" ? `close ${e.code} ${e.wasClean}` : type));
  return seen;
}

test("one dial: the subclass is installed for one construction only", () => {
  const token = beforeDial();
  assert.notEqual(globalThis.WebSocket, FakeWebSocket);
  const ws = new globalThis.WebSocket("ws://x/mcp", ["mcp"]);
  assert.equal(globalThis.WebSocket, FakeWebSocket, "the original is back once constructed");
  assert.ok(ws instanceof FakeWebSocket);
  assert.deepEqual([ws.url, ws.protocols], ["ws://x/mcp", ["mcp"]]);
  afterDial(token);
  assert.equal(globalThis.WebSocket, FakeWebSocket);
});

test("an error before open brings a close (1006) at once, once; the runtime's own close is not passed on", () => {
  const token = beforeDial();
  const ws = new globalThis.WebSocket("ws://x/mcp");
  afterDial(token);
  const seen = listen(ws);
  ws.fire("error");
  // The close is dispatched within the error's dispatch, ahead of the
  // caller's error listener (see dial.js).
  assert.deepEqual(seen, ["close 1006 false", "error"]);
  ws.fire("close", { code: 1006, wasClean: false }); // a browser's own close comes after
  ws.fire("error");
  assert.deepEqual(seen, ["close 1006 false", "error", "error"]);
});

test("after open, errors and closes pass as they are", () => {
  const token = beforeDial();
  const ws = new globalThis.WebSocket("ws://x/mcp");
  afterDial(token);
  const seen = listen(ws);
  ws.fire("open");
  ws.fire("error");
  ws.fire("close", { code: 1000, wasClean: true });
  assert.deepEqual(seen, ["open", "error", "close 1000 true"]);
});

test("a close without an error passes as it is", () => {
  const token = beforeDial();
  const ws = new globalThis.WebSocket("ws://x/mcp");
  afterDial(token);
  const seen = listen(ws);
  ws.fire("close", { code: 1006, wasClean: false });
  assert.deepEqual(seen, ["close 1006 false"]);
});

test("a dial that never constructed: afterDial puts the original back", () => {
  const token = beforeDial();
  assert.notEqual(globalThis.WebSocket, FakeWebSocket);
  afterDial(token);
  assert.equal(globalThis.WebSocket, FakeWebSocket);
  afterDial(token); // twice is fine
  assert.equal(globalThis.WebSocket, FakeWebSocket);
});

test("two dials armed at once: both sockets fail fast, then the original is back", () => {
  const a = beforeDial();
  const b = beforeDial();
  const wa = new globalThis.WebSocket("ws://a/mcp");
  assert.notEqual(globalThis.WebSocket, FakeWebSocket, "still armed for the second dial");
  const wb = new globalThis.WebSocket("ws://b/mcp");
  assert.equal(globalThis.WebSocket, FakeWebSocket);
  afterDial(a);
  afterDial(b);
  for (const ws of [wa, wb]) {
    const seen = listen(ws);
    ws.fire("error");
    assert.deepEqual(seen, ["close 1006 false", "error"]);
  }
});

test("a constructor that throws leaves the original in place", () => {
  class Throwing extends FakeWebSocket {
    constructor(url) {
      super(url);
      throw new SyntaxError("bad URL");
    }
  }
  globalThis.WebSocket = Throwing;
  const token = beforeDial();
  assert.throws(() => new globalThis.WebSocket("nope"), SyntaxError);
  assert.equal(globalThis.WebSocket, Throwing);
  afterDial(token);
  assert.equal(globalThis.WebSocket, Throwing);
});

test("no WebSocket at all: nothing is installed", () => {
  delete globalThis.WebSocket;
  const token = beforeDial();
  assert.equal(token, undefined);
  assert.equal(globalThis.WebSocket, undefined);
  afterDial(token);
});
