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

const CONNECT_OPTIONS = ["clientInfo", "requestTimeoutMs", "dialTimeoutMs", "reconnect", "heartbeat", "maxMessageBytes", "signal", "wasmUrl"];
const CLIENT_INFO = ["name", "version", "title", "description", "websiteUrl", "icons"];

/** checkURL accepts a ws:, wss:, http: or https: URL (string or URL). */
export function checkURL(url) {
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
  return String(url);
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
    out.clientInfo = { ...ci, version: ci.version === undefined ? "0" : String(ci.version) };
  }
  if (o.maxMessageBytes !== undefined) out.readLimit = ms("maxMessageBytes", o.maxMessageBytes);
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
