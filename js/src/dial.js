// Fast failure of a WebSocket dial, for runtimes whose WebSocket fires
// only `error` when a handshake fails (Node 20 and 22): coder/websocket's
// dial waits for `open` or `close`, so a refused port, a 404 or a 403
// would wait out the whole dial timeout. See wasm/dial.go.
//
// Right before each dial Go calls beforeDial, which installs a one-shot
// subclass of globalThis.WebSocket; its constructor puts the original back
// at once (Go creates the socket synchronously after beforeDial, so no
// other code sees the subclass), and its socket answers an `error` before
// `open` with a `close` (code 1006), as browsers do. The close is
// dispatched from the socket's first error listener, so the dial has
// settled before coder/websocket's own error listener would run (its close
// handler removes it: that listener would close with code 1011, which
// WebSocket implementations refuse). A real `close` that comes after it is
// not passed on. afterDial(token) removes the subclass should the dial not
// have reached the constructor.
//
// The early dial: connect() opens the WebSocket (earlyDial) before it
// waits for the wasm to download, compile and start, so that the handshake
// runs meanwhile instead of after it. The client's first dial adopts that
// socket: the one-shot constructor returns it instead of a new one (same
// URL, same subprotocols, still connecting or open). Its `open` may have
// fired already, so it is fired again, once Go has added its listeners
// (a microtask: Go adds them in the same call that constructs the socket),
// followed by the messages that came before Go listened (an MCP server
// speaks only when asked, so normally none). A socket closed before the
// dial is not adopted: the dial makes a new one, which reports the error.
// A socket nobody adopts is closed (discardEarly, afterDial).

/** The subprotocols of every MCP WebSocket (websocket.go: dialWebSocket). */
const PROTOCOLS = ["mcp"];

/**
 * earlyDial opens url's WebSocket now, for the client's first dial to adopt
 * (beforeDial); null where there is no WebSocket or it refuses the URL
 * (the dial reports that).
 */
export function earlyDial(url) {
  const WS = globalThis.WebSocket;
  if (typeof WS !== "function") return null;
  let ws;
  try {
    ws = new WS(url, PROTOCOLS);
  } catch {
    return null;
  }
  failFast(ws);
  ws.binaryType = "arraybuffer"; // as coder/websocket sets it
  const early = { ws, url, queued: [], closed: false, done: false };
  const onMessage = (e) => early.queued.push(e.data);
  const onClose = () => {
    early.closed = true;
  };
  ws.addEventListener("message", onMessage);
  ws.addEventListener("close", onClose);
  early.detach = () => {
    ws.removeEventListener("message", onMessage);
    ws.removeEventListener("close", onClose);
  };
  return early;
}

/** discardEarly closes an early socket that no dial adopted (no-op after one did). */
export function discardEarly(early) {
  if (!early || early.done) return;
  early.done = true;
  early.detach();
  try {
    early.ws.close(1000);
  } catch {
    // closed already
  }
}

/** adopt hands early's socket to the dial constructing it; false if it cannot be. */
function adopt(early, url, protocols) {
  if (early.done) return false;
  const same = early.url === String(url) && Array.isArray(protocols) && protocols.length === PROTOCOLS.length && protocols.every((p, i) => p === PROTOCOLS[i]);
  if (!same || early.closed || early.ws.readyState > 1 /* CLOSING, CLOSED */) {
    discardEarly(early);
    return false;
  }
  early.done = true;
  early.detach();
  if (early.ws.readyState === 1 /* OPEN */) {
    const { ws, queued } = early;
    queueMicrotask(() => {
      ws.dispatchEvent(new Event("open"));
      for (const data of queued) ws.dispatchEvent(messageEvent(data));
    });
  }
  return true;
}

function messageEvent(data) {
  if (typeof globalThis.MessageEvent === "function") return new globalThis.MessageEvent("message", { data });
  const ev = new Event("message");
  Object.defineProperty(ev, "data", { value: data, enumerable: true });
  return ev;
}

/** Dials armed by beforeDial and not yet constructed, oldest first. */
const armed = new Set();
let original = null;

/**
 * beforeDial arms the next `new WebSocket(...)`, which adopts early's socket
 * if it can (earlyDial; optional); the token goes to afterDial.
 */
export function beforeDial(early = null) {
  const WS = globalThis.WebSocket;
  if (typeof WS !== "function") {
    discardEarly(early);
    return undefined; // Go reports the missing WebSocket
  }
  if (armed.size === 0) {
    original = WS;
    globalThis.WebSocket = armedClass(WS);
  }
  const token = { early };
  armed.add(token);
  return token;
}

/** afterDial disarms token's dial if it never created its socket. */
export function afterDial(token) {
  if (armed.delete(token) && armed.size === 0) restore();
  discardEarly(token?.early); // not adopted: nobody will use it
}

function restore() {
  if (original) globalThis.WebSocket = original;
  original = null;
}

function armedClass(Base) {
  return class WebSocket extends Base {
    constructor(url, protocols) {
      // One-shot: the original is back before anything here can throw.
      const token = armed.values().next().value;
      armed.delete(token);
      if (armed.size === 0) restore();
      if (token?.early && adopt(token.early, url, protocols)) return token.early.ws;
      super(url, protocols);
      failFast(this);
    }
  };
}

/** failFast makes ws answer an `error` before `open` with a `close` (1006). */
function failFast(ws) {
  let opened = false;
  let failed = false;
  let ours = false;
  ws.addEventListener("open", () => {
    opened = true;
  });
  ws.addEventListener("error", () => {
    if (opened || failed) return;
    failed = true;
    ours = true;
    try {
      ws.dispatchEvent(closeEvent());
    } finally {
      ours = false;
    }
  });
  // Registered before any listener of the caller's: the real close of
  // a failed handshake (browsers send one) is not passed on twice.
  ws.addEventListener("close", (ev) => {
    if (failed && !ours) ev.stopImmediatePropagation();
  });
}

function closeEvent() {
  const init = { code: 1006, reason: "", wasClean: false };
  if (typeof globalThis.CloseEvent === "function") return new globalThis.CloseEvent("close", init);
  const ev = new Event("close");
  for (const [k, v] of Object.entries(init)) Object.defineProperty(ev, k, { value: v, enumerable: true });
  return ev;
}
