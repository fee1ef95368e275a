// connect(): validates what the user passed, loads the Go runtime once per
// realm, and creates the client (client.js).

import { loadRuntime } from "./loader.js";
import { createClient } from "./client.js";
import { earlyDial, discardEarly } from "./dial.js";
import { abortError, namedError } from "./errors.js";
import { checkURL, toGoOptions } from "./options.js";

/** How an oauth() object (mcplive/oauth, js/src/oauth/auth.js: BIND) is attached to a server. */
const AUTH_BIND = Symbol.for("mcplive.oauth.bind");

/**
 * connect opens a live client. It resolves after initialize and the first
 * full sync of every list the server offers.
 * @param {string | URL} url
 * @param {object} [options]
 */
export async function connect(url, options = {}) {
  const goOptions = toGoOptions(options);
  const target = checkURL(url, options);
  // The auth option (mcplive/oauth): its token callback feeds the Go core.
  const authBinding = options.auth === undefined ? null : options.auth[AUTH_BIND](target);
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
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
  let rt;
  try {
    rt = await loadRuntime(options.wasmUrl);
  } catch (err) {
    discardEarly(early);
    throw err;
  }
  const opts = { url: target, goOptions, signal, token: authBinding?.token ?? options.token, onElicit: options.onElicit, logger: options.logger, early, auth: options.auth, authBinding };
  for (let retried = 0; ; retried++) {
    try {
      return await createClient(rt, opts);
    } catch (err) {
      if (!authBinding) throw err;
      // The server wants an authorization this client does not have yet:
      // while it waits for the user (client.auth.authorize() from a click,
      // or an authorize option that takes longer than a request may), wait
      // for it and connect again; a flow that failed says why.
      const s = authBinding.status();
      if (s === "needs-authorization" || s === "authorizing") await authBinding.waitAuthorized(signal);
      else if (err?.name !== "AuthError") throw err;
      else if (s !== "authorized" || retried >= 2) throw authBinding.lastError() ?? err;
    }
  }
}
