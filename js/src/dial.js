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

/** Dials armed by beforeDial and not yet constructed, oldest first. */
const armed = new Set();
let original = null;

/** beforeDial arms the next `new WebSocket(...)`; the token goes to afterDial. */
export function beforeDial() {
  const WS = globalThis.WebSocket;
  if (typeof WS !== "function") return undefined; // Go reports the missing WebSocket
  if (armed.size === 0) {
    original = WS;
    globalThis.WebSocket = failFast(WS);
  }
  const token = {};
  armed.add(token);
  return token;
}

/** afterDial disarms token's dial if it never created its socket. */
export function afterDial(token) {
  if (armed.delete(token) && armed.size === 0) restore();
}

function restore() {
  if (original) globalThis.WebSocket = original;
  original = null;
}

function failFast(Base) {
  return class WebSocket extends Base {
    constructor(url, protocols) {
      // One-shot: the original is back before anything here can throw.
      armed.delete(armed.values().next().value);
      if (armed.size === 0) restore();
      super(url, protocols);
      let opened = false;
      let failed = false;
      let ours = false;
      this.addEventListener("open", () => {
        opened = true;
      });
      this.addEventListener("error", () => {
        if (opened || failed) return;
        failed = true;
        ours = true;
        try {
          this.dispatchEvent(closeEvent());
        } finally {
          ours = false;
        }
      });
      // Registered before any listener of the caller's: the real close of
      // a failed handshake (browsers send one) is not passed on twice.
      this.addEventListener("close", (ev) => {
        if (failed && !ours) ev.stopImmediatePropagation();
      });
    }
  };
}

function closeEvent() {
  const init = { code: 1006, reason: "", wasClean: false };
  if (typeof globalThis.CloseEvent === "function") return new globalThis.CloseEvent("close", init);
  const ev = new Event("close");
  for (const [k, v] of Object.entries(init)) Object.defineProperty(ev, k, { value: v, enumerable: true });
  return ev;
}
