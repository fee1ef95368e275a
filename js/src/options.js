import { checkCache } from "./cache.js";

// Validation of what users pass: a mistake is a TypeError at the call,
// never a silently ignored option or a request with "undefined" in it.

/** The syslog levels of logging/setLevel. */
export const LEVELS = Object.freeze(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

/** checkObject throws unless o is undefined or a plain object with only the allowed keys. */
export function checkObject(what, o, allowed) {
  if (o === undefined) return {};
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw new TypeError(`mcplive: ${what} must be an object`);
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      throw new TypeError(`mcplive: unknown option ${JSON.stringify(k)} in ${what} (known: ${allowed.join(", ")})`);
    }
  }
  return o;
}

/** nonEmptyString checks a tool or prompt name, a resource URI. */
export function nonEmptyString(what, v) {
  if (typeof v !== "string" || v === "") throw new TypeError(`mcplive: ${what} must be a non-empty string, got ${describe(v)}`);
  return v;
}

function describe(v) {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || v === undefined || typeof v !== "object") return String(v);
  return Array.isArray(v) ? "an array" : "an object";
}

/** ms validates a duration option: undefined → 0 (the default). */
export function ms(name, v) {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw new TypeError(`mcplive: ${name} must be a positive number of milliseconds`);
  }
  return v;
}

const CONNECT_OPTIONS = [
  "clientInfo",
  "protocolVersion",
  "requestTimeoutMs",
  "dialTimeoutMs",
  "reconnect",
  "heartbeat",
  "maxMessageBytes",
  "headers",
  "token",
  "fetch",
  "auth",
  "onElicit",
  "logger",
  "signal",
  "wasmUrl",
  "cache",
];

