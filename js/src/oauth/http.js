// The flow's HTTP: every request to a metadata, registration, token or
// revocation endpoint goes through request(), which refuses insecure URLs,
// sends no cookies and no MCP headers, follows no redirect where one could
// carry a secret elsewhere, bounds the wait and the size of the answer, and
// turns what fetch reports into an OAuthError that names the server and the
// step.

import { OAuthError, redactURL } from "./errors.js";

export { redactURL };

/** MAX_BYTES bounds every answer the flow reads (metadata, tokens). */
export const MAX_BYTES = 1 << 20;

/** The default bound on each request of the flow. */
export const DEFAULT_TIMEOUT_MS = 15_000;

/** inBrowser: a page or a worker, where a CORS refusal looks like an unreachable server. */
export const inBrowser = typeof process !== "object" || typeof process.versions?.node !== "string";

/** isLoopback reports a host that names this machine (RFC 8252: plain http is allowed there). */
export function isLoopback(hostname) {
  const h = hostname.toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const v4 = ipv4Of(h);
  if (v4) return v4[0] === 127;
  const v6 = ipv6Of(h);
  return v6 !== null && v6.every((g, i) => g === (i === 7 ? 1 : 0));
}

/** ipv4Of parses a dotted IPv4 literal (as URL writes every IPv4 form) into its 4 bytes, or null. */
function ipv4Of(h) {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  return b.every((x) => x <= 255) ? b : null;
}

/** ipv6Of parses a bracketed IPv6 literal (URL's form) into its 8 groups, or null. */
function ipv6Of(h) {
  if (!h.startsWith("[") || !h.endsWith("]")) return null;
  let s = h.slice(1, -1);
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const b = ipv4Of(tail[1]);
    if (!b) return null;
    s = s.slice(0, -tail[1].length) + `${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, rest] = s.split("::");
  const hs = head ? head.split(":") : [];
  const rs = rest === undefined ? [] : rest ? rest.split(":") : [];
  const fill = rest === undefined ? 0 : 8 - hs.length - rs.length;
  const groups = [...hs, ...Array(Math.max(0, fill)).fill("0"), ...rs].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

/** privateV4: loopback, private (RFC 1918), link-local, shared (CGNAT), "this network" and broadcast. */
function privateV4([a, b]) {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
}

/**
 * isPrivateHost reports a host on this machine or a private network: a
 * loopback, private, link-local or unique-local literal (IPv4-mapped and
 * NAT64 IPv6 forms included), localhost, or a name of a local-only
 * domain (.local, .internal, .home.arpa, .lan). A name that resolves to
 * such an address is not caught here (no DNS lookup).
 */
export function isPrivateHost(hostname) {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  if (isLoopback(h)) return true;
  if (/(^|\.)(local|internal|lan|home\.arpa)$/.test(h) || !h.includes(".") && !h.startsWith("[")) return true;
  const v4 = ipv4Of(h);
  if (v4) return privateV4(v4);
  const g = ipv6Of(h);
  if (!g) return false;
  const embedded = [((g[6] >> 8) & 255), g[6] & 255, (g[7] >> 8) & 255, g[7] & 255];
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return g[5] === 0 && g[6] === 0 ? true : privateV4(embedded); // ::ffff:a.b.c.d, ::a.b.c.d, ::, ::1
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return privateV4(embedded); // NAT64
  return (g[0] & 0xfe00) === 0xfc00 || (g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xff00) === 0xff00;
}

/**
 * checkURL parses an endpoint and refuses what the flow must never reach:
 * any scheme but https, plain http other than to loopback, and (unless the
 * MCP server is itself on one, or the app allows it: allowPrivateNetwork)
 * a loopback or private-network host: a remote server may not send the
 * client to the user's own machine or network.
 * @param {{ server: string, allowPrivateNetwork?: boolean } | string} ctx
 * @returns {URL}
 */
export function checkURL(value, what, ctx) {
  const server = typeof ctx === "string" ? ctx : ctx.server;
  let u;
  try {
    u = new URL(String(value));
  } catch {
    throw new OAuthError("insecure_url", `${server}: ${what} is not an absolute URL`, { step: what, server });
  }
  if (u.protocol !== "https:" && !(u.protocol === "http:" && isLoopback(u.hostname))) {
    throw new OAuthError("insecure_url", `${server}: ${what} ${u.protocol === "http:" ? redactURL(u.href) : JSON.stringify(u.protocol)} refused: the flow speaks https only (plain http to loopback only)`, { step: what, server });
  }
  if (isPrivateHost(u.hostname) && !(typeof ctx === "object" && ctx.allowPrivateNetwork) && !serverIsPrivate(server)) {
    throw new OAuthError(
      "insecure_url",
      `${server}: ${what} ${redactURL(u.href)} refused: it is on this machine or a private network and the MCP server is not (oauth({ allowPrivateNetwork: true }) allows it, for development)`,
      { step: what, server },
    );
  }
  return u;
}

function serverIsPrivate(server) {
  try {
    return isPrivateHost(new URL(server).hostname);
  } catch {
    return false;
  }
}


/**
 * request makes one request of the flow and returns a Response whose body
 * is already read (at most MAX_BYTES), so callers and oauth4webapi can read
 * it as usual.
 * @param {string | URL} url
 * @param {{ method?: string, headers?: HeadersInit, body?: BodyInit, follow?: boolean }} init
 * @param {{ step: string, server: string, timeoutMs?: number, signal?: AbortSignal, fetch?: typeof fetch }} ctx
 */
export async function request(url, init, ctx) {
  let u = checkURL(url, ctx.step, ctx);
  const timeoutMs = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A timer of our own, not AbortSignal.timeout: Node does not wait for
  // that one's timer, and a wait must end in an error, not in an exit.
  const tc = new AbortController();
  const timer = setTimeout(() => tc.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
  const timeout = tc.signal;
  const signal = ctx.signal ? anySignal([ctx.signal, timeout]) : timeout;
  const doFetch = ctx.fetch ?? globalThis.fetch;
  try {
    // A redirect is followed (metadata only) hop by hop, each hop checked
    // as the first URL was; a browser follows them itself (it hides the
    // hops), and the URL it ended on is checked.
    for (let hops = 0; ; hops++) {
      const res = await send(u, init, ctx, doFetch, signal, timeout, timeoutMs);
      if (res instanceof URL) {
        if (hops >= MAX_REDIRECTS) throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: more than ${MAX_REDIRECTS} redirects from ${redactURL(url)}`, { step: ctx.step, server: ctx.server });
        u = checkURL(res.href, `${ctx.step} (a redirect)`, ctx);
        continue;
      }
      return res;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** MAX_REDIRECTS bounds the redirects a metadata request follows. */
