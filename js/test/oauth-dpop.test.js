// DPoP (RFC 9449) in mcplive/oauth against a scripted authorization
// server: oauth({ dpop: true }) sends a proof on the token and refresh
// requests, retries once with the server's nonce (use_dpop_nonce), and
// gives the Go core's token hook, for each MCP request, the token with a
// proof of that request's method and URL (and the resource server's nonce
// after its use_dpop_nonce). The proofs are verified here with node:crypto;
// the conformance suite's auth/dpop and auth/dpop-nonce run the same
// through the real wasm (conformance/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPublicKey, createVerify } from "node:crypto";
import { oauth, scanSecrets } from "./secrets.js";
import { dpopKeyPair } from "../src/oauth/storage.js";
import { BIND, SERVER, ISSUER, REDIRECT, json, world, refusal } from "./oauth-world.js";

// Every test: no secret its servers issued in an error, a state or a log line (secrets.js).
scanSecrets();

/** verify checks a DPoP proof's signature with its own jwk and returns its header and claims. */
function verify(proof) {
  const [h, p, sig] = proof.split(".");
  const header = JSON.parse(Buffer.from(h, "base64url"));
  const claims = JSON.parse(Buffer.from(p, "base64url"));
  assert.equal(header.typ, "dpop+jwt");
  assert.equal(header.alg, "ES256");
  assert.equal(header.jwk.d, undefined, "no private key in the proof");
  const key = createPublicKey({ key: header.jwk, format: "jwk" });
  assert.ok(createVerify("SHA256").update(`${h}.${p}`).verify({ key, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url")), "the proof's signature verifies");
  return { header, claims };
}

test("dpop: token and refresh requests carry a proof; use_dpop_nonce is retried once with the nonce; every MCP request gets its own proof", async () => {
  const proofs = [];
  let tokenCalls = 0;
  const w = world({
    expiresIn: 1,
    token: (body, _init) => null,
    route: (url, init) => {
      if (url !== `${ISSUER}/token`) return null;
      tokenCalls++;
      const dp = init.headers?.get?.("dpop") ?? new Headers(init.headers).get("dpop");
      assert.ok(dp, "a DPoP proof on every token request");
      const { claims } = verify(dp);
      proofs.push(claims);
      assert.equal(claims.htm, "POST");
      assert.equal(claims.htu, `${ISSUER}/token`);
      if (!claims.nonce) return json({ error: "use_dpop_nonce" }, { status: 400, headers: { "dpop-nonce": "as-nonce-1" } });
      assert.equal(claims.nonce, "as-nonce-1");
      const body = new URLSearchParams(init.body);
      if (body.get("grant_type") === "refresh_token") return json({ access_token: "at-dpop-2", token_type: "DPoP", expires_in: 3600, refresh_token: "rt-2" });
      return json({ access_token: "at-dpop-1", token_type: "DPoP", expires_in: 1, refresh_token: "rt-1" });
    },
  });
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, dpop: true });
  const b = auth[BIND](SERVER);
  const answer = await b.token({ error: refusal() });
  assert.deepEqual(answer, { token: "at-dpop-1", dpop: "" }, "after a refusal: the token, no proof (the retry asks for its own)");
  assert.equal(tokenCalls, 2, "the first token request, refused for its nonce, and once more with it");
  // Each MCP request: a fresh proof of its method and URL, with the token's hash.
  const a1 = await b.token({ method: "POST", requestUrl: SERVER });
  const a2 = await b.token({ method: "GET", requestUrl: SERVER });
  assert.equal(a1.token, "at-dpop-1");
  const c1 = verify(a1.dpop).claims;
  const c2 = verify(a2.dpop).claims;
  assert.equal(c1.htm, "POST");
  assert.equal(c2.htm, "GET");
  assert.equal(c1.htu, SERVER);
  assert.equal(c1.ath, createHash("sha256").update("at-dpop-1").digest("base64url"));
  assert.notEqual(c1.jti, c2.jti, "a fresh proof per request");
  // The resource server's nonce: kept for the next proofs, the same token retried.
  assert.deepEqual(await b.token({ error: { status: 401, error: "use_dpop_nonce", dpopNonce: "rs-nonce-1" } }), { token: "at-dpop-1", dpop: "" });
  assert.equal(verify((await b.token({ method: "POST", requestUrl: SERVER })).dpop).claims.nonce, "rs-nonce-1");
  // Refresh: with a proof too.
  await new Promise((r) => setTimeout(r, 1100));
  const r = await b.token({ method: "POST", requestUrl: SERVER });
  assert.equal(r.token, "at-dpop-2");
  assert.equal(verify(r.dpop).claims.ath, createHash("sha256").update("at-dpop-2").digest("base64url"));
  assert.ok(proofs.length >= 3);
  // One key for all: the same jwk on every proof.
  const jwks = new Set([a1, a2, r].map((x) => JSON.stringify(verify(x.dpop).header.jwk)));
  assert.equal(jwks.size, 1);
});

test("dpop: a server that issues Bearer tokens gets bearer requests; the key's private half is not extractable", async () => {
  const w = world();
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, dpop: true });
  const b = auth[BIND](SERVER);
  assert.equal(await b.token({ error: refusal() }), "at-1");
  assert.equal(await b.token({ method: "POST", requestUrl: SERVER }), "at-1");
  const kp = await dpopKeyPair("test");
  assert.equal(kp.privateKey.extractable, false);
  await assert.rejects(globalThis.crypto.subtle.exportKey("jwk", kp.privateKey));
  assert.throws(() => oauth({ redirectUri: REDIRECT, dpop: "yes" }), /dpop must be true or false/);
});

test("dpop: a token endpoint that asks for a new nonce each time fails after the one retry, with its error (the scan checks that it shows no proof or token)", async () => {
  let n = 0;
  const w = world({
    route: (url) => (url === `${ISSUER}/token` ? json({ error: "use_dpop_nonce", error_description: "again" }, { status: 400, headers: { "dpop-nonce": `as-nonce-${++n}` } }) : null),
  });
  const auth = oauth({ redirectUri: REDIRECT, fetch: w.fetch, authorize: w.authorize, dpop: true });
  await assert.rejects(auth[BIND](SERVER).token({ error: refusal() }), (err) => {
    assert.equal(err.code, "token_error");
    assert.equal(err.error, "use_dpop_nonce");
    return true;
  });
  assert.equal(n, 2, "the first request and one retry with the nonce");
  assert.equal(auth.get().status, "error");
});
