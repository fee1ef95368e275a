// oauth(): the auth option of connect. One object per MCP server: a store
// of the authorization's state (client.auth), authorize() and signOut(),
// and the token callback the Go core calls before each request and again
// after a refusal (401, or 403 with a Bearer challenge). This file is its
// face: the token callback, sign-out, the restore at connect, and the
// binding to a server. Its options are checked in config.js; the store is
// authstore.js; the tokens are kept and refreshed (one at a time, across
// tabs with Web Locks) in tokens.js; an authorization runs in authflow.js
// (its steps: flow.js), and tells the client when it is done, so that it
// re-lists every list (lists may differ per authorization); the user's
// step in a browser (the popup, a redirect's return) is ui.js.

import { report } from "../store.js";
import { OAuthError } from "./errors.js";
import { anySignal, checkURL } from "./http.js";
import * as flow from "./flow.js";
import { readConfig } from "./config.js";
import { createAuthStore } from "./authstore.js";
import { createTokens } from "./tokens.js";
import { createAuthFlow } from "./authflow.js";
import { createUI } from "./ui.js";

/** BIND: how connect (js/src/connect.js) attaches an oauth() object to a server. */
export const BIND = Symbol.for("mcplive.oauth.bind");

/**
 * oauth returns the auth option of connect: MCP authorization (OAuth 2.1)
 * for one server. See index.d.ts (OAuthOptions) for the options.
 */
