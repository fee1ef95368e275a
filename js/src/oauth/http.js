// The flow's HTTP: every request to a metadata, registration, token or
// revocation endpoint goes through request(), which refuses insecure URLs,
// sends no cookies and no MCP headers, follows no redirect where one could
// carry a secret elsewhere, bounds the wait and the size of the answer, and
// turns what fetch reports into an OAuthError that names the server and the
// step.

import { OAuthError } from "./errors.js";

/** MAX_BYTES bounds every answer the flow reads (metadata, tokens). */
export const MAX_BYTES = 1 << 20;

/** The default bound on each request of the flow. */
export const DEFAULT_TIMEOUT_MS = 15_000;

/** inBrowser: a page or a worker, where a CORS refusal looks like an unreachable server. */
export const inBrowser = typeof process !== "object" || typeof process.versions?.node !== "string";

/** isLoopback reports a host that names this machine (RFC 8252: plain http is allowed there). */
export function isLoopback(hostname) {
  const h = hostname.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * checkURL parses an endpoint and refuses what the flow must never reach:
 * any scheme but https, and plain http other than to loopback.
 * @returns {URL}
 */
export function checkURL(value, what, server) {
  let u;
  try {
    u = new URL(String(value));
  } catch {
    throw new OAuthError("insecure_url", `${server}: ${what} ${JSON.stringify(String(value))} is not an absolute URL`, { step: what, server });
  }
  if (u.protocol === "https:" || (u.protocol === "http:" && isLoopback(u.hostname))) return u;
  throw new OAuthError("insecure_url", `${server}: ${what} ${u.protocol === "http:" ? u.href : JSON.stringify(u.protocol)} refused: the flow speaks https only (plain http to loopback only)`, { step: what, server });
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
  const u = checkURL(url, ctx.step, ctx.server);
  const timeoutMs = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A timer of our own, not AbortSignal.timeout: Node does not wait for
  // that one's timer, and a wait must end in an error, not in an exit.
  const tc = new AbortController();
  const timer = setTimeout(() => tc.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
  const timeout = tc.signal;
  const signal = ctx.signal ? anySignal([ctx.signal, timeout]) : timeout;
  const doFetch = ctx.fetch ?? globalThis.fetch;
  try {
    return await send(u, init, ctx, doFetch, signal, timeout, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

async function send(u, init, ctx, doFetch, signal, timeout, timeoutMs) {
  let res;
  try {
    res = await doFetch(u.href, {
      method: init.method ?? "GET",
      headers: init.headers,
      body: init.body,
      // No redirect is followed where the request carries a secret (a code,
      // a verifier, a refresh token, a client secret): a 3xx is an error.
      redirect: init.follow ? "follow" : "manual",
      credentials: "omit", // no cookies, no HTTP auth of the page
      cache: "no-store",
      referrerPolicy: "no-referrer",
      signal,
    });
  } catch (err) {
    throw fetchError(err, u, ctx, timeout, timeoutMs);
  }
  if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
    throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: ${u.href} answered with a redirect${res.headers.get("location") ? ` to ${res.headers.get("location")}` : ""}, which the flow does not follow here`, { step: ctx.step, server: ctx.server, status: res.status });
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
  return new OAuthError("too_large", `${ctx.server}: ${ctx.step}: the answer of ${u.href} is over ${MAX_BYTES} bytes`, { step: ctx.step, server: ctx.server });
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
    return new OAuthError("timeout", `${ctx.server}: ${ctx.step}: ${u.href} did not answer within ${timeoutMs} ms`, details);
  }
  if (ctx.signal?.aborted) return new OAuthError("aborted", `${ctx.server}: ${ctx.step}: aborted`, details);
  const why = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
  let msg = `${ctx.server}: ${ctx.step}: could not reach ${u.href} (${why})`;
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
    throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: ${url} did not answer JSON (HTTP ${res.status}: ${JSON.stringify(text.slice(0, 120))})`, { step: ctx.step, server: ctx.server, status: res.status });
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new OAuthError("bad_response", `${ctx.server}: ${ctx.step}: ${url} answered JSON that is not an object`, { step: ctx.step, server: ctx.server, status: res.status });
  }
  return v;
}
