// createClient: one client object over a loaded Go runtime. Its stores are
// fed by the Go side's hooks; its calls go to Go as JSON; every rejection
// is a real Error.

import { createStore, createEmitter, call } from "./store.js";
import { createLists, deepFreeze, KINDS } from "./lists.js";
import { createResourceSubscriptions } from "./resources.js";
import { abortError, namedError, toError } from "./errors.js";
import { beforeDial, afterDial, discardEarly } from "./dial.js";
import { LEVELS, checkObject, nonEmptyString, ms } from "./options.js";
import { fresh, rememberRevision, rememberedRevision, tokenContext } from "./cache.js";

/** Decodes the list messages Go hands over as UTF-8 bytes (wasm/hooks.go). */
const EVENTS = Object.freeze(["change", "log", "notification"]);
const CALL_OPTIONS = ["signal", "timeoutMs"];

/**
 * createClient makes a new client at once and connects it in the
 * background. start() loads the runtime (loader.js) and resolves with it
 * and the WebSocket opened for url while it loaded (dial.js: earlyDial),
 * if any, which the first dial adopts. Its options: url and goOptions,
 * validated already (options.js); signal, the app's AbortSignal, if any;
 * token, the app's token callback (Streamable HTTP), if any; fetch, the
 * app's fetch for every Streamable HTTP request, if any; onElicit, the
 * app's answer to a server's request for user input, if any; logger, the
 * app's logger of the client's diagnostics, if any; auth, the app's
 * oauth() object (client.auth), and authBinding, its binding to url (its
 * token callback, and the news of a new authorization, after which every
 * list is listed again); cache, the catalog cache (cache.js), if any, and
 * cached, the Promise of what it holds; retry(err), which says whether a
 * failed connect is tried again (an authorization that the user gives
 * meanwhile: connect.js). client.ready resolves after initialize and the
 * first full sync of every list the server offers.
 *
 * The client's id is chosen before Go connects, so every hook call (a list
 * update that needs a resync, a close) can be acted on, even one that
 * comes before ready resolves.
 */
