// The protocol steps of MCP authorization, composed from oauth4webapi:
// protected resource metadata (RFC 9728), authorization server metadata
// (RFC 8414 / OpenID discovery, in the MCP spec's order), a client id
// (pre-registered, a Client ID Metadata Document, or RFC 7591 registration),
// the authorization request with PKCE S256, state and the RFC 8707
// resource, the callback's checks (state, RFC 9207 iss), the code exchange,
// refresh and revocation. Each step is a function of what the step before
// returned; none keeps state (auth.js, authflow.js and tokens.js do). A
// step that reads an answer by hand is a pair, as oauth4webapi's xRequest
// and processXResponse are: the request (xRequest) and the check of its
// answer (processXResponse), which takes a plain Response, so it can be
// tested without a server.
//
// Written here, not in oauth4webapi: the discovery URLs and their order
// (MCP's, with path insertion for OpenID too), the exact issuer comparison
// (oauth4webapi normalizes both through URL), the protected resource's
// resource check (a prefix of the server URL, as MCP allows), the choice
// of client id and of token endpoint authentication, the scope selection.

import * as oauth from "oauth4webapi";
import { OAuthError } from "./errors.js";
import { checkURL, readJSON, redactURL, request } from "./http.js";

/** options makes oauth4webapi's request options: its customFetch sends every request through request() (http.js). */
function options(ctx, extra = {}) {
  return {
    ...extra,
    // DPoP (RFC 9449): a proof on each token request, the nonces the server sends kept.
    ...(ctx.dpop && (ctx.step === "token" || ctx.step === "refresh") ? { DPoP: ctx.dpop } : {}),
    [oauth.customFetch]: (url, init) => request(url, { method: init.method, headers: init.headers, body: init.body }, ctx),
    // request() refuses plain http other than loopback itself.
    [oauth.allowInsecureRequests]: true,
  };
}

/**
 * resourceMetadataURLs lists where the protected resource metadata of
 * serverUrl may be: the challenge's resource_metadata first, then the
 * path-aware well-known URL, then the root one (RFC 9728 section 3.1).
 */
export function resourceMetadataURLs(serverUrl, fromChallenge) {
  const u = new URL(serverUrl);
  const out = [];
  if (fromChallenge) out.push(new URL(fromChallenge, u).href);
  const path = u.pathname.replace(/\/$/, "");
  if (path) out.push(`${u.origin}/.well-known/oauth-protected-resource${path}`);
  out.push(`${u.origin}/.well-known/oauth-protected-resource`);
  return [...new Set(out)];
}

/**
 * authServerMetadataURLs lists where an issuer's metadata may be, in the
 * order of the MCP spec: with a path, OAuth then OpenID with the path
 * inserted, then OpenID with the path appended; without one, OAuth then
 * OpenID.
 */
