// connect() and the client object: stores fed by the Go side's hooks,
// calls forwarded to Go as JSON, every rejection a real Error.

import { loadRuntime } from "./loader.js";
import { createStore, createEmitter, call, report } from "./store.js";
import { createList, KINDS } from "./lists.js";
import { abortError } from "./errors.js";

const EVENTS = Object.freeze(["change", "log", "notification"]);

/**
 * connect opens a live client. It resolves after initialize and the first
 * full sync of every list the server offers.
 * @param {string | URL} url
 * @param {object} [options]
 */
export async function connect(url, options = {}) {
  if (options === null || typeof options !== "object") throw new TypeError("mcplive: options must be an object");
  const goOptions = JSON.stringify(toGoOptions(options));
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  if (typeof globalThis.WebSocket !== "function") {
    throw new Error(
      "mcplive: this JS runtime has no global WebSocket" +
        (typeof process === "object" && process.versions?.node ? " (Node 20 needs --experimental-websocket; Node 22 has it)" : ""),
    );
  }
  const rt = await loadRuntime(options.wasmUrl);
  const release = rt.hold(); // Go's timers keep Node alive while this client lives

  const events = createEmitter(EVENTS);
  const lists = Object.fromEntries(KINDS.map((kind) => [kind, createList(kind, (ev) => events.emit("change", ev))]));
  const status = createStore("connecting");
  /** subscription id → resource subscription (see subscribeResource) */
  const resourceSubs = new Map();
  let id = 0;
  let info = null;
  let closing = null;

  const hooks = {
    list(json) {
      const msg = JSON.parse(json);
      if (!lists[msg.kind].apply(msg) && id) {
        report(new Error(`mcplive: ${msg.kind} update did not match the items held; re-syncing`));
        request("resync", { kind: msg.kind }).catch(report);
      }
    },
    status(state, infoJSON) {
      if (infoJSON) info = freezeInfo(JSON.parse(infoJSON));
      const was = status.store.get();
      status.set(state);
      if (state === "ready" && was === "reconnecting") {
        // Updates may have been missed while away: read subscribed resources again.
        for (const sub of resourceSubs.values()) sub.read();
      }
      if (state === "closed" && id && !closing) close(); // closed by itself (reconnect off): free it
    },
    log(json) {
      if (events.has("log")) events.emit("log", Object.freeze(JSON.parse(json)));
    },
    notification(method, paramsJSON) {
      if (events.has("notification")) {
        events.emit("notification", Object.freeze({ method, params: paramsJSON === undefined ? undefined : JSON.parse(paramsJSON) }));
      }
    },
    updated(subId) {
      resourceSubs.get(subId)?.read();
    },
  };

  let connected;
  try {
    connected = JSON.parse(
      await withSignal(
        rt,
        signal,
        (reqId) => rt.api.connect(String(url), goOptions, hooks, reqId),
        // Aborted, but Go had connected already: close what nobody will get.
        (json) => rt.call(() => rt.api.close(JSON.parse(json).id)).catch(() => {}),
      ),
    );
  } catch (err) {
    release();
    throw err;
  }
  id = connected.id;
  info = freezeInfo(connected.info);

  /** request runs one operation on the Go client. */
  function request(op, args, opts = {}, onProgress) {
    if (opts === null || typeof opts !== "object") return Promise.reject(new TypeError("mcplive: call options must be an object"));
    const { signal, timeoutMs } = opts;
    let payload;
    try {
      payload = JSON.stringify({ ...args, timeoutMs: ms("timeoutMs", timeoutMs) });
    } catch (err) {
      return Promise.reject(err);
    }
    return withSignal(rt, signal, (reqId) => rt.api.call(id, reqId, op, payload, onProgress));
  }

  const parsed = (p) => p.then((json) => JSON.parse(json));

  function callTool(name, args, opts = {}) {
    let progress;
    if (opts?.onProgress !== undefined) {
      if (typeof opts.onProgress !== "function") return Promise.reject(new TypeError("mcplive: onProgress must be a function"));
      const fn = opts.onProgress;
      progress = (json) => call(fn, Object.freeze(JSON.parse(json)));
    }
    return parsed(request("callTool", { name: String(name), arguments: args ?? undefined }, opts, progress));
  }

  function getPrompt(name, args, opts) {
    let strings;
    if (args != null) {
      strings = {};
      for (const [k, v] of Object.entries(args)) {
        if (v === undefined) continue;
        if (v !== null && typeof v === "object") return Promise.reject(new TypeError(`mcplive: prompt argument ${k} must be a string`));
        strings[k] = String(v);
      }
    }
    return parsed(request("getPrompt", { name: String(name), arguments: strings }, opts));
  }

  const readResource = (uri, opts) => parsed(request("readResource", { uri: String(uri) }, opts));
  const complete = (params, opts) => parsed(request("complete", { params }, opts));
  const setLoggingLevel = (level, opts) => request("setLoggingLevel", { level: String(level) }, opts).then(() => {});
  const ping = (opts) => request("ping", {}, opts).then(() => {});

  function refresh(kind, opts) {
    if (kind !== undefined && !KINDS.includes(kind)) {
      return Promise.reject(new TypeError(`mcplive: refresh: unknown list kind ${JSON.stringify(kind)}`));
    }
    return request("refresh", { kind: kind ?? "" }, opts).then(() => {});
  }

  function subscribeResource(uri, fn, opts = {}) {
    if (typeof fn !== "function") throw new TypeError("mcplive: subscribeResource needs a callback");
    const onError = typeof opts?.onError === "function" ? opts.onError : (err) => report(err);
    let subId = null;
    let stopped = false;
    let reading = false;
    let again = false;
    // read re-reads the resource after each update: one read at a time, and
    // updates during a read cost exactly one more (no stale content last).
    const read = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const result = await readResource(uri);
          if (!stopped) call(fn, result.contents, result);
        } while (again && !stopped);
      } catch (err) {
        if (!stopped) call(onError, err);
      } finally {
        reading = false;
      }
    };
    request("subscribeResource", { uri: String(uri) }).then(
      (s) => {
        subId = Number(s);
        if (stopped) {
          request("unsubscribeResource", { id: subId }).catch(() => {});
          return;
        }
        resourceSubs.set(subId, { read });
        read();
      },
      (err) => {
        if (!stopped) call(onError, err);
      },
    );
    return () => {
      if (stopped) return;
      stopped = true;
      if (subId !== null) {
        resourceSubs.delete(subId);
        request("unsubscribeResource", { id: subId }).catch((err) => {
          if (err?.name !== "ClosedError") call(onError, err);
        });
      }
    };
  }

  function close() {
    if (!closing) {
      closing = rt
        .call(() => rt.api.close(id))
        .finally(() => {
          resourceSubs.clear();
          status.set("closed");
          release();
        });
    }
    return closing;
  }

  const client = {
    tools: lists.tools.store,
    prompts: lists.prompts.store,
    resources: lists.resources.store,
    resourceTemplates: lists.resourceTemplates.store,
    status: status.store,
    get serverInfo() {
      return info.serverInfo;
    },
    get capabilities() {
      return info.capabilities;
    },
    get protocolVersion() {
      return info.protocolVersion;
    },
    get instructions() {
      return info.instructions || undefined;
    },
    on: events.on,
    callTool,
    getPrompt,
    readResource,
    subscribeResource,
    complete,
    setLoggingLevel,
    ping,
    refresh,
    close,
  };
  if (typeof Symbol.asyncDispose === "symbol") client[Symbol.asyncDispose] = close;
  return Object.freeze(client);
}

