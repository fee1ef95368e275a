// clientCredentials(): the auth option of connect for a machine (a Node
// agent, a service): no user, no browser. The client authenticates as
// itself at the authorization server the MCP server names (OAuth 2.1
// client credentials grant, the MCP extension
// io.modelcontextprotocol/oauth-client-credentials, SEP-1046), with a
// secret (client_secret_basic) or a private key (private_key_jwt, RFC 7523),
// and sends the token on every request. The same store and methods as
// oauth() (client.auth): authorize() gets a token now, signOut() forgets it.

import { createStore, report } from "../store.js";
import { sha256 } from "../hash.js";
import { OAuthError } from "./errors.js";
import * as flow from "./flow.js";
import { BIND } from "./auth.js";

const OPTIONS = ["clientId", "clientSecret", "privateKey", "algorithm", "assertion", "scopes", "timeoutMs", "fetch", "allowPrivateNetwork", "allowParentResource"];
/** The token requests a server's refusals may cause per window (a refused token is asked for anew, not without end). */
const MAX_REQUESTS = 5;
const WINDOW_MS = 60_000;
const MAX_SCOPES = 16;

/** The algorithms a PEM private key is imported for. */
const ALGORITHMS = {
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  ES384: { name: "ECDSA", namedCurve: "P-384" },
  ES512: { name: "ECDSA", namedCurve: "P-521" },
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  PS256: { name: "RSA-PSS", hash: "SHA-256" },
  EdDSA: { name: "Ed25519" },
};

/**
 * clientCredentials returns the auth option of connect for a client that
 * authenticates as itself. See oauth.d.ts (ClientCredentialsOptions).
 */
