// oauth(): the auth option of connect. One object per MCP server: a store
// of the authorization's state (client.auth), authorize() and signOut(),
// and the token callback the Go core calls before each request and again
// after a refusal (401, or 403 with a Bearer challenge). It keeps the
// tokens, refreshes them one at a time (across tabs with Web Locks), runs
// the flow (flow.js) when the server asks for authorization, and tells the
// client when a new authorization began, so that it re-lists every list
// (lists may differ per authorization).

import { createStore, report } from "../store.js";
import { sha256 } from "../hash.js";
import { OAuthError } from "./errors.js";
import { anySignal, checkURL, inBrowser, isLoopback } from "./http.js";
import { memoryStorage, sessionStorageAdapter, checkStorage, dpopKeyPair } from "./storage.js";
import * as flow from "./flow.js";
import { openPopup, waitForCallback } from "./browser.js";

/** BIND: how connect (js/src/connect.js) attaches an oauth() object to a server. */
export const BIND = Symbol.for("mcplive.oauth.bind");

const OPTIONS = ["redirectUri", "clientMetadataUrl", "clients", "registration", "scopes", "storage", "authorize", "mode", "timeoutMs", "fetch", "allowPrivateNetwork", "allowParentResource", "dpop"];
const MAX_STEP_UPS = 3;
/**
 * The authorizations a server's refusals may start by themselves (not the
 * user's authorize()) within AUTH_WINDOW_MS: each may open a browser.
 */
const MAX_AUTO_AUTHORIZATIONS = 5;
const AUTH_WINDOW_MS = 10 * 60_000;
/** The most scopes a step-up asks for (the union of every challenge's). */
const MAX_SCOPES = 16;
/** A transient refresh failure waits this long (doubling, at most REFRESH_BACKOFF_MAX_MS) before the next try. */
const REFRESH_BACKOFF_MS = 1000;
const REFRESH_BACKOFF_MAX_MS = 60_000;
/** The token endpoint's errors that mean the refresh token (or the client) is dead: only these forget the tokens. */
const DEAD_REFRESH = new Set(["invalid_grant", "invalid_client", "unauthorized_client"]);
/** A prepared authorization URL older than this is made anew (its state and verifier too). */
const PREPARED_TTL_MS = 10 * 60_000;
/** How long authorize() waits for the popup's callback. */
const POPUP_TIMEOUT_MS = 10 * 60_000;
/** A flow record older than this is refused at the callback. */
const FLOW_TTL_MS = 30 * 60_000;

/**
 * oauth returns the auth option of connect: MCP authorization (OAuth 2.1)
 * for one server. See index.d.ts (OAuthOptions) for the options.
 */
