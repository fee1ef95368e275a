// viaBridge: a fetch (the fetch option of connect, open, hub.add and
// oauth()) that carries a server's requests through mcplive-bridge
// (cmd/mcplive-bridge), so that the server's URL stays its identity.

/**
 * viaBridge returns a fetch for a server reached through mcplive-bridge.
 * A request to the bridge itself (a stdio server it serves) gets the
 * bridge's token; a request to any other URL (a remote server without
 * CORS, and the OAuth endpoints its metadata names) goes to the bridge's
 * /forward with that URL in X-Bridge-Target, so the server's own URL stays
 * what the page talks to (the OAuth resource, the cache keys).
 * @param {string | URL} bridgeUrl the bridge's address (any URL on it)
 * @param {{ token?: string, fetch?: typeof fetch }} [options]
 * @returns {typeof fetch}
 */
export function viaBridge(bridgeUrl, options = {}) {
  let bridge;
  try {
    bridge = new URL(String(bridgeUrl));
  } catch {
    throw new TypeError(`mcplive: viaBridge: ${JSON.stringify(String(bridgeUrl))} is not an absolute URL (the bridge prints its own, e.g. http://127.0.0.1:8787/mcp)`);
  }
  if (bridge.protocol !== "http:" && bridge.protocol !== "https:") {
    throw new TypeError(`mcplive: viaBridge: the bridge's URL is http://…, got ${bridge.protocol}`);
  }
  if (options === null || typeof options !== "object") throw new TypeError("mcplive: viaBridge: the options must be an object");
  for (const k of Object.keys(options)) {
    if (k !== "token" && k !== "fetch") throw new TypeError(`mcplive: viaBridge: unknown option ${JSON.stringify(k)} (known: token, fetch)`);
  }
  const { token, fetch: base } = options;
  if (token !== undefined && (typeof token !== "string" || token === "")) throw new TypeError("mcplive: viaBridge: token must be the non-empty string the bridge printed");
  if (base !== undefined && typeof base !== "function") throw new TypeError("mcplive: viaBridge: fetch must be a function");
  const forward = bridge.origin + "/forward";
  return function bridgeFetch(input, init = {}) {
    const send = base ?? globalThis.fetch;
    let url = input;
    if (typeof Request === "function" && input instanceof Request) {
      // A Request: its parts, then init's, as fetch(request, init) reads them.
      url = input.url;
      init = { method: input.method, headers: input.headers, body: input.body, signal: input.signal, redirect: input.redirect, duplex: "half", ...init };
    }
    const target = new URL(String(url));
    const headers = new Headers(init.headers);
    if (token !== undefined) headers.set("X-Bridge-Token", token);
    if (target.origin === bridge.origin) return send(target.href, { ...init, headers });
    headers.set("X-Bridge-Target", target.href);
    return send(forward, { ...init, headers });
  };
}
