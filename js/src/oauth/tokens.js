// The tokens of one oauth() object (auth.js is the face): where they are
// kept (the token storage: the server's binding to its authorization
// server, the tokens, the client registration, under keys of issuer and
// resource), the authorization server's metadata and client, the DPoP
// key, and the refresh, one at a time here and, with Web Locks, across
// tabs.

import { report } from "../store.js";
import { sha256 } from "../hash.js";
import { OAuthError } from "./errors.js";
import { dpopKeyPair } from "./storage.js";
import * as flow from "./flow.js";

/** A transient refresh failure waits this long (doubling, at most REFRESH_BACKOFF_MAX_MS) before the next try. */
const REFRESH_BACKOFF_MS = 1000;
const REFRESH_BACKOFF_MAX_MS = 60_000;
/** The token endpoint's errors that mean the refresh token (or the client) is dead: only these forget the tokens. */
const DEAD_REFRESH = new Set(["invalid_grant", "invalid_client", "unauthorized_client"]);

/**
 * createTokens keeps the tokens of a (auth.js: the state its modules
 * share; a.binding, a.tokens and a.dpop are written here), with setState
 * (authstore.js) and ctx() (the flow's context of each request, flow.js).
 */
export function createTokens(a, { setState, ctx }) {
  const { config, redirectUri, storage, metadata, clients } = a;
  let refreshing = null;
  let refreshBackoff = { failures: 0, until: 0, error: null }; // after a transient refresh failure

  /** useDPoP makes (or loads) the DPoP key pair; a runtime without WebCrypto fails the flow, never falls back to bearer. */
  async function useDPoP(fresh = false) {
    if (!config.dpop) return;
    try {
      a.dpop = flow.dpopHandle(await dpopKeyPair(`${a.serverUrl}`, { fresh }));
    } catch (err) {
      a.dpop = null;
      throw new OAuthError("storage", `${a.serverUrl}: the DPoP key could not be made (${err?.message ?? err})`, { step: "dpop", server: a.serverUrl });
    }
  }

  const tokensKey = (b) => `tokens:${b.issuer}|${b.resource}`;
  const clientKey = (issuer) => `client:${issuer}|${redirectUri}`;

  async function store(op, key, value) {
    try {
      return await (op === "get" ? storage.get(key) : op === "set" ? storage.set(key, value) : storage.delete(key));
    } catch (err) {
      throw new OAuthError("storage", `${a.serverUrl}: the token storage failed (${op} ${key.split(":")[0]}): ${err?.message ?? err}`, { step: "storage", server: a.serverUrl, cause: err });
    }
  }

  function authorizedState() {
    setState({ status: "authorized", issuer: a.binding.issuer, scopes: (a.tokens.scope ?? a.tokens.requested_scope ?? "").split(" ").filter(Boolean), expiresAt: a.tokens.expires_at ?? null, authorizationUrl: null, error: null });
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
    if (a.binding && (a.binding.issuer !== issuer || a.binding.resource !== resource)) {
      // The resource names another authorization server now: its tokens
      // are worthless here, and nothing of the old one is sent to the new.
      await store("delete", tokensKey(a.binding)).catch(report);
      a.tokens = null;
    }
    a.binding = { issuer, resource, scopesSupported };
    await store("set", `server:${a.serverUrl}`, a.binding);
  }

  /**
   * dropStaleClient forgets the client registration err says the
   * authorization server no longer knows (invalid_client), when it was
   * registered here (a pre-registered client id is the app's to fix).
   */
  async function dropStaleClient(err) {
    if (!(err instanceof OAuthError) || err.error !== "invalid_client" || !a.binding) return false;
    const c = clients.get(a.binding.issuer);
    if (!c || c.how !== "registered") return false;
    clients.delete(a.binding.issuer);
    await store("delete", clientKey(a.binding.issuer)).catch(report);
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
      const had = a.tokens;
      const key = tokensKey(a.binding);
      setState({ status: "refreshing" });
      let dead = false;
      const run = async () => {
        // Another tab may have refreshed while this one waited for the lock.
        const stored = await store("get", key).catch(() => undefined);
        if (stored?.access_token && stored.access_token !== had.access_token && !expiring(stored)) return stored;
        const as = await metadataFor(a.binding.issuer);
        const client = await clientFor(as);
        let next;
        try {
          next = await flow.refresh({ as, client, tokens: had, resource: a.binding.resource }, ctx());
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
        if (a.tokens === had) a.tokens = got;
        refreshBackoff = { failures: 0, until: 0, error: null };
        authorizedState();
        return got;
      } catch (err) {
        if (dead) {
          await dropStaleClient(err);
          // The refresh token is refused: the next refusal starts a new authorization.
          if (a.tokens === had) a.tokens = null;
          setState({ status: "none", error: err, expiresAt: null });
        } else {
          // Transient: the tokens stay; the next try waits.
          const failures = refreshBackoff.failures + 1;
          refreshBackoff = { failures, until: Date.now() + Math.min(REFRESH_BACKOFF_MAX_MS, REFRESH_BACKOFF_MS * 2 ** (failures - 1)), error: err };
          if (a.tokens) authorizedState();
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
  const transient = (err) => !(err instanceof OAuthError && err.code === "token_error" && DEAD_REFRESH.has(err.error)) && a.tokens !== null;

  /**
   * sameAuthServer: the resource still names the authorization server the
   * tokens come from (it may have moved to another: then refreshing at the
   * old one is pointless, and its tokens must not be sent again).
   */
  async function sameAuthServer(error) {
    try {
      const prm = await flow.discoverResource(a.serverUrl, error.resourceMetadata, ctx());
      return prm.authorizationServers[0] === a.binding.issuer;
    } catch {
      return true; // let the refresh (or the authorization after it) say what is wrong
    }
  }

  /**
   * context: the authorization context of the stored tokens (the
   * catalog cache's key of private results): the issuer and the
   * access token's subject, or a hash of the grant's random id when it
   * says none (the same across refreshes); null without tokens. Never
   * a token itself.
   */
  async function context() {
    await a.loaded;
    if (!a.binding || !a.tokens?.access_token) return null;
    const sub = tokenSubject(a.tokens.access_token);
    // Without a subject: the grant (made at the authorization, kept by
    // every refresh), never a hash of a token that a refresh replaces.
    return sub === null ? `oauth:${a.binding.issuer} #${sha256(a.tokens.grant ?? a.tokens.refresh_token ?? a.tokens.access_token)}` : `oauth:${a.binding.issuer} ${sub}`;
  }

  return { useDPoP, tokensKey, clientKey, store, authorizedState, metadataFor, clientFor, bindTo, dropStaleClient, expiring, refreshOnce, transient, sameAuthServer, context };
}

/** randomId is 128 random bits, hex. */
export function randomId() {
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
