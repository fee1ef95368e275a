// connect(): validates what the user passed, loads the Go runtime once per
// realm, and creates the client (client.js).

import { loadRuntime } from "./loader.js";
import { createClient } from "./client.js";
import { earlyDial, discardEarly } from "./dial.js";
import { abortError } from "./errors.js";
import { checkURL, toGoOptions } from "./options.js";

/**
 * connect opens a live client. It resolves after initialize and the first
 * full sync of every list the server offers.
 * @param {string | URL} url
 * @param {object} [options]
 */
export async function connect(url, options = {}) {
  const goOptions = toGoOptions(options);
  const target = checkURL(url, options);
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  if (typeof globalThis.WebSocket !== "function" && /^wss?:/i.test(target)) {
    throw new Error(
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
  return createClient(rt, target, goOptions, signal, options.token, options.onElicit, options.logger, early);
}
