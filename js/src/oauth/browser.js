// The browser's part of the flow: the popup, and the callback page's
// handleCallback(), which hands the callback URL back to the page that
// opened the popup, over a BroadcastChannel (same origin by construction)
// and window.opener.postMessage (to this origin only, checked on receipt).

import { OAuthError } from "./errors.js";

const CHANNEL = "mcplive-oauth";
const TYPE = "mcplive-oauth-callback";

/** openPopup opens the sign-in window; it must run inside the user's click. */
export function openPopup(url) {
  const w = 520,
    h = 680;
  const left = Math.max(0, Math.round((globalThis.screenX ?? 0) + ((globalThis.outerWidth ?? w) - w) / 2));
  const top = Math.max(0, Math.round((globalThis.screenY ?? 0) + ((globalThis.outerHeight ?? h) - h) / 2));
  return globalThis.window.open(url, "mcplive-oauth", `popup,width=${w},height=${h},left=${left},top=${top}`);
}

/**
 * waitForCallback resolves with the callback URL that the popup's
 * handleCallback() sends for this state; it rejects when the popup is
 * closed first (naming what the callback page must do, or a redirect URI
 * on another origin, whose page cannot reach this one), after timeoutMs,
 * or when signal aborts.
 */
export function waitForCallback(win, state, signal, { redirectUri = null, timeoutMs = 10 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    let bc = null;
    let timer = null;
    let deadline = null;
    const here = globalThis.location?.origin;
    let there = null;
    try {
      there = redirectUri ? new URL(redirectUri).origin : null;
    } catch {
      there = null;
    }
    const why = () =>
      there && here && there !== here
        ? `the redirect URI ${redirectUri} is on another origin (${there}) than this page (${here}): its handleCallback() cannot hand the callback to this page; use a redirect URI on this page's origin (localhost and 127.0.0.1 are different origins)`
        : `if the sign-in was done, the callback page${redirectUri ? ` (${redirectUri})` : ""} did not hand it back: it must load, and call handleCallback() from mcplive/oauth`;
    const done = (fn, v) => {
      globalThis.removeEventListener("message", onMessage);
      bc?.close();
      clearInterval(timer);
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onAbort);
      fn(v);
    };
    const accept = (data) => {
      if (data === null || typeof data !== "object" || data.type !== TYPE || typeof data.url !== "string") return;
      let st;
      try {
        st = new URL(data.url).searchParams.get("state");
      } catch {
        return;
      }
      if (st !== state) return; // another flow's (another tab, another server)
      try {
        win.close();
      } catch {
        // gone already
      }
      done(resolve, data.url);
    };
    const onMessage = (ev) => {
      if (ev.origin !== globalThis.location.origin) return; // only this origin's callback page
      accept(ev.data);
    };
    const onAbort = () => {
      try {
        win.close();
      } catch {
        // gone already
      }
      done(reject, signal.reason);
    };
    globalThis.addEventListener("message", onMessage);
    if (typeof BroadcastChannel === "function") {
      bc = new BroadcastChannel(CHANNEL);
      bc.onmessage = (ev) => accept(ev.data);
    }
    // A closed popup sends nothing: notice it (a poll: browsers fire no event).
    let closedFor = 0;
    timer = setInterval(() => {
      let closed = false;
      try {
        closed = win.closed;
      } catch {
        closed = false;
      }
      // Wait a beat after closing: the callback's message may still be on its way.
      closedFor = closed ? closedFor + 1 : 0;
      if (closedFor >= 2) done(reject, new OAuthError("popup_closed", `the sign-in window was closed before the authorization finished (${why()})`, { step: "authorization" }));
    }, 400);
    deadline = setTimeout(() => {
      try {
        win.close();
      } catch {
        // gone already
      }
      done(reject, new OAuthError("timeout", `no callback from the sign-in window within ${Math.round(timeoutMs / 1000)} s (${why()})`, { step: "authorization" }));
    }, timeoutMs);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * handleCallback runs on the redirect URI's page. In the sign-in popup it
 * hands the callback (code, state, iss) to the page that opened it and
 * closes the popup; it resolves with { delivered: true }. On a page that is
 * not a popup (a full-page redirect's return) it does nothing and resolves
 * with { delivered: false }: oauth() resumes that flow at connect.
 */
export async function handleCallback({ close = true } = {}) {
  const loc = globalThis.location;
  if (!loc) throw new TypeError("mcplive/oauth: handleCallback() runs on the callback page, in a browser");
  const opener = globalThis.opener;
  const isPopup = (opener && opener !== globalThis) || globalThis.name === "mcplive-oauth";
  if (!isPopup) return { delivered: false };
  const msg = { type: TYPE, url: loc.href };
  if (typeof BroadcastChannel === "function") {
    const bc = new BroadcastChannel(CHANNEL);
    bc.postMessage(msg);
    bc.close();
  }
  if (opener) {
    try {
      opener.postMessage(msg, loc.origin);
    } catch {
      // the opener navigated away: the BroadcastChannel carried it
    }
  }
  if (close) setTimeout(() => globalThis.close(), 50);
  return { delivered: true };
}