export function authServerMetadataURLs(issuer) {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/$/, "");
  if (!path) return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * resourceMatches: the metadata's resource identifies serverUrl (RFC 9728
 * section 3.3). It is serverUrl itself; or, for a document read from the
 * root well-known URL of serverUrl's origin (which only the origin's owner
 * serves), that origin. With allowParent (the app's opt-in), any parent of
 * serverUrl's path on the same origin. Scheme and host compare
 * case-insensitively (URL lower-cases them); a trailing slash is ignored.
 */
export function resourceMatches(serverUrl, resource, { from, allowParent = false } = {}) {
  let s, r;
  try {
    s = new URL(serverUrl);
    r = new URL(resource);
  } catch {
    return false;
  }
  if (s.origin !== r.origin || r.search || r.hash || r.username || r.password) return false;
  const rp = r.pathname.replace(/\/$/, "");
  const sp = s.pathname.replace(/\/$/, "");
  if (sp === rp) return true;
  if (allowParent) return rp === "" || sp.startsWith(rp + "/");
  return rp === "" && from === `${s.origin}/.well-known/oauth-protected-resource`;
}

/**
 * discoverResource fetches the protected resource metadata of serverUrl.
 * @returns {Promise<{ resource: string, authorizationServers: string[], scopesSupported?: string[], url: string }>}
 */
export async function discoverResource(serverUrl, fromChallenge, ctx) {
  const step = RESOURCE_STEP;
  const tried = [];
  for (const url of resourceMetadataURLs(serverUrl, fromChallenge)) {
    const res = await resourceMetadataRequest(url, ctx);
    const prm = await processResourceMetadataResponse(serverUrl, url, res, ctx);
    if (prm === null) {
      tried.push(`${redactURL(url)}: HTTP ${res.status}`);
      continue;
    }
    return prm;
  }
  throw new OAuthError("no_metadata", `${serverUrl}: no protected resource metadata (RFC 9728) found (${tried.join("; ")}): the server does not say which authorization server to use`, { step, server: serverUrl });
}

const RESOURCE_STEP = "protected resource metadata";

/** resourceMetadataRequest asks url for protected resource metadata (following redirects, each hop checked). */
export function resourceMetadataRequest(url, ctx) {
  return request(url, { headers: { accept: "application/json" }, follow: true }, { ...ctx, step: RESOURCE_STEP });
}

/**
 * processResourceMetadataResponse checks res, url's answer, as the
 * protected resource metadata of serverUrl: null when it is not a success
 * (the next URL is tried), else what the flow takes of it; it throws an
 * OAuthError when the document lacks what the flow needs or is for
 * another resource (ctx.allowParentResource: a parent path is accepted).
 * @returns {Promise<{ resource: string, authorizationServers: string[], scopesSupported?: string[], url: string } | null>}
 */
export async function processResourceMetadataResponse(serverUrl, url, res, ctx) {
  const step = RESOURCE_STEP;
  const c = { ...ctx, step };
  if (!res.ok) return null;
  const doc = await readJSON(res, c, url);
  if (typeof doc.resource !== "string" || !Array.isArray(doc.authorization_servers) || doc.authorization_servers.length === 0 || !doc.authorization_servers.every((s) => typeof s === "string")) {
    throw new OAuthError("bad_response", `${serverUrl}: ${step} at ${redactURL(url)} lacks resource or authorization_servers`, { step, server: serverUrl });
  }
  if (!resourceMatches(serverUrl, doc.resource, { from: url, allowParent: ctx.allowParentResource })) {
    throw new OAuthError("resource_mismatch", `${serverUrl}: ${step} at ${redactURL(url)} is for the resource ${redactURL(doc.resource)}, not this server (RFC 9728 section 3.3; oauth({ allowParentResource: true }) accepts a parent path of it on the same origin): refusing to authorize for it`, { step, server: serverUrl });
  }
  return {
    url,
    resource: doc.resource,
    authorizationServers: doc.authorization_servers,
    scopesSupported: Array.isArray(doc.scopes_supported) ? doc.scopes_supported.filter((s) => typeof s === "string") : undefined,
  };
}

/**
 * discoverAuthServer fetches the metadata of issuer, and checks that it
 * names exactly that issuer (simple string comparison) and offers what the
 * flow needs.
 * @returns {Promise<oauth.AuthorizationServer>}
 */
export async function discoverAuthServer(issuer, ctx, { grant = "authorization_code", legacy = false } = {}) {
  const step = AS_STEP;
  checkURL(issuer, "issuer", ctx);
  const tried = [];
  for (const url of authServerMetadataURLs(issuer)) {
    const res = await authServerMetadataRequest(url, ctx);
    const as = await processAuthServerMetadataResponse(issuer, url, res, ctx, { grant });
    if (as === null) {
      tried.push(`${redactURL(url)}: HTTP ${res.status}`);
      continue;
    }
    return as;
  }
  if (legacy) {
    // MCP 2025-03-26: a server without metadata has the default endpoints at its origin.
    return { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/register`, code_challenge_methods_supported: ["S256"] };
  }
  throw new OAuthError("no_metadata", `${ctx.server}: no metadata found for the authorization server ${issuer} (${tried.join("; ")})`, { step, server: ctx.server });
}

const AS_STEP = "authorization server metadata";

/** authServerMetadataRequest asks url for authorization server metadata (following redirects, each hop checked). */
export function authServerMetadataRequest(url, ctx) {
  return request(url, { headers: { accept: "application/json" }, follow: true }, { ...ctx, step: AS_STEP });
}

/**
 * processAuthServerMetadataResponse checks res, url's answer, as the
 * metadata of issuer: null when it is not a success (the next URL is
 * tried), else the metadata, which names exactly that issuer (simple
 * string comparison), has only endpoints the flow may reach (ctx:
 * checkURL's), and offers what the grant needs (the authorization code
 * grant: both endpoints and PKCE with S256).
 * @returns {Promise<oauth.AuthorizationServer | null>}
 */
export async function processAuthServerMetadataResponse(issuer, url, res, ctx, { grant = "authorization_code" } = {}) {
  const step = AS_STEP;
  const c = { ...ctx, step };
  if (!res.ok) return null;
  const as = await readJSON(res, c, url);
  if (as.issuer !== issuer) {
    throw new OAuthError("issuer_mismatch", `${ctx.server}: ${step} at ${url} names the issuer ${JSON.stringify(as.issuer)}, not ${JSON.stringify(issuer)}: refusing it (it may be an impersonation)`, { step, server: ctx.server });
  }
  for (const k of ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"]) {
    if (as[k] !== undefined) {
      if (typeof as[k] !== "string") throw new OAuthError("bad_response", `${ctx.server}: ${step}: ${k} is not a string`, { step, server: ctx.server });
      checkURL(as[k], `${step}: ${k}`, ctx);
    }
  }
  if (grant === "client_credentials") {
    if (!as.token_endpoint) throw new OAuthError("bad_response", `${ctx.server}: ${step} at ${redactURL(url)} has no token_endpoint`, { step, server: ctx.server });
    return as;
  }
  if (!as.authorization_endpoint || !as.token_endpoint) {
    throw new OAuthError("bad_response", `${ctx.server}: ${step} at ${redactURL(url)} has no authorization_endpoint or token_endpoint`, { step, server: ctx.server });
  }
  if (!Array.isArray(as.code_challenge_methods_supported) || !as.code_challenge_methods_supported.includes("S256")) {
    throw new OAuthError("no_s256", `${ctx.server}: the authorization server ${issuer} does not list S256 in code_challenge_methods_supported: the flow needs PKCE with S256 and refuses to go on without it`, { step, server: ctx.server });
  }
  return as;
}

/**
 * applicationType: native for a loopback or custom-scheme redirect
 * (RFC 8252), web for an https one (the spec's client registration).
 */
export function applicationType(redirectUri) {
  const u = new URL(redirectUri);
  return u.protocol === "https:" ? "web" : "native";
}

/** pickSecretMethod chooses how a client with a secret authenticates at the token endpoint. */
function pickSecretMethod(as) {
  const m = as.token_endpoint_auth_methods_supported;
  if (!Array.isArray(m) || m.includes("client_secret_basic")) return "client_secret_basic";
  if (m.includes("client_secret_post")) return "client_secret_post";
  return "client_secret_basic";
}

/**
 * getClient finds the client id for this authorization server: the app's
 * pre-registered one, else the app's Client ID Metadata Document URL when
 * the server accepts those, else a registration (RFC 7591). What it
 * returns is bound to as.issuer; the caller keeps it under that issuer
 * only.
 * @returns {Promise<{ client_id: string, client_secret?: string, token_endpoint_auth_method: string, how: "pre-registered" | "metadata-document" | "registered" }>}
 */
export async function getClient(as, config, ctx) {
  const step = "client registration";
  const pre = typeof config.clients === "function" ? await config.clients(as.issuer) : config.clients?.[as.issuer];
  if (pre) {
    return {
      client_id: pre.clientId,
      ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}),
      token_endpoint_auth_method: pre.tokenEndpointAuthMethod ?? (pre.clientSecret ? pickSecretMethod(as) : "none"),
      how: "pre-registered",
    };
  }
  if (config.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
    return { client_id: config.clientMetadataUrl, token_endpoint_auth_method: "none", how: "metadata-document" };
  }
  if (!as.registration_endpoint) {
    throw new OAuthError(
      "no_client_id",
      `${ctx.server}: no way to get a client id at ${as.issuer}: it offers no dynamic registration` +
        (as.client_id_metadata_document_supported === true ? ", and no clientMetadataUrl was given" : " and does not accept client ID metadata documents") +
        `: pass oauth({ clients: { ${JSON.stringify(as.issuer)}: { clientId } } }) with a client registered there`,
      { step, server: ctx.server },
    );
  }
  const methods = as.token_endpoint_auth_methods_supported;
  const method = !Array.isArray(methods) || methods.includes("none") ? "none" : pickSecretMethod(as);
  const metadata = {
    redirect_uris: [config.redirectUri],
    client_name: config.registration?.clientName ?? "mcplive client",
    application_type: config.registration?.applicationType ?? applicationType(config.redirectUri),
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    ...config.registration?.metadata,
  };
  if (config.registration?.clientUri) metadata.client_uri = config.registration.clientUri;
  if (config.registration?.logoUri) metadata.logo_uri = config.registration.logoUri;
  try {
    const res = await oauth.dynamicClientRegistrationRequest(as, metadata, options({ ...ctx, step }));
    return await processRegistrationResponse(as, res, ctx);
  } catch (err) {
    throw wrap(err, "registration_failed", step, ctx.server, `registration at ${as.registration_endpoint} failed`);
  }
}

/**
 * processRegistrationResponse checks res, the registration endpoint's
 * answer (RFC 7591), and returns the client record of the registered
 * client; it throws an OAuthError for a refusal or an answer without a
 * client_id. Read by hand, not with processDynamicClientRegistrationResponse:
 * that one refuses an answer with a client_secret but no
 * client_secret_expires_at, which real servers (and the conformance
 * suite's) send.
 * @returns {Promise<{ client_id: string, client_secret?: string, token_endpoint_auth_method: string, how: "registered" }>}
 */
export async function processRegistrationResponse(as, res, ctx) {
  const step = "client registration";
  const body = await readJSON(res, { ...ctx, step }, as.registration_endpoint);
  if (res.status !== 201 && res.status !== 200) {
    const e = typeof body.error === "string" ? body.error : `HTTP ${res.status}`;
    throw new OAuthError("registration_failed", `${ctx.server}: registration at ${as.registration_endpoint} refused: ${e}${typeof body.error_description === "string" ? ` (${body.error_description.slice(0, 300)})` : ""}`, { step, server: ctx.server, status: res.status, error: body.error, errorDescription: body.error_description });
  }
  if (typeof body.client_id !== "string" || !body.client_id) throw new OAuthError("bad_response", `${ctx.server}: registration at ${as.registration_endpoint} answered without a client_id`, { step, server: ctx.server });
  const registered = body;
  return {
    client_id: registered.client_id,
    ...(typeof registered.client_secret === "string" ? { client_secret: registered.client_secret } : {}),
    token_endpoint_auth_method: typeof registered.token_endpoint_auth_method === "string" ? registered.token_endpoint_auth_method : typeof registered.client_secret === "string" ? pickSecretMethod(as) : "none",
    how: "registered",
  };
}

/**
 * secretBasic is client_secret_basic with the id and secret
 * form-urlencoded as URLSearchParams does (RFC 6749 section 2.3.1): an id
 * like "my-client" travels as it is. oauth4webapi's ClientSecretBasic also
 * escapes "-", ".", "_" and "*", which servers that do not decode (the
 * conformance suite's among them) refuse.
 */
function secretBasic(secret) {
  return (_as, client, _body, headers) => {
    const enc = (v) => new URLSearchParams({ v }).toString().slice(2);
    const raw = `${enc(client.client_id)}:${enc(secret)}`;
    headers.set("authorization", `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(raw)))}`);
  };
}

/** clientAuth is oauth4webapi's client authentication for a client record. */
function clientAuth(client) {
  switch (client.token_endpoint_auth_method) {
    case "client_secret_post":
      return oauth.ClientSecretPost(client.client_secret);
    case "client_secret_basic":
      return secretBasic(client.client_secret);
    default:
      return oauth.None();
  }
}

/**
 * chooseScopes: the challenge's scope, else the resource's
 * scopes_supported, else none; offline_access added when the
 * authorization server lists it (a refresh token without a new login).
 */
export function chooseScopes({ challenge, prior, scopesSupported, asScopes, configured }) {
  const set = new Set();
  const add = (s) => s && s.split(/\s+/).filter(Boolean).forEach((x) => set.add(x));
  if (challenge) add(challenge);
  else if (scopesSupported?.length) add(scopesSupported.join(" "));
  add(configured); // the app's own, on top
  add(prior); // step-up: the union of what was asked before and now
  if (Array.isArray(asScopes) && asScopes.includes("offline_access")) set.add("offline_access");
  return [...set].join(" ");
}

/**
 * startAuthorization makes the authorization URL and the flow record that
 * its callback is checked against (kept by the caller, per state value).
 */
export async function startAuthorization({ as, client, redirectUri, resource, scope, serverUrl }) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const u = new URL(as.authorization_endpoint);
  u.searchParams.set("response_type", "code");
  u.searchParams.set("client_id", client.client_id);
  u.searchParams.set("redirect_uri", redirectUri);
  u.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  u.searchParams.set("code_challenge_method", "S256");
  u.searchParams.set("state", state);
  u.searchParams.set("resource", resource);
  if (scope) u.searchParams.set("scope", scope);
  return {
    authorizationUrl: u.href,
    flow: { state, verifier, issuer: as.issuer, resource, redirectUri, scope, clientId: client.client_id, serverUrl, createdAt: Date.now() },
  };
}

/**
 * dpopHandle is oauth4webapi's DPoP handle for a key pair: it makes the
 * proofs (token requests, and each MCP request: proof()) and keeps the
 * nonces servers send.
 */
export function dpopHandle(keyPair) {
  return oauth.DPoP({ client_id: "mcplive" }, keyPair);
}

/** proof makes the DPoP proof of one request (its method and URL, the access token's hash). */
export async function proof(handle, method, url, accessToken) {
  const h = new Headers();
  await handle.addProof(new URL(url), h, method, accessToken);
  return h.get("dpop");
}

/** nonceRetry runs a token request, and once more when a DPoP server asks for its nonce (use_dpop_nonce). */
async function nonceRetry(ctx, fn) {
  try {
    return await fn();
  } catch (err) {
    if (ctx.dpop && oauth.isDPoPNonceError(err)) return fn();
    throw err;
  }
}

/**
 * A token's characters: RFC 6749 appendix A's VSCHAR (%x20-7E). A token
 * with others (a control character) cannot go in a header, and fetch
 * quotes a header value it refuses in its error ("Headers.append: \"Bearer
 * …\" is an invalid header value"), which would put the token in an error
 * of every request: such a token is refused here, and not shown.
 */
const VSCHAR = /^[\x20-\x7e]+$/;

/** tokenRecord keeps what the flow needs of a token response (ctx, step: the error of a token no header can carry). */
function tokenRecord(r, ctx, step, prior) {
  for (const k of ["access_token", "refresh_token"]) {
    if (typeof r[k] === "string" && !VSCHAR.test(r[k])) {
      throw new OAuthError("bad_response", `${ctx.server}: the token endpoint's ${k} has characters outside RFC 6749's VSCHAR (a control character or non-ASCII, which no header can carry): refused (it is not shown)`, { step, server: ctx.server });
    }
  }
  return {
    access_token: r.access_token,
    token_type: r.token_type,
    refresh_token: r.refresh_token ?? prior?.refresh_token,
    scope: r.scope ?? prior?.scope,
    expires_at: typeof r.expires_in === "number" ? Date.now() + r.expires_in * 1000 : undefined,
  };
}

/**
 * finishAuthorization checks the callback (state, RFC 9207 iss, an error
 * answer) and exchanges its code, with the verifier and the resource.
 */
export async function finishAuthorization({ as, client, flow, callbackUrl }, ctx) {
  let params;
  try {
    params = oauth.validateAuthResponse(as, { client_id: client.client_id }, new URL(callbackUrl), flow.state);
  } catch (err) {
    const msg = String(err?.message ?? err);
    if (err instanceof oauth.AuthorizationResponseError) {
      // Checked after iss: its error is the authorization server's own.
      throw new OAuthError("authorization_denied", `${ctx.server}: the authorization server ${as.issuer} refused: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`, { step: "callback", server: ctx.server, error: err.error, errorDescription: err.error_description });
    }
    if (/iss/.test(msg)) throw new OAuthError("iss_mismatch", `${ctx.server}: the callback's iss does not identify ${as.issuer} (RFC 9207: ${msg}): the code is not sent anywhere`, { step: "callback", server: ctx.server, cause: safeCause(err) });
    throw new OAuthError("state_mismatch", `${ctx.server}: the callback does not belong to this flow (${msg})`, { step: "callback", server: ctx.server, cause: safeCause(err) });
  }
  const step = "token";
  try {
    return await nonceRetry(ctx, async () => {
      const res = await oauth.authorizationCodeGrantRequest(as, { client_id: client.client_id }, clientAuth(client), params, flow.redirectUri, flow.verifier, options({ ...ctx, step }, { additionalParameters: { resource: flow.resource } }));
      return tokenRecord(await oauth.processAuthorizationCodeResponse(as, { client_id: client.client_id }, res), ctx, step);
    });
  } catch (err) {
    throw wrap(err, "token_error", step, ctx.server, `the token endpoint ${as.token_endpoint} refused the code`);
  }
}

