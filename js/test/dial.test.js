// dial.js alone, over a stand-in WebSocket class: no wasm, no network.
// (client.test.js checks the real thing in Node, browser.test.js in Chromium.)
import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { beforeDial, afterDial, earlyDial, discardEarly } from "../src/dial.js";

/** A WebSocket that fires what the test tells it to. */
class FakeWebSocket extends EventTarget {
  static made = 0;
  constructor(url, protocols) {
    super();
    FakeWebSocket.made++;
    this.url = url;
    this.protocols = protocols;
    this.readyState = 0; // CONNECTING
    this.closedWith = null;
  }
  fire(type, init = {}) {
    if (type === "open") this.readyState = 1;
    if (type === "close") this.readyState = 3;
    this.dispatchEvent(Object.assign(new Event(type), init));
  }
  close(code) {
    this.closedWith = code;
    this.readyState = 2;
  }
}

/** A WebSocket that refuses every URL, as a browser does a malformed one. */
class Refusing extends FakeWebSocket {
  constructor(url) {
    super(url);
    throw new SyntaxError("bad URL");
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
  globalThis.WebSocket = Refusing;
  const token = beforeDial();
  assert.throws(() => new globalThis.WebSocket("nope"), SyntaxError);
  assert.equal(globalThis.WebSocket, Refusing);
  afterDial(token);
  assert.equal(globalThis.WebSocket, Refusing);
});

test("no WebSocket at all: nothing is installed", () => {
  delete globalThis.WebSocket;
  const token = beforeDial();
  assert.equal(token, undefined);
  assert.equal(globalThis.WebSocket, undefined);
  afterDial(token);
});

/** dialAs constructs a socket as coder/websocket does: its listeners, added at once. */
function dialAs(early, url = "ws://x/mcp", protocols = ["mcp"]) {
  const made = FakeWebSocket.made;
  const token = beforeDial(early);
  const ws = new globalThis.WebSocket(url, protocols);
  const seen = listen(ws);
  ws.addEventListener("message", (e) => seen.push(`message ${e.data}`));
  afterDial(token);
  return { ws, seen, fresh: FakeWebSocket.made - made };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test("early dial: a socket still connecting is adopted, its events pass as they come", async () => {
  const early = earlyDial("ws://x/mcp");
  assert.deepEqual(early.ws.protocols, ["mcp"]);
  assert.equal(early.ws.binaryType, "arraybuffer");
  const { ws, seen, fresh } = dialAs(early);
  assert.equal(ws, early.ws, "the dial got the early socket");
  assert.equal(fresh, 0, "no second socket");
  assert.equal(globalThis.WebSocket, FakeWebSocket);
  await tick();
  assert.deepEqual(seen, [], "no replayed open for a socket that has not opened");
  ws.fire("open");
  ws.fire("message", { data: "m1" });
  assert.deepEqual(seen, ["open", "message m1"]);
  assert.equal(ws.closedWith, null, "afterDial does not close an adopted socket");
});

test("early dial: an open socket is adopted; open and the messages before it are fired again, in order, after the dial's listeners", async () => {
  const early = earlyDial("ws://x/mcp");
  early.ws.fire("open");
  early.ws.fire("message", { data: "a" });
  early.ws.fire("message", { data: "b" });
  const { ws, seen } = dialAs(early);
  assert.equal(ws, early.ws);
  assert.deepEqual(seen, [], "nothing before the dial's listeners are in (a microtask later)");
  await tick();
  ws.fire("message", { data: "c" });
  assert.deepEqual(seen, ["open", "message a", "message b", "message c"]);
});

test("early dial: a socket that failed is not adopted; the dial makes a new one, which fails fast", () => {
  const early = earlyDial("ws://x/mcp");
  const before = [];
  early.ws.addEventListener("close", (e) => before.push(e.code));
  early.ws.fire("error"); // Node: an error only; failFast closes with 1006
  assert.deepEqual(before, [1006]);
  const { ws, seen, fresh } = dialAs(early);
  assert.notEqual(ws, early.ws);
  assert.equal(fresh, 1);
  ws.fire("error");
  assert.deepEqual(seen, ["close 1006 false", "error"]);
});

test("early dial: another URL or other subprotocols get a new socket, and the early one is closed", () => {
  for (const [url, protocols] of [["ws://y/mcp", ["mcp"]], ["ws://x/mcp", ["other"]], ["ws://x/mcp", ["mcp", "other"]], ["ws://x/mcp", []]]) {
    const early = earlyDial("ws://x/mcp");
    const { ws, fresh } = dialAs(early, url, protocols);
    assert.notEqual(ws, early.ws);
    assert.equal(fresh, 1);
    assert.equal(early.ws.closedWith, 1000, `early socket closed (${url} ${protocols})`);
  }
});

test("early dial: a dial that never constructs, or no dial at all, closes the early socket; twice is fine", () => {
  const early = earlyDial("ws://x/mcp");
  const token = beforeDial(early);
  afterDial(token);
  assert.equal(early.ws.closedWith, 1000);
  assert.equal(globalThis.WebSocket, FakeWebSocket);
  const other = earlyDial("ws://x/mcp");
  discardEarly(other);
  discardEarly(other);
  discardEarly(null);
  assert.equal(other.ws.closedWith, 1000);
  // A discarded socket is never adopted.
  const { ws, fresh } = dialAs(other);
  assert.notEqual(ws, other.ws);
  assert.equal(fresh, 1);
});

test("early dial: no WebSocket, or one that refuses the URL: null, and the dial reports it", () => {
  globalThis.WebSocket = Refusing;
  assert.equal(earlyDial("ws://x/mcp"), null);
  delete globalThis.WebSocket;
  assert.equal(earlyDial("ws://x/mcp"), null);
});
