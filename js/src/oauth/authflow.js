// The course of one authorization (auth.js is the face): prepare makes the
// authorization URL (the discovery, the client, the scopes, and the flow
// record kept per state), complete checks the callback and trades its code
// for tokens, and authorizeFlow runs the whole after a server's refusal,
// through the app's authorize option or up to the user's click (ui.js).
// The steps themselves are flow.js's.

import { OAuthError } from "./errors.js";
import * as flow from "./flow.js";
import { hasWindow, MAX_STEP_UPS, MAX_AUTO_AUTHORIZATIONS, AUTH_WINDOW_MS, MAX_SCOPES, PREPARED_TTL_MS, FLOW_TTL_MS } from "./config.js";
import { randomId } from "./tokens.js";

/**
 * createAuthFlow runs the authorizations of a (auth.js: the state its
 * modules share), with the store's state, setState, fail, waiters and
 * onAuthorized (authstore.js), the tokens' functions (tokens.js) and ctx()
 * (the flow's context of each request).
 */
export function createAuthFlow(a, { state, setState, fail, waiters, onAuthorized, ctx, tokens: { store, tokensKey, clientKey, authorizedState, metadataFor, clientFor, bindTo, dropStaleClient } }) {
  const { config, redirectUri, scopes, flows, clients, pinned, stepUps } = a;
  let inflight = null; // the authorization in progress (one at a time)
  let inflightByUser = false; // inflight ends at needs-authorization (the URL, for the user)
  let reregistered = false; // the flow in progress registered anew once already
  const consumed = new Set(); // states whose callback was used

  const flowIndexKey = () => `flows:${a.serverUrl}`;

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

  /**
   * prepare discovers what the flow needs and makes the authorization URL
   * (and its flow record, kept per state).
   */
  async function prepare(challenge = {}, stepUp = false, auto = false, pin = false) {
    let prm;
    try {
      prm = await flow.discoverResource(a.serverUrl, challenge.resourceMetadata, ctx());
    } catch (err) {
      if (!(err instanceof OAuthError) || err.code !== "no_metadata") throw err;
      // MCP 2025-03-26: no protected resource metadata; the MCP server's
      // origin is its authorization server (its metadata, else the default
      // endpoints /authorize, /token, /register).
      prm = { resource: a.serverUrl, authorizationServers: [new URL(a.serverUrl).origin], legacy: true };
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
      throw new OAuthError("insufficient_scope", `${a.serverUrl}: still refused for insufficient scope after ${MAX_STEP_UPS} authorizations with ${JSON.stringify(scope)}: giving up (the cap on step-ups per scope set)`, { step: "step-up", server: a.serverUrl, error: "insufficient_scope" });
    }
    const count = scope.split(" ").filter(Boolean).length;
    if (stepUp && count > MAX_SCOPES) {
      throw new OAuthError("insufficient_scope", `${a.serverUrl}: a step-up would ask for ${count} scopes (the union of every challenge's), over the cap of ${MAX_SCOPES}: giving up`, { step: "step-up", server: a.serverUrl, error: "insufficient_scope" });
    }
    if (auto) {
      const now = Date.now();
      a.autoAuthorizations = a.autoAuthorizations.filter((t) => now - t < AUTH_WINDOW_MS);
      if (a.autoAuthorizations.length >= MAX_AUTO_AUTHORIZATIONS) {
        throw new OAuthError("too_many_authorizations", `${a.serverUrl}: the server's refusals started ${MAX_AUTO_AUTHORIZATIONS} authorizations within ${AUTH_WINDOW_MS / 60_000} minutes, the cap: no more start by themselves (the user's authorize() still does)`, { step: stepUp ? "step-up" : "authorization", server: a.serverUrl });
      }
      a.autoAuthorizations.push(now);
    }
    stepUps.set(scope, n);
    const started = await flow.startAuthorization({ as, client, redirectUri, resource: prm.resource, scope, serverUrl: a.serverUrl });
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
      throw new OAuthError("state_mismatch", `${a.serverUrl}: the callback (${String(callbackUrl).length} characters) is not a URL`, { step: "callback", server: a.serverUrl });
    }
    const st = params.get("state");
    if (!st) throw new OAuthError("state_mismatch", `${a.serverUrl}: the callback has no state`, { step: "callback", server: a.serverUrl });
    if (consumed.has(st)) throw new OAuthError("replayed_callback", `${a.serverUrl}: this callback was used already: refusing to use its code again`, { step: "callback", server: a.serverUrl });
    const f = await flows.get(`flow:${st}`).catch(() => undefined);
    if (!f || f.serverUrl !== a.serverUrl) {
      throw new OAuthError("state_mismatch", `${a.serverUrl}: the callback's state matches no authorization this client started (a forged or foreign callback)`, { step: "callback", server: a.serverUrl });
    }
    consumed.add(st);
    await flows.delete(`flow:${st}`).catch(() => {});
    if (Date.now() - f.createdAt > FLOW_TTL_MS) throw new OAuthError("state_mismatch", `${a.serverUrl}: the callback came after the flow expired`, { step: "callback", server: a.serverUrl });
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
        fail(new OAuthError("needs_user", `${a.serverUrl}: the server asks for authorization, and this runtime has no window for the user's step: pass oauth({ authorize }) (mcplive/oauth/node has loopback(), which opens the system browser, and paste())`, { step: "authorization", server: a.serverUrl })),
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
        throw new OAuthError("state_mismatch", `${a.serverUrl}: the authorize callback must give the callback URL (a string), got ${typeof callbackUrl}`, { step: "callback", server: a.serverUrl });
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
        throw fail(err instanceof OAuthError ? err : new OAuthError("aborted", `${a.serverUrl}: the authorization failed: ${err?.message ?? err}`, { step: "authorization", server: a.serverUrl, cause: err }));
      })
      .finally(() => {
        inflight = null;
        reregistered = false;
      });
    return inflight;
  }

  return { dropFlows, prepare, complete, authorizeFlow };
}
