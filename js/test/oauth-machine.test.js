// clientCredentials() (mcplive/oauth) against a scripted authorization
// server: the client credentials grant with client_secret_basic and with
// private_key_jwt (the assertion verified with node:crypto), for the
// resource; a refused token is asked for anew, not without end. The
// conformance suite's auth/client-credentials-* run it against the suite's
// servers (conformance/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, createVerify } from "node:crypto";
import { OAuthError } from "../src/oauth/index.js";
import { clientCredentials, scanSecrets } from "./secrets.js";
import { BIND, SERVER, ISSUER, json, world, refusal, rejectsWith } from "./oauth-world.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

const cc = (over = {}, options = {}) => {
  const w = world({ as: { grant_types_supported: ["client_credentials"], ...over.as }, ...over });
  const auth = clientCredentials({ clientId: "agent-1", fetch: w.fetch, ...options });
  return { ...w, auth, b: auth[BIND](SERVER) };
};

test("client_secret_basic: grant_type client_credentials, the resource, the scopes; the token goes on every request", async () => {
  const s = cc({ token: (body) => (body.get("grant_type") === "client_credentials" ? json({ access_token: "at-cc", token_type: "Bearer", expires_in: 3600 }) : null) }, { clientSecret: "s3cret" });
  assert.equal(await s.b.token({}), "", "nothing before the server asks");
  assert.equal(await s.b.token({ error: refusal({ scope: "tools:read" }) }), "at-cc");
  assert.equal(await s.b.token({}), "at-cc");
  const req = s.requests.find((r) => r.url === `${ISSUER}/token`);
  const body = new URLSearchParams(req.body);
  assert.equal(body.get("grant_type"), "client_credentials");
  assert.equal(body.get("resource"), SERVER);
  assert.equal(body.get("scope"), "tools:read");
  assert.equal(req.headers.authorization, `Basic ${Buffer.from("agent-1:s3cret").toString("base64")}`);
  assert.ok(!s.requests.some((r) => r.url.endsWith("/register") || r.url.includes("/authorize")), "no registration, no user");
  assert.equal(s.auth.get().status, "authorized");
  assert.equal(s.auth.get().issuer, ISSUER);
});

test("private_key_jwt: a PEM key; the assertion is signed, for the issuer, by and about the client id", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" });
  const s = cc({ token: (body) => (body.get("grant_type") === "client_credentials" ? json({ access_token: "at-jwt", token_type: "Bearer" }) : null) }, { privateKey: pem, algorithm: "ES256" });
  assert.equal(await s.b.token({ error: refusal() }), "at-jwt");
  const body = new URLSearchParams(s.requests.find((r) => r.url === `${ISSUER}/token`).body);
  assert.equal(body.get("client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  const [h, p, sig] = body.get("client_assertion").split(".");
  assert.equal(JSON.parse(Buffer.from(h, "base64url")).alg, "ES256");
  const claims = JSON.parse(Buffer.from(p, "base64url"));
  assert.equal(claims.iss, "agent-1");
  assert.equal(claims.sub, "agent-1");
  assert.equal(claims.aud, ISSUER);
  const ok = createVerify("SHA256").update(`${h}.${p}`).verify({ key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url"));
  assert.ok(ok, "the signature verifies with the public key");
  assert.ok(!JSON.stringify(s.requests).includes("PRIVATE KEY"), "the key never leaves");
});

test("clientCredentials: options are checked; a refused client is an OAuthError; refusals are capped", async () => {
  assert.throws(() => clientCredentials({}), /clientId/);
  assert.throws(() => clientCredentials({ clientId: "a" }), /one of clientSecret .*, privateKey .* or assertion/);
  assert.throws(() => clientCredentials({ clientId: "a", clientSecret: "s", privateKey: "k" }), /one of/);
  assert.throws(() => clientCredentials({ clientId: "a", clientSecret: "s", algorithm: "HS256" }), /algorithm/);
  const refused = cc({ token: () => json({ error: "invalid_client" }, { status: 401 }) }, { clientSecret: "wrong" });
  await rejectsWith(refused.b.token({ error: refusal() }), "token_error", /invalid_client/);
  assert.equal(refused.auth.get().status, "error");
  // A server that refuses every token it gets: asked anew at most 5 times a minute.
  const s = cc({ token: () => json({ access_token: "at-x", token_type: "Bearer" }) }, { clientSecret: "s" });
  let err = null;
  for (let i = 0; i < 10 && !err; i++) await s.b.token({ error: refusal() }).catch((e) => (err = e));
  assert.ok(err instanceof OAuthError);
  assert.equal(err.code, "too_many_authorizations");
  assert.equal(s.requests.filter((r) => r.url === `${ISSUER}/token`).length, 5);
});

test("assertion: the JWT bearer grant (workload identity, RFC 7523) with the workload's JWT; a refusal is not retried by itself, nor with another grant", async () => {
  const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2ln";
  let answer = () => json({ access_token: "at-wif", token_type: "Bearer" });
  const w = world({ as: { grant_types_supported: ["urn:ietf:params:oauth:grant-type:jwt-bearer"] }, token: () => answer() });
  let calls = 0;
  const auth = clientCredentials({ clientId: "workload-1", fetch: w.fetch, assertion: async () => (calls++, jwt) });
  const b = auth[BIND](SERVER);
  assert.equal(await b.token({ error: refusal() }), "at-wif");
  const body = new URLSearchParams(w.requests.find((r) => r.url === `${ISSUER}/token`).body);
  assert.equal(body.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
  assert.equal(body.get("assertion"), jwt);
  assert.equal(body.get("client_id"), "workload-1");
  assert.equal(body.get("resource"), SERVER);
  assert.equal(calls, 1, "the assertion is asked for when a token is");
  // Refused: surfaced, and not asked again until authorize().
  answer = () => json({ error: "invalid_grant", error_description: "expired" }, { status: 400 });
  const n = w.requests.length;
  await rejectsWith(b.token({ error: refusal({ error: "invalid_token" }) }), "token_error", /invalid_grant/);
  await rejectsWith(b.token({ error: refusal({ error: "invalid_token" }) }), "token_error", /invalid_grant/);
  assert.equal(w.requests.filter((r, i) => i >= n && r.url === `${ISSUER}/token`).length, 1, "one token request for two refusals");
  answer = () => json({ access_token: "at-wif-2", token_type: "Bearer" });
  await auth.authorize();
  assert.equal(await b.token({}), "at-wif-2");
  assert.throws(() => clientCredentials({ clientId: "a", assertion: 5 }), /assertion must be a JWT/);
  assert.throws(() => clientCredentials({ clientId: "a", assertion: "x", clientSecret: "s" }), /one of/);
});