export function oauth(config = {}) {
  if (config === null || typeof config !== "object") throw new TypeError("mcplive/oauth: oauth() takes an options object");
  for (const k of Object.keys(config)) {
    if (!OPTIONS.includes(k)) throw new TypeError(`mcplive/oauth: unknown option ${JSON.stringify(k)} (known: ${OPTIONS.join(", ")})`);
  }
  const redirectUri = checkRedirectUri(config.redirectUri);
  if (config.clientMetadataUrl !== undefined) {
    let u;
    try {
      u = new URL(String(config.clientMetadataUrl));
    } catch {
      u = null;
    }
    if (!u || u.protocol !== "https:" || u.pathname === "/") throw new TypeError("mcplive/oauth: clientMetadataUrl must be an https URL with a path (the client ID metadata document your app hosts)");
  }
  if (config.clients !== undefined && typeof config.clients !== "function" && (config.clients === null || typeof config.clients !== "object")) {
    throw new TypeError("mcplive/oauth: clients must be an object { [issuer]: { clientId, clientSecret? } } or a function issuer => that");
  }
  if (config.authorize !== undefined && typeof config.authorize !== "function") throw new TypeError("mcplive/oauth: authorize must be a function (authorizationUrl, { signal }) => Promise<callbackUrl>");
  if (config.mode !== undefined && config.mode !== "popup" && config.mode !== "redirect") throw new TypeError('mcplive/oauth: mode must be "popup" or "redirect"');
  if (config.fetch !== undefined && typeof config.fetch !== "function") throw new TypeError("mcplive/oauth: fetch must be a function");
  if (config.dpop !== undefined && typeof config.dpop !== "boolean") throw new TypeError("mcplive/oauth: dpop must be true or false");
  const scopes = Array.isArray(config.scopes) ? config.scopes.join(" ") : config.scopes;
  if (scopes !== undefined && typeof scopes !== "string") throw new TypeError("mcplive/oauth: scopes must be a string or an array of strings");
  const storage = config.storage === undefined ? memoryStorage() : checkStorage(config.storage);
  // Flow records (verifier, state): this tab's sessionStorage where there is
  // one, so a full-page redirect finds its flow on return.
  const flows = hasSessionStorage() ? sessionStorageAdapter() : memoryStorage();

  const initial = Object.freeze({ status: "none", issuer: null, scopes: Object.freeze([]), expiresAt: null, authorizationUrl: null, error: null });
  const state = createStore(initial);
  const setState = (patch) => state.set(Object.freeze({ ...state.store.get(), ...patch, ...(patch.scopes ? { scopes: Object.freeze([...patch.scopes]) } : {}) }));

  let serverUrl = null;
  let loaded = null; // the restore from storage (and a redirect's return), once
  let binding = null; // { issuer, resource, scopesSupported }
  let tokens = null; // { access_token, refresh_token, expires_at, issued_at, scope, requested_scope }
  const metadata = new Map(); // issuer → authorization server metadata
  const clients = new Map(); // issuer → client record
  let prepared = null; // { authorizationUrl, flow, at } waiting for the user
  let inflight = null; // the authorization in progress (one at a time)
  // After signOut() no authorization starts by itself (not even through
  // config.authorize): a refusal waits for an explicit authorize().
  let signedOut = false;
  let pendingSignOut = null; // a signOut() before connect: done at connect
  let inflightByUser = false; // inflight ends at needs-authorization (the URL, for the user)
  let refreshing = null;
  let lastChallenge = {}; // the last refusal's challenge (its scope): what the user's authorize() asks for
  let baseChallenge = {}; // the last 401's challenge (no step-up): what anyone without a token is asked for
  let reregistered = false; // the flow in progress registered anew once already
  let aborter = new AbortController();
  const stepUps = new Map(); // scope set → authorizations for it
  let autoAuthorizations = []; // when the refusals' authorizations started (the window's)
  let refreshBackoff = { failures: 0, until: 0, error: null }; // after a transient refresh failure
  const consumed = new Set(); // states whose callback was used
  const pinned = new Set(); // states a popup of the user's authorize() waits on (dropFlows keeps them)
  const onAuthorized = new Set(); // fns of the clients to re-list after a new authorization
  const waiters = new Set();

  let dpop = null; // oauth4webapi's DPoP handle (config.dpop), once its key is ready
  const ctx = () => ({ server: serverUrl, timeoutMs: config.timeoutMs, fetch: config.fetch, signal: aborter.signal, allowPrivateNetwork: config.allowPrivateNetwork === true, allowParentResource: config.allowParentResource === true, dpop });

  /** useDPoP makes (or loads) the DPoP key pair; a runtime without WebCrypto fails the flow, never falls back to bearer. */
  async function useDPoP(fresh = false) {
    if (!config.dpop) return;
    try {
      dpop = flow.dpopHandle(await dpopKeyPair(`${serverUrl}`, { fresh }));
    } catch (err) {
      dpop = null;
      throw new OAuthError("storage", `${serverUrl}: the DPoP key could not be made (${err?.message ?? err})`, { step: "dpop", server: serverUrl });
    }
  }
  const tokensKey = (b) => `tokens:${b.issuer}|${b.resource}`;
  const clientKey = (issuer) => `client:${issuer}|${redirectUri}`;
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

  function fail(err) {
    setState({ status: "error", error: err });
    for (const w of waiters) w.reject(err);
    waiters.clear();
    return err;
  }

  async function store(op, key, value) {
    try {
      return await (op === "get" ? storage.get(key) : op === "set" ? storage.set(key, value) : storage.delete(key));
    } catch (err) {
      throw new OAuthError("storage", `${serverUrl}: the token storage failed (${op} ${key.split(":")[0]}): ${err?.message ?? err}`, { step: "storage", server: serverUrl, cause: err });
    }
  }

  function authorizedState() {
    setState({ status: "authorized", issuer: binding.issuer, scopes: (tokens.scope ?? tokens.requested_scope ?? "").split(" ").filter(Boolean), expiresAt: tokens.expires_at ?? null, authorizationUrl: null, error: null });
  }

  async function load() {
    await useDPoP().catch(report);
    try {
      binding = (await store("get", `server:${serverUrl}`)) ?? null;
      if (binding) {
        tokens = (await store("get", tokensKey(binding))) ?? null;
        const c = await store("get", clientKey(binding.issuer));
        if (c) clients.set(binding.issuer, c);
        if (tokens?.access_token) authorizedState();
      }
    } catch (err) {
      report(err); // a storage that fails: start without what it held
    }
    if (pendingSignOut) {
      const p = pendingSignOut;
      pendingSignOut = null;
      tokens = null;
      state.set(initial);
      await forget(p);
      return;
    }
    await resumeRedirect();
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
    if (!f || f.serverUrl !== serverUrl) return; // another server's, or not ours
    const fu = new URL(f.redirectUri);
    if (here.origin !== ru.origin || here.pathname !== ru.pathname || f.redirectUri !== redirectUri) {
      // This page holds the callback of a flow this server started, but
      // is not the redirect URI it was started with: say so, rather than
      // ignore the code and start another flow.
      fail(
        new OAuthError(
          "state_mismatch",
          `${serverUrl}: this page (${here.origin}${here.pathname}) came back with the code of a flow started with the redirect URI ${fu.origin}${fu.pathname}, but this oauth() has the redirectUri ${ru.origin}${ru.pathname}: the page that finishes a redirect must be the redirect URI, with the same oauth({ redirectUri }) as the page that started it`,
          { step: "callback", server: serverUrl },
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

  async function metadataFor(issuer, legacy = false) {
    let as = metadata.get(issuer);
    if (!as) {
      as = await flow.discoverAuthServer(issuer, ctx(), { legacy });
      metadata.set(issuer, as);
    }
    return as;
  }

  async function clientFor(as) {
    let c = clients.get(as.issuer);
    if (!c) {
      c = (await store("get", clientKey(as.issuer)).catch(() => undefined)) ?? (await flow.getClient(as, { ...config, redirectUri }, ctx()));
      clients.set(as.issuer, c);
      await store("set", clientKey(as.issuer), c);
    }
    return c;
  }

  /** bindTo records that serverUrl's credentials come from issuer (and forgets another issuer's). */
  async function bindTo(issuer, resource, scopesSupported) {
    if (binding && (binding.issuer !== issuer || binding.resource !== resource)) {
      // The resource names another authorization server now: its tokens
      // are worthless here, and nothing of the old one is sent to the new.
      await store("delete", tokensKey(binding)).catch(report);
      tokens = null;
    }
    binding = { issuer, resource, scopesSupported };
    await store("set", `server:${serverUrl}`, binding);
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
      prior: stepUp ? [tokens?.requested_scope, tokens?.scope, prepared?.flow.scope].filter(Boolean).join(" ") : undefined,
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
      autoAuthorizations = autoAuthorizations.filter((t) => now - t < AUTH_WINDOW_MS);
      if (autoAuthorizations.length >= MAX_AUTO_AUTHORIZATIONS) {
        throw new OAuthError("too_many_authorizations", `${serverUrl}: the server's refusals started ${MAX_AUTO_AUTHORIZATIONS} authorizations within ${AUTH_WINDOW_MS / 60_000} minutes, the cap: no more start by themselves (the user's authorize() still does)`, { step: stepUp ? "step-up" : "authorization", server: serverUrl });
      }
      autoAuthorizations.push(now);
    }
    stepUps.set(scope, n);
    const started = await flow.startAuthorization({ as, client, redirectUri, resource: prm.resource, scope, serverUrl });
    if (pin) pinned.add(started.flow.state);
    // One flow at a time: the records of the flows before it (verifier included) are deleted.
    await dropFlows(started.flow.state);
    // A public client's registration goes along with the flow: a full-page
    // redirect's return finds it even when storage kept nothing (memory).
    await flows.set(`flow:${started.flow.state}`, client.client_secret ? started.flow : { ...started.flow, client });
    prepared = { ...started, at: Date.now() };
    return prepared;
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
    if (prepared?.flow.state === st) prepared = null;
    const as = await metadataFor(f.issuer);
    if (f.client?.client_id === f.clientId && clients.get(as.issuer)?.client_id !== f.clientId) {
      // The page was reloaded on the way (a full-page redirect) and its
      // storage did not keep the registration: the flow's is the one the code is for.
      clients.set(as.issuer, f.client);
      await store("set", clientKey(as.issuer), f.client);
    }
    const client = await clientFor(as);
    const t = await flow.finishAuthorization({ as, client, flow: f, callbackUrl: String(callbackUrl) }, ctx());
    tokens = { ...t, issued_at: Date.now(), requested_scope: f.scope, grant: randomId() };
    signedOut = false;
    if (!binding || binding.issuer !== f.issuer) await bindTo(f.issuer, f.resource);
    await store("set", tokensKey(binding), tokens);
    authorizedState();
    for (const w of waiters) w.resolve();
    waiters.clear();
    for (const fn of onAuthorized) fn();
    return tokens.access_token;
  }

  /** authorizeFlow runs the whole flow after a refusal: through config.authorize, or up to the user's click. */
  function authorizeFlow(challenge, stepUp, explicit = false) {
    // The user's authorize() does not join a flow that only prepared the URL
    // for the user (it ends at needs-authorization): it runs its own after it.
    if (inflight && explicit && inflightByUser) return inflight.catch(() => {}).then(() => authorizeFlow(challenge, stepUp, true));
    if (inflight) return inflight;
    const byUser = !config.authorize || (signedOut && !explicit);
    if (byUser && !config.authorize && !hasWindow()) {
      // Nobody can click: a wait for the user would never end (in Node, an
      // unsettled await ends the process, silently, with code 13).
      return Promise.reject(
        fail(new OAuthError("needs_user", `${serverUrl}: the server asks for authorization, and this runtime has no window for the user's step: pass oauth({ authorize }) (mcplive/oauth/node has loopback(), which opens the system browser, and paste())`, { step: "authorization", server: serverUrl })),
      );
    }
    inflightByUser = byUser;
    inflight = (async () => {
      if (byUser && !stepUp && prepared && Date.now() - prepared.at < PREPARED_TTL_MS && state.store.get().status === "needs-authorization") {
        return ""; // still waiting for the user's click: the request fails, the URL stays
      }
      setState({ status: "authorizing", error: null });
      const p = await prepare(challenge, stepUp, !explicit);
      if (byUser) {
        setState({ status: "needs-authorization", authorizationUrl: p.authorizationUrl });
        return "";
      }
      setState({ authorizationUrl: p.authorizationUrl });
      const callbackUrl = await config.authorize(p.authorizationUrl, { signal: aborter.signal });
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
        return complete(await config.authorize(again.authorizationUrl, { signal: aborter.signal }));
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
   * dropStaleClient forgets the client registration err says the
   * authorization server no longer knows (invalid_client), when it was
   * registered here (a pre-registered client id is the app's to fix).
   */
  async function dropStaleClient(err) {
    if (!(err instanceof OAuthError) || err.error !== "invalid_client" || !binding) return false;
    const c = clients.get(binding.issuer);
    if (!c || c.how !== "registered") return false;
    clients.delete(binding.issuer);
    await store("delete", clientKey(binding.issuer)).catch(report);
    return true;
  }

  function expiring(t) {
    if (!t.expires_at) return false;
    const life = t.expires_at - (t.issued_at ?? t.expires_at - 60_000);
    return Date.now() >= t.expires_at - Math.min(30_000, life / 4);
  }

  /**
   * refreshOnce refreshes the tokens, one refresh at a time here and, with
   * Web Locks, across tabs. Only a refusal of the refresh token itself
   * (invalid_grant, invalid_client) forgets the tokens, under the lock and
   * only while storage still holds that refresh token (another tab may
   * have rotated it meanwhile: its tokens are then taken). Any other
   * failure (unreachable, a timeout, a 5xx) keeps the tokens and waits
   * (1 s, doubling to 60 s) before the next try.
   */
  function refreshOnce() {
    refreshing ??= (async () => {
      if (Date.now() < refreshBackoff.until) throw refreshBackoff.error;
      const had = tokens;
      const key = tokensKey(binding);
      setState({ status: "refreshing" });
      let dead = false;
      const run = async () => {
        // Another tab may have refreshed while this one waited for the lock.
        const stored = await store("get", key).catch(() => undefined);
        if (stored?.access_token && stored.access_token !== had.access_token && !expiring(stored)) return stored;
        const as = await metadataFor(binding.issuer);
        const client = await clientFor(as);
        let next;
        try {
          next = await flow.refresh({ as, client, tokens: had, resource: binding.resource }, ctx());
        } catch (err) {
          if (!(err instanceof OAuthError && err.code === "token_error" && DEAD_REFRESH.has(err.error))) throw err;
          const now = await store("get", key).catch(() => undefined);
          if (now?.access_token && now.refresh_token !== had.refresh_token) return now; // rotated by another tab: its tokens are good
          dead = true;
          if (!now || now.refresh_token === had.refresh_token) await store("delete", key).catch(report);
          throw err;
        }
        // refreshed: a refusal of this token goes to a new authorization, not another refresh.
        const rec = { ...next, issued_at: Date.now(), requested_scope: had.requested_scope, grant: had.grant, refreshed: true };
        await store("set", key, rec);
        return rec;
      };
      const locks = globalThis.navigator?.locks;
      try {
        const got = locks?.request ? await underLock(locks, `mcplive-oauth:${key}`, run) : await run();
        if (tokens === had) tokens = got;
        refreshBackoff = { failures: 0, until: 0, error: null };
        authorizedState();
        return got;
      } catch (err) {
        if (dead) {
          await dropStaleClient(err);
          // The refresh token is refused: the next refusal starts a new authorization.
          if (tokens === had) tokens = null;
          setState({ status: "none", error: err, expiresAt: null });
        } else {
          // Transient: the tokens stay; the next try waits.
          const failures = refreshBackoff.failures + 1;
          refreshBackoff = { failures, until: Date.now() + Math.min(REFRESH_BACKOFF_MAX_MS, REFRESH_BACKOFF_MS * 2 ** (failures - 1)), error: err };
          if (tokens) authorizedState();
          setState({ error: err });
        }
        throw err;
      }
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  /** transient: a refresh failure that keeps the tokens (not a refused refresh token). */
  const transient = (err) => !(err instanceof OAuthError && err.code === "token_error" && DEAD_REFRESH.has(err.error)) && tokens !== null;

  /**
   * bound is the token hook of the binding: token() for a DPoP-bound token
   * gives { token, dpop }: the token and the proof of this request (its
   * method and URL); after a refusal, no proof (the retry asks for its own).
   */
  async function bound(arg = {}) {
    const t = await token(arg);
    if (typeof t === "string" && t && dpop && tokens?.access_token === t && String(tokens.token_type).toLowerCase() === "dpop") {
      if (arg.error || !arg.method || !arg.requestUrl) return { token: t, dpop: "" };
      return { token: t, dpop: await flow.proof(dpop, arg.method, arg.requestUrl, t) };
    }
    return t;
  }

  /** keepNonce keeps the DPoP-Nonce of any answer of the resource server for the next proofs (RFC 9449 section 9: not only a 401's). */
  function keepNonce(res) {
    if (dpop && serverUrl) dpop.cacheNonce(res, new URL(serverUrl));
  }

  /** token is the connect option token: Go calls it before each request, and after a refusal. */
  async function token({ error } = {}) {
    await loaded;
    if (error && config.dpop && !dpop) throw new OAuthError("storage", `${serverUrl}: dpop is on and no DPoP key could be made: no token is asked for`, { step: "dpop", server: serverUrl });
    if (error?.dpopNonce && dpop) {
      // RFC 9449 section 9: the resource server's nonce goes in the next proofs.
      dpop.cacheNonce(new Response(null, { headers: { "dpop-nonce": error.dpopNonce } }), new URL(serverUrl));
      // The challenge's error may sit in its DPoP challenge next to a Bearer one.
      if ((error.error === "use_dpop_nonce" || /use_dpop_nonce/.test(error.wwwAuthenticate ?? "")) && tokens?.access_token) return tokens.access_token;
    }
    if (!error) {
      if (!tokens?.access_token) return "";
      if (expiring(tokens) && tokens.refresh_token && binding) {
        try {
          return (await refreshOnce()).access_token;
        } catch {
          return tokens?.access_token ?? ""; // transient: the token it has (it may still be good); refused: none
        }
      }
      return tokens.access_token;
    }
    if (error.status === 403 && error.error && error.error !== "insufficient_scope") return ""; // a denial no new token fixes
    lastChallenge = { resourceMetadata: error.resourceMetadata, scope: error.scope };
    const stepUp = error.status === 403 || error.error === "insufficient_scope";
    if (!stepUp) baseChallenge = lastChallenge;
    if (!stepUp && tokens?.refresh_token && binding && !tokens.refreshed && (await sameAuthServer(error))) {
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
   * sameAuthServer: the resource still names the authorization server the
   * tokens come from (it may have moved to another: then refreshing at the
   * old one is pointless, and its tokens must not be sent again).
   */
  async function sameAuthServer(error) {
    try {
      const prm = await flow.discoverResource(serverUrl, error.resourceMetadata, ctx());
      return prm.authorizationServers[0] === binding.issuer;
    } catch {
      return true; // let the refresh (or the authorization after it) say what is wrong
    }
  }

  /** authorize: the user's step. In a browser, call it from a click handler (a popup opened later is blocked). */
  function authorize({ mode } = {}) {
    if (!serverUrl) return Promise.reject(new TypeError("mcplive/oauth: authorize() before connect(): pass this object as connect's auth option first"));
    const m = mode ?? config.mode ?? "popup";
    signedOut = false;
    autoAuthorizations = []; // the user asked: the cap's window starts anew
    if (config.authorize) return loaded.then(() => authorizeFlow(lastChallenge, false, true)).then(() => {});
    if (!hasWindow()) {
      return Promise.reject(new OAuthError("needs_user", `${serverUrl}: authorize() needs a browser window, or oauth({ authorize }) (mcplive/oauth/node has loopback() and paste())`, { step: "authorization", server: serverUrl }));
    }
    const fresh = prepared && Date.now() - prepared.at < PREPARED_TTL_MS ? prepared : null;
    if (m === "redirect") {
      return (async () => {
        const p = fresh ?? (await prepare(lastChallenge));
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
      const err = new OAuthError("popup_blocked", `${serverUrl}: the browser blocked the sign-in popup: call authorize() directly in a click handler (not after an await), or use authorize({ mode: "redirect" })`, { step: "authorization", server: serverUrl });
      setState({ error: err });
      return Promise.reject(err);
    }
    const was = state.store.get();
    setState({ status: "authorizing", error: null });
    if (fresh) pinned.add(fresh.flow.state);
    let waitingOn = fresh?.flow.state;
    return (async () => {
      const p = fresh ?? (await prepare(lastChallenge, false, false, true));
      waitingOn = p.flow.state;
      if (!fresh) win.location.href = p.authorizationUrl;
      const callbackUrl = await waitForCallback(win, p.flow.state, aborter.signal, { redirectUri, timeoutMs: POPUP_TIMEOUT_MS });
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

  /**
   * signOut forgets the tokens (revoking them where the server offers RFC
   * 7009), the step-up scopes and every flow in progress (their records,
   * verifier included); with forgetClient, the client registration too
   * (the authorization server forgot it, or the app wants a new one). The
   * client re-lists. Before connect, it waits for the server's URL (the
   * records are kept under it) and forgets at connect.
   */
  async function signOut({ forgetClient = false } = {}) {
    aborter.abort(new OAuthError("aborted", `${serverUrl ?? "mcplive/oauth"}: signed out`, { step: "authorization", server: serverUrl ?? undefined }));
    aborter = new AbortController();
    signedOut = true;
    // The next user is asked for what the server challenges anyone without
    // a token (its last 401), nothing of the step-ups before.
    lastChallenge = baseChallenge;
    stepUps.clear();
    autoAuthorizations = [];
    prepared = null;
    const held = tokens;
    tokens = null;
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
    const t = held ?? (binding ? await store("get", tokensKey(binding)).catch(() => undefined) : undefined);
    tokens = null;
    pinned.clear();
    await dropFlows(null);
    if (binding) await store("delete", tokensKey(binding)).catch(report);
    if (t?.access_token && binding) {
      try {
        const as = await metadataFor(binding.issuer);
        const client = await clientFor(as);
        if (t.refresh_token) await flow.revoke({ as, client, token: t.refresh_token, hint: "refresh_token" }, ctx());
        await flow.revoke({ as, client, token: t.access_token, hint: "access_token" }, ctx());
      } catch (err) {
        report(err); // revocation is best effort: the tokens are forgotten here either way
      }
    }
    if (forgetClient && binding) {
      clients.delete(binding.issuer);
      await store("delete", clientKey(binding.issuer)).catch(report);
    }
  }

  /** waitAuthorized resolves at the next authorization, rejects when the flow fails or signal aborts. */
  function waitAuthorized(signal) {
    return new Promise((resolve, reject) => {
      const w = { resolve, reject };
      waiters.add(w);
      if (signal) {
        const onAbort = () => {
          waiters.delete(w);
          reject(signal.reason);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  const bind = (url) => {
    if (serverUrl !== null && serverUrl !== url) {
      throw new TypeError(`mcplive/oauth: this oauth() object serves ${serverUrl}; make one per server (it holds that server's tokens)`);
    }
    if (serverUrl === null) {
      serverUrl = url;
      loaded = load();
    }
    return Object.freeze({
      token: bound,
      waitAuthorized,
      /** status: the store's status ("needs-authorization": a refusal waits for the user's authorize()). */
      status: () => state.store.get().status,
      lastError: () => state.store.get().error,
      /**
       * context: the authorization context of the stored tokens (the
       * catalog cache's key of private results): the issuer and the
       * access token's subject, or a hash of the grant's random id when it
       * says none (the same across refreshes); null without tokens. Never
       * a token itself.
       */
      async context() {
        await loaded;
        if (!binding || !tokens?.access_token) return null;
        const sub = tokenSubject(tokens.access_token);
        // Without a subject: the grant (made at the authorization, kept by
        // every refresh), never a hash of a token that a refresh replaces.
        return sub === null ? `oauth:${binding.issuer} #${sha256(tokens.grant ?? tokens.refresh_token ?? tokens.access_token)}` : `oauth:${binding.issuer} ${sub}`;
      },
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

/** randomId is 128 random bits, hex. */
function randomId() {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** tokenSubject reads the sub claim of a JWT access token (unverified: only a cache key); null when it has none. */
function tokenSubject(t) {
  try {
    const part = t.split(".")[1];
    if (!part) return null;
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
    const json = new TextDecoder().decode(Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0)));
    const sub = JSON.parse(json)?.sub;
    return typeof sub === "string" && sub ? sub : null;
  } catch {
    return null;
  }
}

/**
 * How long a tab that refreshed keeps the lock after storing the new
 * tokens. Chromium keeps a copy of localStorage in each renderer process
 * and brings other processes' writes to it asynchronously: a tab that gets
 * the lock right after the refresh can still read the spent refresh token
 * (seen in js/test/oauth-browser.test.js: the second tab sent it 4 ms after
 * the first tab's refresh, and oidc-provider, seeing a rotated refresh
 * token reused, revoked the grant). The refreshing tab does not wait: it
 * has its tokens at once; only the lock's release waits.
 */
const LOCK_LINGER_MS = 250;

/** underLock runs fn holding the Web Lock name, resolving with its result before the lock is let go. */
function underLock(locks, name, fn) {
  return new Promise((resolve, reject) => {
    locks
      .request(name, async () => {
        let v;
        try {
          v = await fn();
        } catch (err) {
          reject(err);
          return;
        }
        resolve(v);
        await new Promise((r) => setTimeout(r, LOCK_LINGER_MS));
      })
      .catch(reject);
  });
}

/** hasWindow: a page, where the user can click authorize() (not a worker, not Node). */
function hasWindow() {
  return inBrowser && typeof globalThis.window === "object" && globalThis.window !== null;
}

function hasSessionStorage() {
  try {
    return inBrowser && typeof globalThis.sessionStorage === "object" && globalThis.sessionStorage !== null;
  } catch {
    return false; // access denied (sandboxed iframe, storage off)
  }
}

function checkRedirectUri(v) {
  if (typeof v !== "string" && !(v instanceof URL)) throw new TypeError("mcplive/oauth: redirectUri is required: the URL your authorization callback page lives at (registered with the authorization server)");
  let u;
  try {
    u = new URL(String(v));
  } catch {
    throw new TypeError(`mcplive/oauth: redirectUri ${JSON.stringify(String(v))} is not an absolute URL`);
  }
  if (u.protocol === "javascript:" || u.protocol === "data:" || u.protocol === "blob:" || u.protocol === "file:") throw new TypeError(`mcplive/oauth: redirectUri may not be a ${u.protocol} URL`);
  if (u.protocol === "http:" && !isLoopback(u.hostname)) throw new TypeError("mcplive/oauth: redirectUri must be https (plain http on loopback only)");
  if (u.hash) throw new TypeError("mcplive/oauth: redirectUri may not have a fragment");
  return u.href;
}

export { checkURL, anySignal };