/** refresh trades the refresh token for new tokens (same resource). */
export async function refresh({ as, client, tokens, resource }, ctx) {
  const step = "refresh";
  try {
    return await nonceRetry(ctx, async () => {
      const res = await oauth.refreshTokenGrantRequest(as, { client_id: client.client_id }, clientAuth(client), tokens.refresh_token, options({ ...ctx, step }, { additionalParameters: { resource } }));
      return tokenRecord(await oauth.processRefreshTokenResponse(as, { client_id: client.client_id }, res), ctx, step, tokens);
    });
  } catch (err) {
    throw wrap(err, "token_error", step, ctx.server, `the token endpoint ${as.token_endpoint} refused the refresh token`);
  }
}

/**
 * clientCredentials asks the token endpoint for a token of the client
 * itself (OAuth 2.1 client credentials grant, SEP-1046), for the resource,
 * authenticated with a secret (client_secret_basic, or _post where the
 * server offers only that) or a private key (private_key_jwt, RFC 7523).
 */
export async function clientCredentials({ as, clientId, clientSecret, privateKey, resource, scope }, ctx) {
  const step = "token";
  const client = { client_id: clientId };
  let auth;
  if (privateKey) auth = oauth.PrivateKeyJwt(privateKey);
  else auth = clientAuth({ client_id: clientId, client_secret: clientSecret, token_endpoint_auth_method: pickSecretMethod(as) });
  const params = { resource };
  if (scope) params.scope = scope;
  try {
    return await nonceRetry(ctx, async () => {
      const res = await oauth.clientCredentialsGrantRequest(as, client, auth, params, options({ ...ctx, step }));
      return tokenRecord(await oauth.processClientCredentialsResponse(as, client, res), ctx, step);
    });
  } catch (err) {
    throw wrap(err, "token_error", step, ctx.server, `the token endpoint ${as.token_endpoint} refused the client's credentials`);
  }
}

