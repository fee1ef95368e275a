// open() and connect(): validate what the user passed, load the Go runtime
// once per realm, and create the client (client.js); the catalog cache
// (cache.js), if any, is read while the runtime loads.

import { loadRuntime } from "./loader.js";
import { createClient } from "./client.js";
import { earlyDial, discardEarly } from "./dial.js";
import { abortError, namedError } from "./errors.js";
import { checkURL, toGoOptions } from "./options.js";
import { openCache, tokenContext } from "./cache.js";

/** The longest the wasm's loading waits for the kept catalog (a storage that hangs must not hold the client). */
const GATE_MS = 100;

/** How an oauth() object (mcplive/oauth, js/src/oauth/auth.js: BIND) is attached to a server. */
const AUTH_BIND = Symbol.for("mcplive.oauth.bind");

/**
 * open returns a live client at once, its stores "loading" (or showing the
 * kept catalog, with the cache option); client.ready resolves after
 * initialize and the first full sync of every list the server offers, and
 * rejects as connect does. A mistake in the options throws here.
 * @param {string | URL} url
 * @param {object} [options]
 */
export function open(url, options = {}) {
  const goOptions = toGoOptions(options);
  const target = checkURL(url, options);
  // The auth option (mcplive/oauth): its token callback feeds the Go core.
  const authBinding = options.auth === undefined ? null : options.auth[AUTH_BIND](target);
  const { signal, logger } = options;
  const token = authBinding?.token ?? options.token;

  // The authorization context of the kept private results: the OAuth
  // issuer and subject, or a hash of the token callback's first value
  // (asked for now, while the runtime loads; Go's first request uses it).
  let firstToken = null;
  let context = Promise.resolve("anonymous");
  if (options.cache !== undefined) {
    if (authBinding) context = authBinding.context();
    else if (options.token) {
      firstToken = Promise.resolve().then(() => options.token(Object.freeze({ url: target, error: undefined })));
      firstToken.catch(() => {}); // the token hook reports it
      context = firstToken.then((t) => (typeof t === "string" || t == null ? tokenContext(t ?? "") : null));
    }
  }
  const cache = openCache(options.cache, target, context, logger);
  const cached = cache?.load() ?? null;
  // Settles once the kept catalog is in the stores (client.js: seeds).
  const shown = cached === null ? null : cached.then(() => {}, () => {});

  async function start(sig) {
    if (sig.aborted) throw abortError(sig);
    if (typeof globalThis.WebSocket !== "function" && /^wss?:/i.test(target)) {
      throw namedError(
        "DialError",
        "mcplive: this JS runtime has no global WebSocket" +
          (typeof process === "object" && process.versions?.node ? " (Node 20 needs --experimental-websocket; Node 22 has it)" : ""),
      );
    }
    // The WebSocket handshake runs while the wasm downloads, compiles and
    // starts; the client's first dial adopts the socket (dial.js).
    const early = /^wss?:/i.test(target) ? earlyDial(target) : null;
    // The kept catalog is read and shown first (a few ms; GATE_MS at most):
    // a wasm whose compiled code the browser cached is taken from that cache
    // on the page's thread, which would hold the catalog back meanwhile.
    if (shown) {
      let timer;
      await Promise.race([shown, new Promise((r) => (timer = setTimeout(r, GATE_MS)))]);
      clearTimeout(timer);
    }
    try {
      return { rt: await loadRuntime(options.wasmUrl), early };
    } catch (err) {
      discardEarly(early);
      throw err;
    }
  }

  let retried = 0;
  // The server wants an authorization this client does not have yet: while
  // it waits for the user (client.auth.authorize() from a click, or an
  // authorize option that takes longer than a request may), wait for it and
  // connect again; a flow that failed says why.
  async function retry(err, sig) {
    if (!authBinding) return false;
    const s = authBinding.status();
    if (s === "needs-authorization" || s === "authorizing") await authBinding.waitAuthorized(sig);
    else if (err?.name !== "AuthError") return false;
    else if (s !== "authorized" || retried >= 2) throw authBinding.lastError() ?? err;
    retried++;
    return true;
  }

  return createClient(start, { url: target, goOptions, signal, token, fetch: authBinding?.observe ? observing(options.fetch, authBinding.observe) : options.fetch, firstToken, onElicit: options.onElicit, logger, auth: options.auth, authBinding, cache, cached, retry });
}

/**
 * connect opens a live client. It resolves after initialize and the first
 * full sync of every list the server offers: open, then await ready.
 * @param {string | URL} url
 * @param {object} [options]
 */
export async function connect(url, options = {}) {
  const client = open(url, options);
  await client.ready;
  return client;
}

/**
 * observing wraps the fetch of a server's requests (the app's, else the
 * global one at call time) so that the auth binding sees every answer:
 * with DPoP, a resource server may send a new DPoP-Nonce on any response,
 * a successful one too (RFC 9449 section 9), and the next proof must
 * carry it.
 */
function observing(appFetch, observe) {
  return async (input, init) => {
    const res = await (appFetch ?? globalThis.fetch)(input, init);
    observe(res);
    return res;
  };
}
