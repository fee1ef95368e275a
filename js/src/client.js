// createClient: one client object over a loaded Go runtime. This file is
// its face: the connect (and the retry of it), the request every call goes
// through, close, and the object. Its stores are fed by the Go side's hooks
// (clienthooks.js); its calls go to Go as JSON (clientcalls.js); every
// rejection is a real Error.

import { createStore, createEmitter } from "./store.js";
import { createLists, deepFreeze } from "./lists.js";
import { KINDS } from "./kinds.js";
import { createResourceSubscriptions } from "./resources.js";
import { abortError, namedError } from "./errors.js";
import { discardEarly } from "./dial.js";
import { checkObject, ms, PROTOCOL_VERSIONS } from "./options.js";
import { fresh, rememberRevision, rememberedRevision } from "./cache.js";
import { createHooks } from "./clienthooks.js";
import { createCalls, CALL_OPTIONS } from "./clientcalls.js";

/** The client's events (client.on). */
const EVENTS = Object.freeze(["change", "log", "notification"]);

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

  const calls = createCalls({ request, cache });
  const { readResource, refresh } = calls;
  const resources = createResourceSubscriptions({
    request: (op, args) => request(op, args),
    readResource: (uri) => readResource(uri, undefined, true),
    closed: () => closing !== null,
  });

  /** onStatus is the status hook: the connection's state, and the server's info with the first. */
  function onStatus(state, infoJSON) {
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
  }

  const hooks = createHooks({
    list: listHook,
    status: onStatus,
    events,
    cache,
    resources,
    takeEarly() {
      const e = early;
      early = null;
      return e;
    },
    url,
    token,
    firstToken,
    authBinding,
    fetch,
    onElicit,
    logger,
  });

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
    // The kept server/discover result: the session starts with it instead
    // of asking first (era.go: adopt), and asks beside its first requests
    // unless it is still fresh; a fresh one is not written again.
    const prior = (revision || goOptions.protocolVersion) === PROTOCOL_VERSIONS[0] && kept?.discover ? kept.discover : null;
    if (prior) {
      opts.prior = JSON.stringify(prior.result);
      opts.priorReceivedAt = prior.receivedAt;
    }
    const askedAt = Date.now();
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
      if (!(prior && fresh(prior))) cache.putDiscover(info.discover ?? null, askedAt);
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
    callTool: calls.callTool,
    getPrompt: calls.getPrompt,
    readResource,
    subscribeResource: resources.subscribe,
    complete: calls.complete,
    setLoggingLevel: calls.setLoggingLevel,
    ping: calls.ping,
    refresh,
    close,
  };
  if (typeof Symbol.asyncDispose === "symbol") client[Symbol.asyncDispose] = close;
  return Object.freeze(client);
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