export function oauth(config = {}) {
  const { redirectUri, scopes, storage, flows } = readConfig(config);
  const { initial, state, setState, onAuthorized, waiters, fail, waitAuthorized } = createAuthStore();

  /**
   * a is what this object's modules share (tokens.js, authflow.js, ui.js): the options,
   * the storages, and the state of the authorization that more than one
   * of them reads or writes.
   */
  const a = {
    config,
    redirectUri,
    scopes,
    storage,
    flows,
    // The server's URL and the restore from storage (and a redirect's
    // return): set once, at bind, as the face's serverUrl and loaded.
    serverUrl: null,
    loaded: null,
    binding: null, // { issuer, resource, scopesSupported }
    tokens: null, // { access_token, refresh_token, expires_at, issued_at, scope, requested_scope }
    metadata: new Map(), // issuer → authorization server metadata
    clients: new Map(), // issuer → client record
    prepared: null, // { authorizationUrl, flow, at } waiting for the user
    // After signOut() no authorization starts by itself (not even through
    // config.authorize): a refusal waits for an explicit authorize().
    signedOut: false,
    lastChallenge: {}, // the last refusal's challenge (its scope): what the user's authorize() asks for
    baseChallenge: {}, // the last 401's challenge (no step-up): what anyone without a token is asked for
    aborter: new AbortController(),
    autoAuthorizations: [], // when the refusals' authorizations started (the window's)
    pinned: new Set(), // states a popup of the user's authorize() waits on (dropFlows keeps them)
    stepUps: new Map(), // scope set → authorizations for it
    dpop: null, // oauth4webapi's DPoP handle (config.dpop), once its key is ready
  };
  const { clients, pinned, stepUps } = a;
  let serverUrl = null;
  let loaded = null; // the restore from storage (and a redirect's return), once
  let pendingSignOut = null; // a signOut() before connect: done at connect
  const ctx = () => ({ server: serverUrl, timeoutMs: config.timeoutMs, fetch: config.fetch, signal: a.aborter.signal, allowPrivateNetwork: config.allowPrivateNetwork === true, allowParentResource: config.allowParentResource === true, dpop: a.dpop });

  const keeper = createTokens(a, { setState, ctx });
  const { useDPoP, tokensKey, clientKey, store, authorizedState, metadataFor, clientFor, dropStaleClient, expiring, refreshOnce, transient, sameAuthServer, context } = keeper;
  const { dropFlows, prepare, complete, authorizeFlow } = createAuthFlow(a, { state, setState, fail, waiters, onAuthorized, ctx, tokens: keeper });
  const { authorize, resumeRedirect } = createUI(a, { state, setState, fail, prepare, complete, authorizeFlow, dropStaleClient });

  async function load() {
    await useDPoP().catch(report);
    try {
      a.binding = (await store("get", `server:${serverUrl}`)) ?? null;
      if (a.binding) {
        a.tokens = (await store("get", tokensKey(a.binding))) ?? null;
        const c = await store("get", clientKey(a.binding.issuer));
        if (c) clients.set(a.binding.issuer, c);
        if (a.tokens?.access_token) authorizedState();
      }
    } catch (err) {
      report(err); // a storage that fails: start without what it held
    }
    if (pendingSignOut) {
      const p = pendingSignOut;
      pendingSignOut = null;
      a.tokens = null;
      state.set(initial);
      await forget(p);
      return;
    }
    await resumeRedirect();
  }

  /**
   * bound is the token hook of the binding: token() for a DPoP-bound token
   * gives { token, dpop }: the token and the proof of this request (its
   * method and URL); after a refusal, no proof (the retry asks for its own).
   */
  async function bound(arg = {}) {
    const t = await token(arg);
    if (typeof t === "string" && t && a.dpop && a.tokens?.access_token === t && String(a.tokens.token_type).toLowerCase() === "dpop") {
      if (arg.error || !arg.method || !arg.requestUrl) return { token: t, dpop: "" };
      return { token: t, dpop: await flow.proof(a.dpop, arg.method, arg.requestUrl, t) };
    }
    return t;
  }

  /** token is the connect option token: Go calls it before each request, and after a refusal. */
  async function token({ error } = {}) {
    await loaded;
    if (error && config.dpop && !a.dpop) throw new OAuthError("storage", `${serverUrl}: dpop is on and no DPoP key could be made: no token is asked for`, { step: "dpop", server: serverUrl });
    if (error?.dpopNonce && a.dpop) {
      // RFC 9449 section 9: the resource server's nonce goes in the next proofs.
      a.dpop.cacheNonce(new Response(null, { headers: { "dpop-nonce": error.dpopNonce } }), new URL(serverUrl));
      // The challenge's error may sit in its DPoP challenge next to a Bearer one.
      if ((error.error === "use_dpop_nonce" || /use_dpop_nonce/.test(error.wwwAuthenticate ?? "")) && a.tokens?.access_token) return a.tokens.access_token;
    }
    if (!error) {
      if (!a.tokens?.access_token) return "";
      if (expiring(a.tokens) && a.tokens.refresh_token && a.binding) {
        try {
          return (await refreshOnce()).access_token;
        } catch {
          return a.tokens?.access_token ?? ""; // transient: the token it has (it may still be good); refused: none
        }
      }
      return a.tokens.access_token;
    }
    if (error.status === 403 && error.error && error.error !== "insufficient_scope") return ""; // a denial no new token fixes
    a.lastChallenge = { resourceMetadata: error.resourceMetadata, scope: error.scope };
    const stepUp = error.status === 403 || error.error === "insufficient_scope";
    if (!stepUp) a.baseChallenge = a.lastChallenge;
    if (!stepUp && a.tokens?.refresh_token && a.binding && !a.tokens.refreshed && (await sameAuthServer(error))) {
      try {
        return (await refreshOnce()).access_token;
      } catch (err) {
        // A transient failure fails this request (the tokens stay, the
        // next try waits), rather than sending the user to sign in again.
        if (transient(err)) throw err;
        // refused: a new authorization
      }
    }
    return authorizeFlow(error, stepUp);
  }

  /**
   * signOut forgets the tokens (revoking them where the server offers RFC
   * 7009), the step-up scopes and every flow in progress (their records,
   * verifier included); with forgetClient, the client registration too
   * (the authorization server forgot it, or the app wants a new one). The
   * client re-lists. Before connect, it waits for the server's URL (the
   * records are kept under it) and forgets at connect.
   */
  async function signOut({ forgetClient = false } = {}) {
    a.aborter.abort(new OAuthError("aborted", `${serverUrl ?? "mcplive/oauth"}: signed out`, { step: "authorization", server: serverUrl ?? undefined }));
    a.aborter = new AbortController();
    a.signedOut = true;
    // The next user is asked for what the server challenges anyone without
    // a token (its last 401), nothing of the step-ups before.
    a.lastChallenge = a.baseChallenge;
    stepUps.clear();
    a.autoAuthorizations = [];
    a.prepared = null;
    const held = a.tokens;
    a.tokens = null;
    state.set(initial);
    if (serverUrl === null) {
      pendingSignOut = { forgetClient: forgetClient || pendingSignOut?.forgetClient === true };
      return;
    }
    await loaded;
    await forget({ forgetClient, held });
    await useDPoP(true).catch(report); // the next user's tokens are bound to a new key
    for (const fn of onAuthorized) fn();
  }

  /** forget deletes what signOut forgets from storage, and revokes the tokens it held. */
  async function forget({ forgetClient, held = null }) {
    const t = held ?? (a.binding ? await store("get", tokensKey(a.binding)).catch(() => undefined) : undefined);
    a.tokens = null;
    pinned.clear();
    await dropFlows(null);
    if (a.binding) await store("delete", tokensKey(a.binding)).catch(report);
    if (t?.access_token && a.binding) {
      try {
        const as = await metadataFor(a.binding.issuer);
        const client = await clientFor(as);
        if (t.refresh_token) await flow.revoke({ as, client, token: t.refresh_token, hint: "refresh_token" }, ctx());
        await flow.revoke({ as, client, token: t.access_token, hint: "access_token" }, ctx());
      } catch (err) {
        report(err); // revocation is best effort: the tokens are forgotten here either way
      }
    }
    if (forgetClient && a.binding) {
      clients.delete(a.binding.issuer);
      await store("delete", clientKey(a.binding.issuer)).catch(report);
    }
  }

  /** keepNonce keeps the DPoP-Nonce of any answer of the resource server for the next proofs (RFC 9449 section 9: not only a 401's). */
  function keepNonce(res) {
    if (a.dpop && serverUrl) a.dpop.cacheNonce(res, new URL(serverUrl));
  }

  const bind = (url) => {
    if (serverUrl !== null && serverUrl !== url) {
      throw new TypeError(`mcplive/oauth: this oauth() object serves ${serverUrl}; make one per server (it holds that server's tokens)`);
    }
    if (serverUrl === null) {
      serverUrl = a.serverUrl = url;
      loaded = a.loaded = load();
    }
    return Object.freeze({
      token: bound,
      waitAuthorized,
      /** status: the store's status ("needs-authorization": a refusal waits for the user's authorize()). */
      status: () => state.store.get().status,
      lastError: () => state.store.get().error,
      context,
      // With DPoP: every answer of the server, for its DPoP-Nonce (connect's fetch).
      observe: config.dpop === true ? keepNonce : undefined,
      onAuthorized(fn) {
        onAuthorized.add(fn);
        return () => onAuthorized.delete(fn);
      },
    });
  };

  return Object.freeze({ ...state.store, authorize, signOut, [BIND]: bind });
}

export { checkURL, anySignal };
