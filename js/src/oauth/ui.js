// The user's step of oauth() in a browser (auth.js is the face):
// authorize(), which opens the sign-in popup inside the user's click (or
// sends the page to the authorization server: mode "redirect"), and the
// return of a full-page redirect, completed when this page is the
// redirect URI. The popup and the callback page's side are browser.js.

import { OAuthError } from "./errors.js";
import { openPopup, waitForCallback } from "./browser.js";
import { hasWindow, PREPARED_TTL_MS } from "./config.js";

/** How long authorize() waits for the popup's callback. */
const POPUP_TIMEOUT_MS = 10 * 60_000;

/**
 * createUI makes authorize() and resumeRedirect() of a (auth.js: the state
 * its modules share), with the store's state, setState and fail
 * (authstore.js), prepare, complete and authorizeFlow (authflow.js) and
 * dropStaleClient (tokens.js).
 */
export function createUI(a, { state, setState, fail, prepare, complete, authorizeFlow, dropStaleClient }) {
  const { config, redirectUri, flows, pinned } = a;

  /** authorize: the user's step. In a browser, call it from a click handler (a popup opened later is blocked). */
  function authorize({ mode } = {}) {
    if (!a.serverUrl) return Promise.reject(new TypeError("mcplive/oauth: authorize() before connect(): pass this object as connect's auth option first"));
    const m = mode ?? config.mode ?? "popup";
    a.signedOut = false;
    a.autoAuthorizations = []; // the user asked: the cap's window starts anew
    if (config.authorize) return a.loaded.then(() => authorizeFlow(a.lastChallenge, false, true)).then(() => {});
    if (!hasWindow()) {
      return Promise.reject(new OAuthError("needs_user", `${a.serverUrl}: authorize() needs a browser window, or oauth({ authorize }) (mcplive/oauth/node has loopback() and paste())`, { step: "authorization", server: a.serverUrl }));
    }
    const fresh = a.prepared && Date.now() - a.prepared.at < PREPARED_TTL_MS ? a.prepared : null;
    if (m === "redirect") {
      return (async () => {
        const p = fresh ?? (await prepare(a.lastChallenge));
        globalThis.location.assign(p.authorizationUrl);
      })().catch((err) => Promise.reject(fail(err)));
    }
    // Open the window now, inside the click; navigate it once the URL is ready.
    let win;
    try {
      win = openPopup(fresh?.authorizationUrl ?? "about:blank");
    } catch (err) {
      return Promise.reject(err);
    }
    if (!win) {
      const err = new OAuthError("popup_blocked", `${a.serverUrl}: the browser blocked the sign-in popup: call authorize() directly in a click handler (not after an await), or use authorize({ mode: "redirect" })`, { step: "authorization", server: a.serverUrl });
      setState({ error: err });
      return Promise.reject(err);
    }
    const was = state.store.get();
    setState({ status: "authorizing", error: null });
    if (fresh) pinned.add(fresh.flow.state);
    let waitingOn = fresh?.flow.state;
    return (async () => {
      const p = fresh ?? (await prepare(a.lastChallenge, false, false, true));
      waitingOn = p.flow.state;
      if (!fresh) win.location.href = p.authorizationUrl;
      const callbackUrl = await waitForCallback(win, p.flow.state, a.aborter.signal, { redirectUri, timeoutMs: POPUP_TIMEOUT_MS });
      await complete(callbackUrl);
    })().finally(() => pinned.delete(waitingOn)).catch(async (err) => {
      // A registration the server forgot: the next authorize() registers
      // anew, so, as for a closed popup, the client waits for that click.
      const dropped = await dropStaleClient(err).catch(() => false);
      if ((err instanceof OAuthError && err.code === "popup_closed") || dropped) {
        setState({ status: was.status === "authorizing" ? "needs-authorization" : was.status, error: err });
        throw err;
      }
      throw fail(err);
    });
  }

  /** resumeRedirect completes a full-page redirect's flow when this page is its callback. */
  async function resumeRedirect() {
    const loc = globalThis.location;
    if (!loc || typeof loc.href !== "string") return;
    let here;
    try {
      here = new URL(loc.href);
    } catch {
      return;
    }
    const ru = new URL(redirectUri);
    const st = here.searchParams.get("state");
    if (!st) return;
    const f = await flows.get(`flow:${st}`).catch(() => undefined);
    if (!f || f.serverUrl !== a.serverUrl) return; // another server's, or not ours
    const fu = new URL(f.redirectUri);
    if (here.origin !== ru.origin || here.pathname !== ru.pathname || f.redirectUri !== redirectUri) {
      // This page holds the callback of a flow this server started, but
      // is not the redirect URI it was started with: say so, rather than
      // ignore the code and start another flow.
      fail(
        new OAuthError(
          "state_mismatch",
          `${a.serverUrl}: this page (${here.origin}${here.pathname}) came back with the code of a flow started with the redirect URI ${fu.origin}${fu.pathname}, but this oauth() has the redirectUri ${ru.origin}${ru.pathname}: the page that finishes a redirect must be the redirect URI, with the same oauth({ redirectUri }) as the page that started it`,
          { step: "callback", server: a.serverUrl },
        ),
      );
      return;
    }
    try {
      await complete(here.href);
    } catch (err) {
      await dropStaleClient(err).catch(() => {});
      fail(err);
    } finally {
      // The code is used (or refused): take it out of the address bar.
      for (const p of ["code", "state", "iss", "error", "error_description", "error_uri", "session_state"]) here.searchParams.delete(p);
      try {
        globalThis.history?.replaceState?.(globalThis.history.state, "", here.href);
      } catch {
        // not a document (a worker): nothing to clean
      }
    }
  }

  return { authorize, resumeRedirect };
}