/**
 * jwtBearer trades an assertion (a workload identity token, RFC 7523 JWT
 * bearer grant, SEP-1933) for a token for the resource; the client
 * authenticates with nothing else (its id).
 */
export async function jwtBearer({ as, clientId, assertion, resource, scope }, ctx) {
  const step = "token";
  const client = { client_id: clientId };
  const params = { assertion, resource, client_id: clientId };
  if (scope) params.scope = scope;
  try {
    return await nonceRetry(ctx, async () => {
      const res = await oauth.genericTokenEndpointRequest(as, client, oauth.None(), "urn:ietf:params:oauth:grant-type:jwt-bearer", params, options({ ...ctx, step }));
      return tokenRecord(await oauth.processGenericTokenEndpointResponse(as, client, res), ctx, step);
    });
  } catch (err) {
    throw wrap(err, "token_error", step, ctx.server, `the token endpoint ${as.token_endpoint} refused the assertion`);
  }
}

/** revoke revokes a token where the server offers RFC 7009 (best effort). */
export async function revoke({ as, client, token, hint }, ctx) {
  if (!as.revocation_endpoint || !token) return;
  const step = "revocation";
  const res = await oauth.revocationRequest(as, { client_id: client.client_id }, clientAuth(client), token, options({ ...ctx, step }, { additionalParameters: { token_type_hint: hint } }));
  await oauth.processRevocationResponse(res);
}