const MAX_REDIRECTS = 5;

async function send(u, init, ctx, doFetch, signal, timeout, timeoutMs) {
  let res;
  const browserFollows = init.follow && inBrowser;
  try {
    res = await doFetch(u.href, {
      method: init.method ?? "GET",
      headers: init.headers,
      body: init.body,
      // No redirect is followed where the request carries a secret (a code,
      // a verifier, a refresh token, a client secret): a 3xx is an error.
      redirect: browserFollows ? "follow" : "manual",
      credentials: "omit", // no cookies, no HTTP auth of the page
      cache: "no-store",
      referrerPolicy: "no-referrer",
      signal,
    });
  } catch (err) {
    throw fetchError(err, u, ctx, timeout, timeoutMs);
  }
  if (browserFollows && res.redirected && res.url) checkURL(res.url, `${ctx.step} (a redirect)`, ctx);
  if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
    const loc = res.headers.get("location");
    if (init.follow && loc && res.type !== "opaqueredirect") {
      await res.body?.cancel().catch(() => {});
      try {
        return new URL(loc, u);
      } catch {
        // not a URL: the error below
      }
    }
    await res.body?.cancel().catch(() => {});
    throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: ${redactURL(u.href)} answered with a redirect${loc ? ` to ${redactURL(URL.canParse?.(loc, u) ? new URL(loc, u).href : loc)}` : ""}, which the flow does not follow here`, { step: ctx.step, server: ctx.server, status: res.status });
  }
  const declared = Number(res.headers.get("content-length"));
  if (declared > MAX_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge(u, ctx);
  }
  let bytes;
  try {
    bytes = await readCapped(res, u, ctx);
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    throw fetchError(err, u, ctx, timeout, timeoutMs);
  }
  return new Response(res.status === 204 || res.status === 205 ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
}

function tooLarge(u, ctx) {
  return new OAuthError("too_large", `${ctx.server}: ${ctx.step}: the answer of ${redactURL(u.href)} is over ${MAX_BYTES} bytes`, { step: ctx.step, server: ctx.server });
}

async function readCapped(res, u, ctx) {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge(u, ctx);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

function fetchError(err, u, ctx, timeout, timeoutMs) {
  const details = { step: ctx.step, server: ctx.server, cause: err };
  if (timeout.aborted && !ctx.signal?.aborted) {
    return new OAuthError("timeout", `${ctx.server}: ${ctx.step}: ${redactURL(u.href)} did not answer within ${timeoutMs} ms`, details);
  }
  if (ctx.signal?.aborted) return new OAuthError("aborted", `${ctx.server}: ${ctx.step}: aborted`, details);
  const why = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
  let msg = `${ctx.server}: ${ctx.step}: could not reach ${redactURL(u.href)} (${why})`;
  if (inBrowser) {
    const origin = globalThis.location?.origin ?? "this page's origin";
    msg +=
      `; in a browser a CORS refusal fails the same way: ${u.origin} must answer this origin (${origin}) with Access-Control-Allow-Origin` +
      (ctx.step === "token" || ctx.step === "registration" || ctx.step === "revocation"
        ? ", and allow the request headers Content-Type and Authorization (Access-Control-Allow-Headers) on its preflight"
        : "");
  }
  return new OAuthError("unreachable", msg, details);
}

/** anySignal aborts when any of signals does (AbortSignal.any where the runtime has it). */
export function anySignal(signals) {
  if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
  const ac = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => ac.abort(s.reason), { once: true });
  }
  return ac.signal;
}

/**
 * readJSON parses a read Response as a JSON object, or fails naming what
 * it got.
 */
export async function readJSON(res, ctx, url) {
  const text = await res.text();
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: ${redactURL(url)} did not answer JSON (HTTP ${res.status}, ${text.length} bytes of ${res.headers.get("content-type") || "no content type"})`, { step: ctx.step, server: ctx.server, status: res.status });
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: ${redactURL(url)} answered JSON that is not an object`, { step: ctx.step, server: ctx.server, status: res.status });
  }
  return v;
}
