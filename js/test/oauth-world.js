// The scripted world of the mcplive/oauth tests (oauth.test.js,
// oauth-security.test.js, oauth-lifecycle.test.js): a fetch that plays the
// protected resource's metadata, the authorization server and its token
// endpoint, and records every request.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { OAuthError } from "../src/oauth/index.js";
import { oauth } from "./secrets.js";

export const BIND = Symbol.for("mcplive.oauth.bind");
export const SERVER = "https://mcp.example.com/mcp";
export const ISSUER = "https://as.example.com";
export const REDIRECT = "https://app.example.com/callback";

export const json = (body, init = {}) => new Response(JSON.stringify(body), { status: init.status ?? 200, headers: { "content-type": "application/json", ...init.headers } });
export const s256 = (v) => createHash("sha256").update(v).digest("base64url");

/**
 * world scripts the servers: routes maps "METHOD url" (or a function of
 * the request) to a Response; every request is recorded in `requests`.
 */
export function world(over = {}) {
  const requests = [];
  const issued = { code: new Map(), refresh: 0 };
  const as = {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    registration_endpoint: `${ISSUER}/register`,
    revocation_endpoint: `${ISSUER}/revoke`,
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    token_endpoint_auth_methods_supported: ["none"],
    ...over.as,
  };
  const prm = { resource: SERVER, authorization_servers: [ISSUER], scopes_supported: ["tools:read"], ...over.prm };
  const token = (body) => {
    const scripted = over.token?.(body);
    if (scripted) return scripted;
    if (body.get("grant_type") === "refresh_token") {
      issued.refresh++;
      return json({ access_token: `at-r${issued.refresh}`, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${issued.refresh + 1}` });
    }
    const c = issued.code.get(body.get("code"));
    if (!c || s256(body.get("code_verifier")) !== c.challenge) return json({ error: "invalid_grant" }, { status: 400 });
    return json({ access_token: "at-1", token_type: "Bearer", expires_in: over.expiresIn ?? 3600, refresh_token: "rt-1", ...(c.scope ? { scope: c.scope } : {}) });
  };
  const fetch = async (url, init = {}) => {
    const body = init.body instanceof URLSearchParams ? init.body : typeof init.body === "string" && init.headers?.["content-type"]?.includes("json") ? init.body : new URLSearchParams(init.body ?? "");
    requests.push({ url, method: init.method ?? "GET", headers: { ...init.headers }, body: String(init.body ?? ""), redirect: init.redirect, credentials: init.credentials });
    if (over.route) {
      const r = await over.route(url, init);
      if (r) return r;
    }
    if (url === `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`) return json(prm);
    if (url === `${ISSUER}/.well-known/oauth-authorization-server`) return json(as);
    if (url === `${ISSUER}/register`) return json({ client_id: "client-1", redirect_uris: [REDIRECT] }, { status: 201 });
    if (url === `${ISSUER}/token`) return token(body);
    if (url === `${ISSUER}/revoke`) return new Response(null, { status: 200 });
    return new Response("not found", { status: 404 });
  };
  /** authorize approves at once, as the authorization endpoint would after consent. */
  const authorize = async (authorizationUrl) => {
    const u = new URL(authorizationUrl);
    const code = `code-${issued.code.size + 1}`;
    issued.code.set(code, { challenge: u.searchParams.get("code_challenge"), scope: u.searchParams.get("scope") });
    world.lastAuthorization = u;
    const cb = new URL(u.searchParams.get("redirect_uri"));
    cb.searchParams.set("code", code);
    cb.searchParams.set("state", u.searchParams.get("state"));
    if (over.iss !== null) cb.searchParams.set("iss", over.iss ?? ISSUER);
    return cb.href;
  };
  return { fetch, requests, authorize, issued };
}

export function setup(over = {}, options = {}) {
  const w = world(over);
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: over.authorize ?? w.authorize, ...options });
  const b = auth[BIND](SERVER);
  return { ...w, auth, b };
}

export const refusal = (over = {}) => ({ status: 401, resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", ...over });

export async function rejectsWith(p, code, re) {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof OAuthError, `an OAuthError, got ${err?.name}: ${err?.message}`);
    assert.equal(err.code, code, err.message);
    if (re) assert.match(err.message, re);
    return true;
  });
}

