// A client's hooks (client.js is the face): what Go calls in JavaScript
// (wasm/hooks.go): a list message, the connection's status, a log message
// or any other notification, a subscribed resource's update, the dial of a
// WebSocket, and the app's callbacks adapted for Go: its token (wasm/auth.go),
// its answer to a server's request for input (wasm/elicit.go), its logger
// (wasm/logger.go) and its fetch. The calls, what JavaScript asks of Go,
// are in clientcalls.js.

import { deepFreeze } from "./lists.js";
import { namedError, toError } from "./errors.js";
import { beforeDial, afterDial } from "./dial.js";
import { tokenContext } from "./cache.js";

/**
 * createHooks makes the hooks object Go's connect takes. list is the lists'
 * hook (lists.js); status(state, infoJSON) is the client's own (client.js);
 * events gets "log" and "notification"; cache, when not null, drops a kept
 * read of an updated resource; resources (resources.js) gets updates;
 * takeEarly() hands over the WebSocket opened while the runtime loaded
 * (dial.js: earlyDial), once. url, token, firstToken and authBinding make
 * the token hook; fetch, onElicit and logger are the app's, when given.
 */
export function createHooks({ list, status, events, cache, resources, takeEarly, url, token, firstToken, authBinding, fetch, onElicit, logger }) {
  const hooks = {
    list,
    status,
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
      return beforeDial(takeEarly());
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
  return hooks;
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