/**
 * safeCause keeps of an oauth4webapi error only its name, code and
 * message: its cause and response may hold the whole token response
 * (an unexpected token_type, a negative expires_in), which must never
 * reach an error an app logs.
 */
function safeCause(err) {
  if (!(err instanceof Error)) return new Error(String(err));
  const e = new Error(err.message);
  e.name = err.name;
  if (err.code !== undefined) e.code = err.code;
  return e;
}

/** wrap turns oauth4webapi's errors into OAuthErrors that name the step (and carry none of the answer's tokens). */
function wrap(err, code, step, server, what) {
  if (err instanceof OAuthError) return err;
  if (err instanceof oauth.ResponseBodyError) {
    // error_description is the server's text: shown as text, never as markup.
    return new OAuthError(code, `${server}: ${what}: ${err.error}${err.error_description ? ` (${String(err.error_description).slice(0, 300)})` : ""} (HTTP ${err.status})`, { step, server, error: err.error, errorDescription: err.error_description, status: err.status, cause: safeCause(err) });
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    return new OAuthError(code, `${server}: ${what}: HTTP ${err.status} ${err.cause?.[0]?.parameters?.error ?? ""}`.trim(), { step, server, status: err.status, error: err.cause?.[0]?.parameters?.error, cause: safeCause(err) });
  }
  if (err?.code === oauth.RESPONSE_IS_NOT_JSON || err?.code === oauth.PARSE_ERROR || err?.code === oauth.INVALID_RESPONSE || err?.code === oauth.RESPONSE_IS_NOT_CONFORM || err?.code === oauth.UNSUPPORTED_OPERATION) {
    return new OAuthError("bad_response", `${server}: ${what}: ${err.message}`, { step, server, cause: safeCause(err) });
  }
  return new OAuthError(code, `${server}: ${what}: ${err?.message ?? err}`, { step, server, cause: safeCause(err) });
}
