// createClient: one client object over a loaded Go runtime. Its stores are
// fed by the Go side's hooks; its calls go to Go as JSON; every rejection
// is a real Error.

import { createStore, createEmitter, call } from "./store.js";
import { createList, KINDS } from "./lists.js";
import { createResourceSubscriptions } from "./resources.js";
import { abortError, namedError, toError } from "./errors.js";
import { beforeDial, afterDial, discardEarly } from "./dial.js";
import { LEVELS, checkObject, nonEmptyString, ms } from "./options.js";

/** Decodes the list messages Go hands over as UTF-8 bytes (wasm/hooks.go). */
const utf8 = new TextDecoder();

const EVENTS = Object.freeze(["change", "log", "notification"]);
const CALL_OPTIONS = ["signal", "timeoutMs"];

/**
 * createClient connects a new client through the runtime rt (loader.js).
 * Its options: url and goOptions, validated already (options.js); signal,
 * the app's AbortSignal, if any; token, the app's token callback
 * (Streamable HTTP), if any; onElicit, the app's answer to a server's
 * request for user input, if any; logger, the app's logger of the client's
 * diagnostics, if any; early, the WebSocket connect() opened for url while
 * the runtime loaded (dial.js: earlyDial), if any, which the first dial
 * adopts; auth, the app's oauth() object (client.auth), and authBinding,
 * its binding to url (its token callback, and the news of a new
 * authorization, after which every list is listed again). It resolves
 * after initialize and the first full sync of every list the server
 * offers.
 *
 * The client's id is chosen here, before Go connects, so every hook call
 * (a list update that needs a resync, a close) can be acted on, even one
 * that comes before connect resolves.
 */
