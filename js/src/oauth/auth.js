// oauth(): the auth option of connect. One object per MCP server: a store
// of the authorization's state (client.auth), authorize() and signOut(),
// and the token callback the Go core calls before each request and again
// after a refusal (401, or 403 with a Bearer challenge). This file is its
// face and the flow's course: it runs the flow (its steps: flow.js) when
// the server asks for authorization, and tells the client when a new
// authorization began, so that it re-lists every list (lists may differ
// per authorization). Its options are checked in config.js; the tokens are
// kept and refreshed (one at a time, across tabs with Web Locks) in
// tokens.js; the user's step in a browser (the popup, a redirect's return)
// is ui.js; the store is authstore.js.

import { report } from "../store.js";
import { OAuthError } from "./errors.js";
import { anySignal, checkURL } from "./http.js";
import * as flow from "./flow.js";
import { readConfig, hasWindow, MAX_STEP_UPS, MAX_AUTO_AUTHORIZATIONS, AUTH_WINDOW_MS, MAX_SCOPES, PREPARED_TTL_MS, FLOW_TTL_MS } from "./config.js";
import { createAuthStore } from "./authstore.js";
import { createTokens, randomId } from "./tokens.js";
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
   * a is what this object's modules share (tokens.js, ui.js): the options,
   * the storages, and the state of the authorization that more than one
   * of them reads or writes.
   */
  const a = {
    config,
    redirectUri,
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
    aborter: new AbortController(),
    autoAuthorizations: [], // when the refusals' authorizations started (the window's)
    pinned: new Set(), // states a popup of the user's authorize() waits on (dropFlows keeps them)
    dpop: null, // oauth4webapi's DPoP handle (config.dpop), once its key is ready
  };
  const { clients, pinned } = a;
  let serverUrl = null;
  let loaded = null; // the restore from storage (and a redirect's return), once
  let inflight = null; // the authorization in progress (one at a time)
  let pendingSignOut = null; // a signOut() before connect: done at connect
  let inflightByUser = false; // inflight ends at needs-authorization (the URL, for the user)
  let reregistered = false; // the flow in progress registered anew once already
  const stepUps = new Map(); // scope set → authorizations for it
  const consumed = new Set(); // states whose callback was used
  const ctx = () => ({ server: serverUrl, timeoutMs: config.timeoutMs, fetch: config.fetch, signal: a.aborter.signal, allowPrivateNetwork: config.allowPrivateNetwork === true, allowParentResource: config.allowParentResource === true, dpop: a.dpop });

  const { useDPoP, tokensKey, clientKey, store, authorizedState, metadataFor, clientFor, bindTo, dropStaleClient, expiring, refreshOnce, transient, sameAuthServer, context } = createTokens(a, { setState, ctx });
  const { authorize, resumeRedirect } = createUI(a, { state, setState, fail, prepare, complete, authorizeFlow, dropStaleClient });

  const flowIndexKey = () => `flows:${serverUrl}`;

  /**
   * dropFlows deletes the flow records (verifier included) this object
   * started for serverUrl, but keep and, when keep is given (a newer flow
   * replaces the older ones), the flows a popup of the user's authorize()
   * is open on (pinned): a 401 that prepares a URL meanwhile must not
   * strand the user's sign-in. Sign-out (keep null) drops them all.
   */
  async function dropFlows(keep) {
    const index = (await flows.get(flowIndexKey()).catch(() => undefined)) ?? [];
    const kept = keep ? [keep, ...index.filter((st) => st !== keep && pinned.has(st))] : [];
    for (const st of index) if (!kept.includes(st)) await flows.delete(`flow:${st}`).catch(() => {});
    if (kept.length) await flows.set(flowIndexKey(), kept).catch(() => {});
    else await flows.delete(flowIndexKey()).catch(() => {});
  }

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
   * prepare discovers what the flow needs and makes the authorization URL
   * (and its flow record, kept per state).
   */
  async function prepare(challenge = {}, stepUp = false, auto = false, pin = false) {
    let prm;
    try {
      prm = await flow.discoverResource(serverUrl, challenge.resourceMetadata, ctx());
    } catch (err) {
      if (!(err instanceof OAuthError) || err.code !== "no_metadata") throw err;
      // MCP 2025-03-26: no protected resource metadata; the MCP server's
      // origin is its authorization server (its metadata, else the default
      // endpoints /authorize, /token, /register).
      prm = { resource: serverUrl, authorizationServers: [new URL(serverUrl).origin], legacy: true };
    }
    const issuer = prm.authorizationServers[0];
    const as = await metadataFor(issuer, prm.legacy === true);
    await bindTo(issuer, prm.resource, prm.scopesSupported);
    const client = await clientFor(as);
    const scope = flow.chooseScopes({
      challenge: challenge.scope,
      prior: stepUp ? [a.tokens?.requested_scope, a.tokens?.scope, a.prepared?.flow.scope].filter(Boolean).join(" ") : undefined,
      scopesSupported: prm.scopesSupported,
      asScopes: as.scopes_supported,
      configured: scopes,
    });
    const n = (stepUps.get(scope) ?? 0) + 1;
    if (stepUp && n > MAX_STEP_UPS) {
      throw new OAuthError("insufficient_scope", `${serverUrl}: still refused for insufficient scope after ${MAX_STEP_UPS} authorizations with ${JSON.stringify(scope)}: giving up (the cap on step-ups per scope set)`, { step: "step-up", server: serverUrl, error: "insufficient_scope" });
    }
    const count = scope.split(" ").filter(Boolean).length;
    if (stepUp && count > MAX_SCOPES) {
      throw new OAuthError("insufficient_scope", `${serverUrl}: a step-up would ask for ${count} scopes (the union of every challenge's), over the cap of ${MAX_SCOPES}: giving up`, { step: "step-up", server: serverUrl, error: "insufficient_scope" });
    }
    if (auto) {
      const now = Date.now();
      a.autoAuthorizations = a.autoAuthorizations.filter((t) => now - t < AUTH_WINDOW_MS);
      if (a.autoAuthorizations.length >= MAX_AUTO_AUTHORIZATIONS) {
        throw new OAuthError("too_many_authorizations", `${serverUrl}: the server's refusals started ${MAX_AUTO_AUTHORIZATIONS} authorizations within ${AUTH_WINDOW_MS / 60_000} minutes, the cap: no more start by themselves (the user's authorize() still does)`, { step: stepUp ? "step-up" : "authorization", server: serverUrl });
      }
      a.autoAuthorizations.push(now);
    }
    stepUps.set(scope, n);
    const started = await flow.startAuthorization({ as, client, redirectUri, resource: prm.resource, scope, serverUrl });
    if (pin) pinned.add(started.flow.state);
    // One flow at a time: the records of the flows before it (verifier included) are deleted.
    await dropFlows(started.flow.state);
    // A public client's registration goes along with the flow: a full-page
    // redirect's return finds it even when storage kept nothing (memory).
    await flows.set(`flow:${started.flow.state}`, client.client_secret ? started.flow : { ...started.flow, client });
    a.prepared = { ...started, at: Date.now() };
    return a.prepared;
  }

  /** complete checks a callback URL and trades its code for tokens. */
  async function complete(callbackUrl) {
    let params;
    try {
      params = new URL(String(callbackUrl)).searchParams;
    } catch {
      throw new OAuthError("state_mismatch", `${serverUrl}: the callback (${String(callbackUrl).length} characters) is not a URL`, { step: "callback", server: serverUrl });
    }
    const st = params.get("state");
    if (!st) throw new OAuthError("state_mismatch", `${serverUrl}: the callback has no state`, { step: "callback", server: serverUrl });
    if (consumed.has(st)) throw new OAuthError("replayed_callback", `${serverUrl}: this callback was used already: refusing to use its code again`, { step: "callback", server: serverUrl });
    const f = await flows.get(`flow:${st}`).catch(() => undefined);
    if (!f || f.serverUrl !== serverUrl) {
      throw new OAuthError("state_mismatch", `${serverUrl}: the callback's state matches no authorization this client started (a forged or foreign callback)`, { step: "callback", server: serverUrl });
    }
    consumed.add(st);
    await flows.delete(`flow:${st}`).catch(() => {});
    if (Date.now() - f.createdAt > FLOW_TTL_MS) throw new OAuthError("state_mismatch", `${serverUrl}: the callback came after the flow expired`, { step: "callback", server: serverUrl });
    if (a.prepared?.flow.state === st) a.prepared = null;
    const as = await metadataFor(f.issuer);
    if (f.client?.client_id === f.clientId && clients.get(as.issuer)?.client_id !== f.clientId) {
      // The page was reloaded on the way (a full-page redirect) and its
      // storage did not keep the registration: the flow's is the one the code is for.
      clients.set(as.issuer, f.client);
      await store("set", clientKey(as.issuer), f.client);
    }
    const client = await clientFor(as);
    const t = await flow.finishAuthorization({ as, client, flow: f, callbackUrl: String(callbackUrl) }, ctx());
    a.tokens = { ...t, issued_at: Date.now(), requested_scope: f.scope, grant: randomId() };
    a.signedOut = false;
    if (!a.binding || a.binding.issuer !== f.issuer) await bindTo(f.issuer, f.resource);
    await store("set", tokensKey(a.binding), a.tokens);
    authorizedState();
    for (const w of waiters) w.resolve();
    waiters.clear();
    for (const fn of onAuthorized) fn();
    return a.tokens.access_token;
  }

  /** authorizeFlow runs the whole flow after a refusal: through config.authorize, or up to the user's click. */
  function authorizeFlow(challenge, stepUp, explicit = false) {
    // The user's authorize() does not join a flow that only prepared the URL
    // for the user (it ends at needs-authorization): it runs its own after it.
    if (inflight && explicit && inflightByUser) return inflight.catch(() => {}).then(() => authorizeFlow(challenge, stepUp, true));
    if (inflight) return inflight;
    const byUser = !config.authorize || (a.signedOut && !explicit);
    if (byUser && !config.authorize && !hasWindow()) {
      // Nobody can click: a wait for the user would never end (in Node, an
      // unsettled await ends the process, silently, with code 13).
      return Promise.reject(
        fail(new OAuthError("needs_user", `${serverUrl}: the server asks for authorization, and this runtime has no window for the user's step: pass oauth({ authorize }) (mcplive/oauth/node has loopback(), which opens the system browser, and paste())`, { step: "authorization", server: serverUrl })),
      );
    }
    inflightByUser = byUser;
    inflight = (async () => {
      if (byUser && !stepUp && a.prepared && Date.now() - a.prepared.at < PREPARED_TTL_MS && state.store.get().status === "needs-authorization") {
        return ""; // still waiting for the user's click: the request fails, the URL stays
      }
      setState({ status: "authorizing", error: null });
      const p = await prepare(challenge, stepUp, !explicit);
      if (byUser) {
        setState({ status: "needs-authorization", authorizationUrl: p.authorizationUrl });
        return "";
      }
      setState({ authorizationUrl: p.authorizationUrl });
      const callbackUrl = await config.authorize(p.authorizationUrl, { signal: a.aborter.signal });
      if (typeof callbackUrl !== "string" && !(callbackUrl instanceof URL)) {
        throw new OAuthError("state_mismatch", `${serverUrl}: the authorize callback must give the callback URL (a string), got ${typeof callbackUrl}`, { step: "callback", server: serverUrl });
      }
      try {
        return await complete(callbackUrl);
      } catch (err) {
        // The authorization server forgot the registration (invalid_client
        // at its authorize page or token endpoint): drop it, register
        // anew, and run the flow once more.
        if (!(await dropStaleClient(err)) || reregistered) throw err;
        reregistered = true;
        const again = await prepare(challenge, stepUp, false);
        setState({ authorizationUrl: again.authorizationUrl });
        return complete(await config.authorize(again.authorizationUrl, { signal: a.aborter.signal }));
      }
    })()
      .catch((err) => {
        throw fail(err instanceof OAuthError ? err : new OAuthError("aborted", `${serverUrl}: the authorization failed: ${err?.message ?? err}`, { step: "authorization", server: serverUrl, cause: err }));
      })
      .finally(() => {
        inflight = null;
        reregistered = false;
      });
    return inflight;
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
    a.lastChallenge = {}; // the next user is asked for what the server challenges next, nothing of before
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
      onAuthorized(fn) {
        onAuthorized.add(fn);
        return () => onAuthorized.delete(fn);
      },
    });
  };

  return Object.freeze({ ...state.store, authorize, signOut, [BIND]: bind });
}

export { checkURL, anySignal };