export function createClient(start, { url, goOptions, signal, token, fetch, onElicit, logger, auth, authBinding, cache = null, cached = null, firstToken = null, retry = async () => false }) {
  let rt = null;
  let id = 0;
  let release = () => {};
  let early = null;

  const events = createEmitter(EVENTS);
  // An update that does not fit what the store holds: ask Go for the whole
  // list again (it comes back as a change with cause "resync").
  const { lists, hook: listHook } = createLists(
    events,
    (kind) => request("resync", { kind }).catch(() => {}),
    cache ? keep : null,
  );
  const status = createStore("connecting");
  let info = null;
  let closing = null;
  let connected = false;
  let selfClosed = false; // closed by itself before ready
  // Set once the client is built; a close before that (the connection closed
  // by itself during connect) has nothing to unbind yet.
  let offAuthorized = () => {};
  // close() before ready: the connect is abandoned.
  const quit = new AbortController();
  const connectSignal = signal == null ? quit.signal : anySignal(signal, quit.signal);

  /** request runs one operation on the Go client (wasm/ops.go), once connected. */
  function request(op, args, opts, onProgress, allowed = CALL_OPTIONS) {
    let payload, timeoutMs, o;
    try {
      o = checkObject("call options", opts, allowed);
      timeoutMs = ms("timeoutMs", o.timeoutMs);
      payload = JSON.stringify(args);
    } catch (err) {
      return Promise.reject(err);
    }
    const run = () => withSignal(rt, o.signal, (reqId) => rt.api.call(id, reqId, op, payload, timeoutMs, onProgress));
    return connected ? run() : ready.then(run);
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
    readResource: (uri) => readResource(uri, undefined, true),
    closed: () => closing !== null,
  });

  const hooks = {
    list: listHook,
    status(state, infoJSON) {
      if (infoJSON) info = deepFreeze(JSON.parse(infoJSON));
      const was = status.store.get();
      status.set(state);
      // Updates may have been missed while away: read subscribed resources again.
      if (state === "ready" && was === "reconnecting") resources.readAll();
      // Closed by itself (reconnect off): free it (once connected).
      if (state === "closed" && !closing) {
        if (connected) close();
        else selfClosed = true;
      }
    },
    log(json) {
      if (events.has("log")) events.emit("log", Object.freeze(JSON.parse(json)));
    },
    notification(method, paramsJSON) {
      // A kept resources/read result of an updated resource is stale now.
      if (cache && method === "notifications/resources/updated") {
        try {
          cache.dropRead(JSON.parse(paramsJSON).uri);
        } catch {
          // not ours to judge
        }
      }
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
  // With auth (mcplive/oauth), the authorization context is the issuer and
  // subject (authBinding.context()), moved only at a new authorization: a
  // refreshed token is the same context, not a new one.
  if (token) hooks.token = tokenHook(token, url, cache, firstToken, authBinding ? Object.assign(() => authBinding.context(), { binding: true }) : (t) => tokenContext(t));
  // The app's fetch sends every Streamable HTTP request (wasm/auth.go).
  if (fetch) hooks.fetch = fetch;
  if (onElicit) hooks.elicit = elicitHook(onElicit);
  if (logger) hooks.diag = diagHook(logger);

  /** keep writes a ready list to the cache as the store shows it. */
  function keep(kind) {
    const v = lists[kind].store.get();
    if (v.status === "ready" && v.source === "server") cache.putList(kind, v);
    else if (v.status === "unsupported") cache.dropList(kind);
  }

  // The kept catalog, shown as soon as it is read (before the runtime has
  // started, most of the time); its revision is the one tried first.
  const seeds = cached?.then((c) => {
    if (!connected && !closing) for (const kind of KINDS) if (c.lists[kind]) lists[kind].seed(c.lists[kind]);
    return c;
  }).catch(() => null);

  async function connectGo() {
    const loaded = await start(connectSignal);
    rt = loaded.rt;
    early = loaded.early;
    const kept = seeds ? await seeds : null;
    const opts = { ...goOptions };
    const revision = goOptions.protocolVersion ? "" : kept?.revision || rememberedRevision(url);
    if (revision) opts.revisionHint = revision;
    if (kept) opts.seeds = seedsFor(kept.lists);
    for (;;) {
      id = rt.clientId();
      release = rt.hold(); // Go's timers keep Node alive while this client lives
      try {
        const got = await withSignal(
          rt,
          connectSignal,
          (reqId) => rt.api.connect(url, opts, hooks, reqId, id),
          // Aborted, but Go had connected already: close what nobody will get.
          () => rt.call(() => rt.api.close(id)).catch(() => {}),
        );
        info ??= deepFreeze(JSON.parse(got));
        break;
      } catch (err) {
        release();
        release = () => {};
        if (!(await retry(err, connectSignal))) throw err;
      } finally {
        discardEarly(early); // never dialed (an error or an abort before the dial)
        early = null;
      }
    }
    connected = true;
    if (selfClosed) {
      close();
      return;
    }
    // What an unpinned connect found is what the next one tries first.
    if (!goOptions.protocolVersion) rememberRevision(url, info.protocolVersion);
    if (cache) {
      if (!goOptions.protocolVersion) cache.setRevision(info.protocolVersion);
      for (const kind of KINDS) keep(kind);
    }
    // Lists may differ per authorization: a new one (a sign-in, a step-up,
    // another user, a sign-out) lists every list again.
    if (authBinding && !closing) {
      offAuthorized = authBinding.onAuthorized(() => {
        if (closing) return;
        if (cache) authBinding.context().then((c) => cache.setContext(c), () => cache.setContext(null));
        refresh().catch(() => {});
      });
    }
  }

  const ready = connectGo().catch((err) => {
    status.set("closed");
    throw err;
  });
  // An app that renders from the stores may never await ready: its
  // rejection is the client's status "closed", not an unhandled rejection.
  ready.catch(() => {});

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

  function readResource(uri, opts, live = false) {
    const bad = valid(() => nonEmptyString("readResource: the URI", uri instanceof URL ? String(uri) : uri));
    if (bad) return rejectWith(bad);
    const key = String(uri);
    // A fresh kept result (its ttlMs not run out, no update since) answers at once.
    const kept = live ? undefined : cache?.getRead(key);
    if (kept !== undefined) return Promise.resolve(structuredCopy(kept));
    const asked = Date.now();
    return parsed(request("readResource", { uri: key }, opts)).then((res) => {
      // A result of a retried request (inputResponses, requestState) comes
      // in an array (wasm/ops.go): never cached.
      if (Array.isArray(res)) return res[0];
      cache?.putRead(key, res, asked);
      return res;
    });
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

  function close() {
    if (!closing) {
      offAuthorized();
      if (!connected) {
        // Before ready: the connect is abandoned (ready rejects with an AbortError).
        quit.abort(namedError("AbortError", "mcplive: the client was closed before it was ready"));
        closing = ready.then(close2, () => {}).finally(() => {
          resources.clear();
          status.set("closed");
        });
        return closing;
      }
      closing = close2();
    }
    return closing;
  }

  function close2() {
    return rt
      .call(() => rt.api.close(id))
      .finally(() => {
        resources.clear();
        status.set("closed");
        release();
      });
  }

  const client = {
    tools: lists.tools.store,
    prompts: lists.prompts.store,
    resources: lists.resources.store,
    resourceTemplates: lists.resourceTemplates.store,
    status: status.store,
    auth: auth ?? null,
    get serverInfo() {
      return info?.serverInfo;
    },
    get capabilities() {
      return info?.capabilities;
    },
    get protocolVersion() {
      return info?.protocolVersion;
    },
    get instructions() {
      return info?.instructions || undefined;
    },
    ready,
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
function tokenHook(fn, url, cache, first, contextOf) {
  return (done, refusal, method, requestUrl) => {
    // The first token may have been asked for already, to find the
    // authorization context of the kept catalog (connect.js).
    let p = first;
    first = null;
    const error = typeof refusal === "string" ? toError(JSON.parse(refusal)) : undefined;
    // mcplive/oauth's binding also gets the request's method and URL (a DPoP proof is made for them).
    const arg = contextOf.binding ? { url, error, method: method || undefined, requestUrl: requestUrl || undefined } : { url, error };
    if (p === null || typeof refusal === "string") p = Promise.resolve().then(() => fn(Object.freeze(arg)));
    p.then(async (t) => {
        // A DPoP-bound token (mcplive/oauth): the token and this request's proof.
        if (contextOf.binding && t !== null && typeof t === "object" && typeof t.token === "string" && typeof t.dpop === "string") {
          checkToken(t.token);
          if (cache) cache.setContext(await Promise.resolve().then(() => contextOf(t.token)).catch(() => null));
          return `d:${t.token}\n${t.dpop}`;
        }
        if (t != null && typeof t !== "string") throw new TypeError(`it must give a string, got ${typeof t}`);
        if (t) checkToken(t);
        // Another authorization context: the kept private results of the
        // one before are removed. With mcplive/oauth the context is the
        // issuer and subject, which a refreshed token keeps.
        if (cache) cache.setContext(await Promise.resolve().then(() => contextOf(t ?? "")).catch(() => null));
        return `t:${t ?? ""}`;
      })
      .catch((err) => `e:${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`)
      .then(done);
  };
}

/**
 * checkToken refuses a token outside RFC 6750's b64token (RFC 9449's DPoP
 * tokens are the same token68), before it goes into a header: fetch's own
 * error for a control character quotes the whole header value, the token
 * with it. The error never shows the token.
 */
function checkToken(t) {
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(t)) throw new TypeError("the token it gave has a character a token may not have (RFC 6750 b64token: letters, digits and -._~+/ then =); it is not sent");
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
 * seedsFor flattens the kept lists that are fresh now for Go (wasm/options.go:
 * readSeeds), which checks their freshness again when it syncs.
 */
function seedsFor(kept) {
  const out = [];
  for (const kind of KINDS) {
    const e = kept[kind];
    if (fresh(e)) out.push(kind, JSON.stringify(e.items), e.ttlMs, e.receivedAt, e.cacheScope);
  }
  return out;
}

/** anySignal aborts when a or b does. */
function anySignal(a, b) {
  if (typeof AbortSignal.any === "function" && a instanceof AbortSignal) return AbortSignal.any([a, b]);
  if (typeof a.addEventListener !== "function") return a; // withSignal rejects it
  const ac = new AbortController();
  const on = (s) => () => ac.abort(s.reason);
  if (a.aborted) ac.abort(a.reason);
  else if (b.aborted) ac.abort(b.reason);
  a.addEventListener("abort", on(a), { once: true });
  b.addEventListener("abort", on(b), { once: true });
  return ac.signal;
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

/** structuredCopy copies a kept JSON value, so the app may change what it gets. */
const structuredCopy = (v) => JSON.parse(JSON.stringify(v));