export function clientCredentials(config = {}) {
  if (config === null || typeof config !== "object") throw new TypeError("mcplive/oauth: clientCredentials() takes an options object");
  for (const k of Object.keys(config)) {
    if (!OPTIONS.includes(k)) throw new TypeError(`mcplive/oauth: clientCredentials: unknown option ${JSON.stringify(k)} (known: ${OPTIONS.join(", ")})`);
  }
  if (typeof config.clientId !== "string" || !config.clientId) throw new TypeError("mcplive/oauth: clientCredentials needs clientId (the client registered at the authorization server)");
  const hasSecret = typeof config.clientSecret === "string" && config.clientSecret !== "";
  const hasKey = config.privateKey !== undefined && config.privateKey !== null;
  const hasAssertion = config.assertion !== undefined && config.assertion !== null;
  if (hasAssertion && typeof config.assertion !== "string" && typeof config.assertion !== "function") throw new TypeError("mcplive/oauth: clientCredentials: assertion must be a JWT (a string) or a function that gives one");
  if (Number(hasSecret) + Number(hasKey) + Number(hasAssertion) !== 1) throw new TypeError("mcplive/oauth: clientCredentials needs one of clientSecret (client_secret_basic), privateKey (private_key_jwt: a CryptoKey, or a PKCS8 PEM string) or assertion (a workload identity JWT: the JWT bearer grant)");
  if (hasKey && typeof config.privateKey !== "string" && !(typeof CryptoKey === "function" && config.privateKey instanceof CryptoKey)) {
    throw new TypeError("mcplive/oauth: clientCredentials: privateKey must be a CryptoKey (private, for signing) or a PKCS8 PEM string");
  }
  const algorithm = config.algorithm ?? "ES256";
  if (!ALGORITHMS[algorithm]) throw new TypeError(`mcplive/oauth: clientCredentials: algorithm must be one of ${Object.keys(ALGORITHMS).join(", ")}`);
  const scopes = Array.isArray(config.scopes) ? config.scopes.join(" ") : config.scopes;
  if (scopes !== undefined && typeof scopes !== "string") throw new TypeError("mcplive/oauth: clientCredentials: scopes must be a string or an array of strings");

  const initial = Object.freeze({ status: "none", issuer: null, scopes: Object.freeze([]), expiresAt: null, authorizationUrl: null, error: null });
  const state = createStore(initial);
  const setState = (patch) => state.set(Object.freeze({ ...state.store.get(), ...patch, ...(patch.scopes ? { scopes: Object.freeze([...patch.scopes]) } : {}) }));

  let serverUrl = null;
  let target = null; // { as, resource, scope }
  let tokens = null;
  let key = null; // the imported private key
  let inflight = null;
  let aborter = new AbortController();
  let requests = [];
  let refused = null; // the token endpoint's refusal: not asked again until authorize()
  const onAuthorized = new Set();
  const ctx = () => ({ server: serverUrl, timeoutMs: config.timeoutMs, fetch: config.fetch, signal: aborter.signal, allowPrivateNetwork: config.allowPrivateNetwork === true, allowParentResource: config.allowParentResource === true });

  async function privateKey() {
    if (typeof config.privateKey !== "string") return config.privateKey;
    key ??= importPem(config.privateKey, algorithm).catch((err) => {
      key = null;
      throw new TypeError(`mcplive/oauth: clientCredentials: the private key could not be imported for ${algorithm} (${err?.message ?? err})`);
    });
    return key;
  }

  /** fetchToken discovers (once per challenge) and asks for a token. */
  function fetchToken(challenge, stepUp) {
    inflight ??= (async () => {
      if (refused) throw refused; // a refusal is not retried by itself (nor with another grant)
      const now = Date.now();
      requests = requests.filter((t) => now - t < WINDOW_MS);
      if (requests.length >= MAX_REQUESTS) {
        throw new OAuthError("too_many_authorizations", `${serverUrl}: the server refused ${MAX_REQUESTS} tokens within ${WINDOW_MS / 1000} s, the cap: no more are asked for by themselves (authorize() still does)`, { step: "token", server: serverUrl });
      }
      requests.push(now);
      setState({ status: "authorizing", error: null });
      if (!target || challenge.resourceMetadata || stepUp) {
        const prm = await flow.discoverResource(serverUrl, challenge.resourceMetadata, ctx());
        const issuer = prm.authorizationServers[0];
        const as = target?.as.issuer === issuer ? target.as : await flow.discoverAuthServer(issuer, ctx(), { grant: "client_credentials" });
        const scope = flow.chooseScopes({ challenge: challenge.scope, prior: stepUp ? target?.scope : undefined, scopesSupported: prm.scopesSupported, configured: scopes });
        if (scope.split(" ").filter(Boolean).length > MAX_SCOPES) {
          throw new OAuthError("insufficient_scope", `${serverUrl}: the scopes asked for grew over the cap of ${MAX_SCOPES}: giving up`, { step: "step-up", server: serverUrl, error: "insufficient_scope" });
        }
        target = { as, resource: prm.resource, scope };
      }
      let t;
      try {
        t = hasAssertion
          ? await flow.jwtBearer({ as: target.as, clientId: config.clientId, assertion: typeof config.assertion === "function" ? await config.assertion() : config.assertion, resource: target.resource, scope: target.scope }, ctx())
          : await flow.clientCredentials({ as: target.as, clientId: config.clientId, clientSecret: config.clientSecret, privateKey: hasKey ? await privateKey() : undefined, resource: target.resource, scope: target.scope }, ctx());
      } catch (err) {
        if (err instanceof OAuthError && err.code === "token_error") refused = err;
        throw err;
      }
      tokens = { ...t, issued_at: Date.now() };
      setState({ status: "authorized", issuer: target.as.issuer, scopes: (t.scope ?? target.scope ?? "").split(" ").filter(Boolean), expiresAt: t.expires_at ?? null, error: null });
      for (const fn of onAuthorized) fn();
      return t.access_token;
    })()
      .catch((err) => {
        const e = err instanceof OAuthError || err instanceof TypeError ? err : new OAuthError("aborted", `${serverUrl}: the token request failed: ${err?.message ?? err}`, { step: "token", server: serverUrl });
        setState({ status: "error", error: e });
        throw e;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  }

  const expiring = (t) => t.expires_at !== undefined && Date.now() >= t.expires_at - 30_000;

  async function token({ error } = {}) {
    if (!error) {
      if (!tokens) return "";
      if (expiring(tokens)) return fetchToken({}, false); // a client's token: just ask again
      return tokens.access_token;
    }
    if (error.status === 403 && error.error && error.error !== "insufficient_scope") return "";
    return fetchToken({ resourceMetadata: error.resourceMetadata, scope: error.scope }, error.status === 403 || error.error === "insufficient_scope");
  }

  async function authorize() {
    if (!serverUrl) throw new TypeError("mcplive/oauth: authorize() before connect(): pass this object as connect's auth option first");
    requests = [];
    refused = null;
    await fetchToken({}, false);
  }

  async function signOut() {
    aborter.abort(new OAuthError("aborted", `${serverUrl ?? "mcplive/oauth"}: signed out`, { step: "token", server: serverUrl ?? undefined }));
    aborter = new AbortController();
    tokens = null;
    state.set(initial);
    for (const fn of onAuthorized) {
      try {
        fn();
      } catch (err) {
        report(err);
      }
    }
  }

  const bind = (url) => {
    if (serverUrl !== null && serverUrl !== url) throw new TypeError(`mcplive/oauth: this clientCredentials() object serves ${serverUrl}; make one per server`);
    serverUrl = url;
    return Object.freeze({
      token,
      waitAuthorized: () => (inflight ? inflight.then(() => {}) : Promise.resolve()),
      status: () => state.store.get().status,
      lastError: () => state.store.get().error,
      async context() {
        return tokens && target ? `oauth:${target.as.issuer} client:${sha256(config.clientId)}` : null;
      },
      onAuthorized(fn) {
        onAuthorized.add(fn);
        return () => onAuthorized.delete(fn);
      },
    });
  };

  return Object.freeze({ ...state.store, authorize, signOut, [BIND]: bind });
}

/** importPem imports a PKCS8 PEM private key for signing with alg. */
async function importPem(pem, alg) {
  const b64 = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return globalThis.crypto.subtle.importKey("pkcs8", der, ALGORITHMS[alg], false, ["sign"]);
}