export async function createClient(rt, { url, goOptions, signal, token, onElicit, logger, early = null, auth, authBinding }) {
  const id = rt.clientId();
  const release = rt.hold(); // Go's timers keep Node alive while this client lives

  const events = createEmitter(EVENTS);
  const lists = Object.fromEntries(KINDS.map((kind) => [kind, createList(kind, (ev) => events.emit("change", ev))]));
  const status = createStore("connecting");
  let info = null;
  let closing = null;
  // Set once the client is built; a close before that (the connection closed
  // by itself during connect) has nothing to unbind yet.
  let offAuthorized = () => {};

  /** request runs one operation on the Go client (wasm/ops.go). */
  function request(op, args, opts, onProgress, allowed = CALL_OPTIONS) {
    let payload, timeoutMs, o;
    try {
      o = checkObject("call options", opts, allowed);
      timeoutMs = ms("timeoutMs", o.timeoutMs);
      payload = JSON.stringify(args);
    } catch (err) {
      return Promise.reject(err);
    }
    return withSignal(rt, o.signal, (reqId) => rt.api.call(id, reqId, op, payload, timeoutMs, onProgress));
  }

  const parsed = (p) => p.then((json) => JSON.parse(json));
  const rejectWith = (err) => Promise.reject(err);
  const valid = (fn) => {
    try {
      fn();
      return null;
    } catch (err) {
      return err;
    }
  };

  const resources = createResourceSubscriptions({
    request: (op, args) => request(op, args),
    readResource: (uri) => readResource(uri),
    closed: () => closing !== null,
  });

  const hooks = {
    list(bytes, length) {
      const msg = JSON.parse(typeof bytes === "string" ? bytes : utf8.decode(bytes.subarray(0, length)));
      // An update that does not fit what the store holds: ask Go for the
      // whole list again (it comes back as a change with cause "resync").
      if (!lists[msg.kind].apply(msg)) request("resync", { kind: msg.kind }).catch(() => {});
    },
    status(state, infoJSON) {
      if (infoJSON) info = deepFreeze(JSON.parse(infoJSON));
      const was = status.store.get();
      status.set(state);
      // Updates may have been missed while away: read subscribed resources again.
      if (state === "ready" && was === "reconnecting") resources.readAll();
      if (state === "closed" && !closing) close(); // closed by itself (reconnect off): free it
    },
    log(json) {
      if (events.has("log")) events.emit("log", Object.freeze(JSON.parse(json)));
    },
    notification(method, paramsJSON) {
      if (events.has("notification")) {
        events.emit("notification", Object.freeze({ method, params: paramsJSON === undefined ? undefined : JSON.parse(paramsJSON) }));
      }
    },
    updated: (subId) => resources.updated(subId),
    // The first dial adopts the early socket; later ones (reconnects) dial anew.
    beforeDial() {
      const e = early;
      early = null;
      return beforeDial(e);
    },
    afterDial,
  };
  if (token) hooks.token = tokenHook(token, url);
  if (onElicit) hooks.elicit = elicitHook(onElicit);
  if (logger) hooks.diag = diagHook(logger);

  try {
    const connected = await withSignal(
      rt,
      signal,
      (reqId) => rt.api.connect(url, goOptions, hooks, reqId, id),
      // Aborted, but Go had connected already: close what nobody will get.
      () => rt.call(() => rt.api.close(id)).catch(() => {}),
    );
    info ??= deepFreeze(JSON.parse(connected));
  } catch (err) {
    release();
    throw err;
  } finally {
    discardEarly(early); // never dialed (an error or an abort before the dial)
  }

  function callTool(name, args, opts) {
    const bad = valid(() => {
      nonEmptyString("callTool: the tool name", name);
      if (args != null && (typeof args !== "object" || Array.isArray(args))) throw new TypeError("mcplive: callTool: the arguments must be an object");
      if (opts?.onProgress !== undefined && typeof opts.onProgress !== "function") throw new TypeError("mcplive: onProgress must be a function");
    });
    if (bad) return rejectWith(bad);
    let progress;
    if (opts?.onProgress) {
      const fn = opts.onProgress;
      progress = (json) => call(fn, Object.freeze(JSON.parse(json)));
    }
    return parsed(request("callTool", { name, arguments: args ?? undefined }, opts, progress, [...CALL_OPTIONS, "onProgress"]));
  }

  function getPrompt(name, args, opts) {
    let strings;
    const bad = valid(() => {
      nonEmptyString("getPrompt: the prompt name", name);
      if (args == null) return;
      if (typeof args !== "object" || Array.isArray(args)) throw new TypeError("mcplive: getPrompt: the arguments must be an object");
      strings = {};
      for (const [k, v] of Object.entries(args)) {
        if (v === undefined) continue;
        if (v !== null && typeof v === "object") throw new TypeError(`mcplive: prompt argument ${k} must be a string`);
        strings[k] = String(v);
      }
    });
    if (bad) return rejectWith(bad);
    return parsed(request("getPrompt", { name, arguments: strings }, opts));
  }

  function readResource(uri, opts) {
    const bad = valid(() => nonEmptyString("readResource: the URI", uri instanceof URL ? String(uri) : uri));
    if (bad) return rejectWith(bad);
    return parsed(request("readResource", { uri: String(uri) }, opts));
  }

  function complete(params, opts) {
    const bad = valid(() => {
      if (params === null || typeof params !== "object" || typeof params.ref !== "object" || typeof params.argument !== "object") {
        throw new TypeError("mcplive: complete needs { ref, argument }");
      }
    });
    if (bad) return rejectWith(bad);
    return parsed(request("complete", { params }, opts));
  }

  function setLoggingLevel(level, opts) {
    if (!LEVELS.includes(level)) {
      return rejectWith(new TypeError(`mcplive: setLoggingLevel: ${JSON.stringify(level)} is not a level (use ${LEVELS.join(", ")})`));
    }
    return request("setLoggingLevel", { level }, opts).then(() => {});
  }

  const ping = (opts) => request("ping", {}, opts).then(() => {});

  function refresh(kind, opts) {
    if (kind !== undefined && !KINDS.includes(kind)) {
      return rejectWith(new TypeError(`mcplive: refresh: unknown list kind ${JSON.stringify(kind)}`));
    }
    return request("refresh", { kind: kind ?? "" }, opts).then(() => {});
  }

  // Lists may differ per authorization: a new one (a sign-in, a step-up,
  // another user, a sign-out) lists every list again.
  if (authBinding && !closing) offAuthorized = authBinding.onAuthorized(() => closing || refresh().catch(() => {}));

  function close() {
    if (!closing) {
      offAuthorized();
      closing = rt
        .call(() => rt.api.close(id))
        .finally(() => {
          resources.clear();
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
    auth: auth ?? null,
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
    subscribeResource: resources.subscribe,
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
 * tokenHook adapts the app's token callback for Go (wasm/auth.go), which
 * calls it as hook(done, refusal) before each Streamable HTTP request, and
 * again with the refusal (an AuthError description, JSON) after a 401: the
 * app may then get a new token (its OAuth flow), which the retry sends. The
 * app gets { url, error }; what it returns (or its Promise's value) must be
 * a string, or null, undefined or "" for none. Go gets done("t:" + token)
 * or done("e:" + why) once that settled.
 */
function tokenHook(fn, url) {
  return (done, refusal) => {
    Promise.resolve()
      .then(() => fn(Object.freeze({ url, error: typeof refusal === "string" ? toError(JSON.parse(refusal)) : undefined })))
      .then((t) => {
        if (t != null && typeof t !== "string") throw new TypeError(`it must give a string, got ${typeof t}`);
        return `t:${t ?? ""}`;
      })
      .catch((err) => `e:${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`)
      .then(done);
  };
}

const ACTIONS = ["accept", "decline", "cancel"];

/**
 * diagHook hands the client's diagnostics (wasm/logger.go) to the app's
 * logger: logger.warn("mcplive: …", { tool, err }) and so on. A level the
 * logger has no method for is dropped; a logger that throws is reported by
 * Go on the console, never fatal.
 */
function diagHook(logger) {
  return (level, message, attrsJSON) => {
    const fn = logger[level];
    if (typeof fn === "function") fn.call(logger, message, Object.freeze(JSON.parse(attrsJSON)));
  };
}

/**
 * elicitHook adapts the app's onElicit callback for Go (wasm/elicit.go),
 * which calls it as hook(done, paramsJSON) when the server asks for user
 * input, and calls the function it returns when that request is cancelled.
 * The app gets (request, { signal }): the request's params ({ message,
 * requestedSchema }), frozen, and a signal that aborts when the server
 * cancels the request, the call is aborted or the connection ends. It
 * returns (or resolves to) { action, content? }. Go gets done("r:" + the
 * answer as JSON) or done("e:" + why), once.
 */
function elicitHook(fn) {
  return (done, paramsJSON) => {
    const ac = new AbortController();
    let settled = false;
    const finish = (s) => {
      if (!settled) {
        settled = true;
        done(s);
      }
    };
    Promise.resolve()
      .then(() => fn(deepFreeze(JSON.parse(paramsJSON)), Object.freeze({ signal: ac.signal })))
      .then((r) => {
        if (r === null || typeof r !== "object" || !ACTIONS.includes(r.action)) {
          throw new TypeError(`it must give { action: "accept" | "decline" | "cancel", content? }, got ${r === null || typeof r !== "object" ? String(r) : JSON.stringify(r.action)}`);
        }
        if (r.content != null && (typeof r.content !== "object" || Array.isArray(r.content))) throw new TypeError("its content must be an object");
        return `r:${JSON.stringify({ action: r.action, content: r.content ?? undefined })}`;
      })
      .catch((err) => `e:${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`)
      .then(finish);
    return () => {
      ac.abort(namedError("AbortError", "mcplive: the request for input was cancelled (by the server, the call's signal or timeout, or the end of the connection)"));
      finish("e:aborted");
    };
  };
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

function deepFreeze(i) {
  const deep = (v) => {
    if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) deep(v[k]);
      Object.freeze(v);
    }
    return v;
  };
  return deep(i);
}