/**
 * withSignal starts a Go call with a request id when there is a signal to
 * abort it; an abort rejects at once with the signal's reason and cancels
 * the Go context (which sends notifications/cancelled).
 */
function withSignal(rt, signal, start, orphan) {
  if (signal == null) return rt.call(() => start(0));
  if (typeof signal.addEventListener !== "function") return Promise.reject(new TypeError("mcplive: signal must be an AbortSignal"));
  if (signal.aborted) return Promise.reject(abortError(signal));
  const reqId = rt.requestId();
  return new Promise((resolve, reject) => {
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      try {
        rt.api.abort(reqId);
      } catch {
        // the runtime is gone: nothing to cancel
      }
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    rt.call(() => start(reqId))
      .then(
        (v) => (aborted && orphan ? orphan(v) : resolve(v)),
        reject,
      )
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function freezeInfo(i) {
  const deep = (v) => {
    if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) deep(v[k]);
      Object.freeze(v);
    }
    return v;
  };
  return deep(i);
}

/** ms validates a duration option: undefined → 0 (the default). */
function ms(name, v) {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw new TypeError(`mcplive: ${name} must be a positive number of milliseconds`);
  }
  return v;
}

/** toGoOptions validates the user's options and flattens them for Go. */
function toGoOptions(o) {
  const out = {
    requestTimeoutMs: ms("requestTimeoutMs", o.requestTimeoutMs),
    dialTimeoutMs: ms("dialTimeoutMs", o.dialTimeoutMs),
  };
  if (o.clientInfo !== undefined) {
    const ci = o.clientInfo;
    if (ci === null || typeof ci !== "object" || typeof ci.name !== "string" || !ci.name) {
      throw new TypeError("mcplive: clientInfo must be an object with a name");
    }
    out.clientInfo = { ...ci, version: ci.version === undefined ? "0" : String(ci.version) };
  }
  if (o.maxMessageBytes !== undefined) out.readLimit = ms("maxMessageBytes", o.maxMessageBytes);
  const hb = o.heartbeat;
  if (hb === false) {
    out.heartbeatIntervalMs = -1;
  } else if (hb !== undefined && hb !== true) {
    if (hb === null || typeof hb !== "object") throw new TypeError("mcplive: heartbeat must be false or { intervalMs, timeoutMs }");
    out.heartbeatIntervalMs = ms("heartbeat.intervalMs", hb.intervalMs);
    out.heartbeatTimeoutMs = ms("heartbeat.timeoutMs", hb.timeoutMs);
  }
  const rc = o.reconnect;
  if (rc === false) {
    out.reconnect = false;
  } else if (rc !== undefined && rc !== true) {
    if (rc === null || typeof rc !== "object") throw new TypeError("mcplive: reconnect must be true, false or { initialDelayMs, maxDelayMs }");
    out.reconnectInitialDelayMs = ms("reconnect.initialDelayMs", rc.initialDelayMs);
    out.reconnectMaxDelayMs = ms("reconnect.maxDelayMs", rc.maxDelayMs);
  }
  return out;
}