/** The protocol revisions this client speaks, newest first (the option protocolVersion pins one). */
export const PROTOCOL_VERSIONS = Object.freeze(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CLIENT_INFO = ["name", "version", "title", "description", "websiteUrl", "icons"];

/**
 * checkURL accepts a ws:, wss:, http: or https: URL (string or URL); options
 * only Streamable HTTP can honour (headers, token) need an http(s) URL.
 */
export function checkURL(url, options = {}) {
  if (typeof url !== "string" && !(url instanceof URL)) throw new TypeError("mcplive: the server URL must be a string or a URL");
  let u;
  try {
    u = new URL(String(url));
  } catch {
    throw new TypeError(`mcplive: ${JSON.stringify(String(url))} is not an absolute URL (use ws://, wss://, http:// or https://)`);
  }
  if (!["ws:", "wss:", "http:", "https:"].includes(u.protocol)) {
    throw new TypeError(`mcplive: unsupported URL scheme ${u.protocol} (use ws://, wss://, http:// or https://)`);
  }
  if (options.auth !== undefined && u.protocol.startsWith("ws")) {
    throw new TypeError(
      "mcplive: auth (OAuth) applies to http:// and https:// URLs (Streamable HTTP): a browser's WebSocket cannot carry the Authorization header, and tokens must not travel in a URL",
    );
  }
  if (options.fetch !== undefined && u.protocol.startsWith("ws")) {
    throw new TypeError(
      "mcplive: fetch applies to http:// and https:// URLs (Streamable HTTP): a WebSocket does not go through fetch; " +
        "to reach a stdio server through mcplive-bridge over WebSocket, use its ws:// URL with ?token=",
    );
  }
  if ((options.headers !== undefined || options.token !== undefined) && u.protocol.startsWith("ws")) {
    throw new TypeError(
      "mcplive: headers and token apply to http:// and https:// URLs (Streamable HTTP): a browser cannot set a WebSocket's request headers; " +
        "pass WebSocket credentials in the URL",
    );
  }
  return String(url);
}

/** The methods of the logger option that mcplive calls (console has them all). */
export const LOGGER_METHODS = Object.freeze(["info", "warn", "error"]);

/** checkLogger accepts undefined, or an object (console fits) with at least one of LOGGER_METHODS. */
function checkLogger(l) {
  if (l === undefined) return;
  if (l === null || (typeof l !== "object" && typeof l !== "function") || !LOGGER_METHODS.some((m) => typeof l[m] === "function")) {
    throw new TypeError(`mcplive: logger must be an object with methods ${LOGGER_METHODS.join(", ")} (console fits), any of them`);
  }
}

/** toGoOptions validates connect's options and flattens them for Go (wasm/options.go). */
export function toGoOptions(options) {
  const o = checkObject("connect options", options, CONNECT_OPTIONS);
  const out = {
    requestTimeoutMs: ms("requestTimeoutMs", o.requestTimeoutMs),
    dialTimeoutMs: ms("dialTimeoutMs", o.dialTimeoutMs),
  };
  if (o.clientInfo !== undefined) {
    const ci = o.clientInfo;
    if (ci === null || typeof ci !== "object" || typeof ci.name !== "string" || !ci.name) {
      throw new TypeError("mcplive: clientInfo must be an object with a name");
    }
    checkObject("clientInfo", ci, CLIENT_INFO);
    // As JSON: Go reads it as encoding/json would (mcplive.Implementation).
    out.clientInfo = JSON.stringify({ ...ci, version: ci.version === undefined ? "0" : String(ci.version) });
  }
  if (o.protocolVersion !== undefined) {
    if (!PROTOCOL_VERSIONS.includes(o.protocolVersion)) {
      throw new TypeError(`mcplive: protocolVersion ${describe(o.protocolVersion)} is not a revision this client speaks (${PROTOCOL_VERSIONS.join(", ")})`);
    }
    out.protocolVersion = o.protocolVersion;
  }
  if (o.maxMessageBytes !== undefined) out.readLimit = ms("maxMessageBytes", o.maxMessageBytes);
  if (o.headers !== undefined) {
    const h = o.headers;
    if (h === null || typeof h !== "object" || Array.isArray(h)) throw new TypeError("mcplive: headers must be an object of header names and string values");
    out.headers = []; // name, value, name, value…
    for (const [k, v] of Object.entries(h)) {
      if (!HEADER_NAME.test(k)) throw new TypeError(`mcplive: headers: ${JSON.stringify(k)} is not a header name`);
      if (typeof v !== "string" || /[\r\n\0]/.test(v)) throw new TypeError(`mcplive: headers: the value of ${k} must be a string without line breaks`);
      // As Go's http.Header keys them (wasm/options.go).
      out.headers.push(k.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash, c) => dash + c.toUpperCase()), v);
    }
  }
  if (o.token !== undefined && typeof o.token !== "function") {
    throw new TypeError("mcplive: token must be a function that returns the bearer token (or a Promise of it)");
  }
  if (o.fetch !== undefined && typeof o.fetch !== "function") {
    throw new TypeError("mcplive: fetch must be a function with the signature of the global fetch (viaBridge() returns one)");
  }
  if (o.auth !== undefined) {
    if (o.auth === null || typeof o.auth !== "object" || typeof o.auth[Symbol.for("mcplive.oauth.bind")] !== "function") {
      throw new TypeError('mcplive: auth must be what oauth() of "mcplive/oauth" returns');
    }
    if (o.token !== undefined) throw new TypeError("mcplive: pass auth or token, not both (auth supplies the token)");
  }
  if (o.onElicit !== undefined && typeof o.onElicit !== "function") {
    throw new TypeError("mcplive: onElicit must be a function that returns the user's answer { action, content? } (or a Promise of it)");
  }
  checkLogger(o.logger);
  checkCache(o.cache);
  const hb = o.heartbeat;
  if (hb === false) {
    out.heartbeatIntervalMs = -1;
  } else if (hb !== undefined && hb !== true) {
    if (hb === null || typeof hb !== "object") throw new TypeError("mcplive: heartbeat must be false or { intervalMs, timeoutMs }");
    checkObject("heartbeat", hb, ["intervalMs", "timeoutMs"]);
    out.heartbeatIntervalMs = ms("heartbeat.intervalMs", hb.intervalMs);
    out.heartbeatTimeoutMs = ms("heartbeat.timeoutMs", hb.timeoutMs);
  }
  const rc = o.reconnect;
  if (rc === false) {
    out.reconnect = false;
  } else if (rc !== undefined && rc !== true) {
    if (rc === null || typeof rc !== "object") throw new TypeError("mcplive: reconnect must be true, false or { initialDelayMs, maxDelayMs }");
    checkObject("reconnect", rc, ["initialDelayMs", "maxDelayMs"]);
    out.reconnectInitialDelayMs = ms("reconnect.initialDelayMs", rc.initialDelayMs);
    out.reconnectMaxDelayMs = ms("reconnect.maxDelayMs", rc.maxDelayMs);
  }
  if (o.signal !== undefined && o.signal !== null && typeof o.signal.addEventListener !== "function") {
    throw new TypeError("mcplive: signal must be an AbortSignal");
  }
  if (o.wasmUrl !== undefined && typeof o.wasmUrl !== "string" && !(o.wasmUrl instanceof URL)) {
    throw new TypeError("mcplive: wasmUrl must be a string or a URL");
  }
  return out;
}
