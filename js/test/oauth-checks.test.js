// The checks of the flow's steps (src/oauth/flow.js: processXResponse, the
// pair of each xRequest) on plain Response objects: no server, no fetch.
// The flow against real servers is in oauth*.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { processResourceMetadataResponse, processAuthServerMetadataResponse, processRegistrationResponse } from "../src/oauth/flow.js";
import { OAuthError } from "../src/oauth/index.js";

const server = "https://mcp.example.com/mcp";
const ctx = { server };
const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** rejectsWith asserts that p rejects with an OAuthError of code whose message matches re. */
async function rejectsWith(p, code, re) {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof OAuthError, `not an OAuthError: ${err}`);
    assert.equal(err.code, code, err.message);
    if (re) assert.match(err.message, re);
    return true;
  });
}

test("protected resource metadata: a good document, a failure to try the next URL, and what is refused", async () => {
  const url = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
  const prm = await processResourceMetadataResponse(server, url, json({ resource: server, authorization_servers: ["https://as.example.com"], scopes_supported: ["read", 7] }), ctx);
  assert.deepEqual(prm, { url, resource: server, authorizationServers: ["https://as.example.com"], scopesSupported: ["read"] });
  assert.equal(await processResourceMetadataResponse(server, url, new Response("not here", { status: 404 }), ctx), null);
  await rejectsWith(processResourceMetadataResponse(server, url, json({ resource: server, authorization_servers: [] }), ctx), "bad_response", /lacks resource or authorization_servers/);
  await rejectsWith(processResourceMetadataResponse(server, url, new Response("<html>", { status: 200 }), ctx), "bad_response", /did not answer JSON/);
  // Another resource, and a parent path without the app's opt-in.
  await rejectsWith(processResourceMetadataResponse(server, url, json({ resource: "https://other.example.com/mcp", authorization_servers: ["https://as.example.com"] }), ctx), "resource_mismatch");
  const parent = json({ resource: "https://mcp.example.com/", authorization_servers: ["https://as.example.com"] });
  await rejectsWith(processResourceMetadataResponse(server, url, parent, ctx), "resource_mismatch");
  const allowed = await processResourceMetadataResponse(server, url, json({ resource: "https://mcp.example.com/", authorization_servers: ["https://as.example.com"] }), { ...ctx, allowParentResource: true });
  assert.equal(allowed.resource, "https://mcp.example.com/");
});

test("authorization server metadata: the exact issuer, endpoints the flow may reach, PKCE S256", async () => {
  const issuer = "https://as.example.com";
  const url = `${issuer}/.well-known/oauth-authorization-server`;
  const good = { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, code_challenge_methods_supported: ["S256"] };
  assert.deepEqual(await processAuthServerMetadataResponse(issuer, url, json(good), ctx), good);
  assert.equal(await processAuthServerMetadataResponse(issuer, url, new Response(null, { status: 404 }), ctx), null);
  await rejectsWith(processAuthServerMetadataResponse(issuer, url, json({ ...good, issuer: `${issuer}/` }), ctx), "issuer_mismatch");
  await rejectsWith(processAuthServerMetadataResponse(issuer, url, json({ ...good, token_endpoint: "http://as.example.com/token" }), ctx), "insecure_url");
  await rejectsWith(processAuthServerMetadataResponse(issuer, url, json({ ...good, token_endpoint: "https://192.168.1.1/token" }), ctx), "insecure_url", /private network/);
  await rejectsWith(processAuthServerMetadataResponse(issuer, url, json({ ...good, code_challenge_methods_supported: ["plain"] }), ctx), "no_s256");
  await rejectsWith(processAuthServerMetadataResponse(issuer, url, json({ ...good, authorization_endpoint: undefined }), ctx), "bad_response", /no authorization_endpoint/);
  // The client credentials grant needs a token endpoint only.
  const machine = { issuer, token_endpoint: `${issuer}/token` };
  assert.deepEqual(await processAuthServerMetadataResponse(issuer, url, json(machine), ctx, { grant: "client_credentials" }), machine);
});

test("client registration: the record of a registered client, a refusal, an answer without a client_id", async () => {
  const as = { issuer: "https://as.example.com", registration_endpoint: "https://as.example.com/register", token_endpoint_auth_methods_supported: ["client_secret_post"] };
  assert.deepEqual(await processRegistrationResponse(as, json({ client_id: "c1" }, 201), ctx), { client_id: "c1", token_endpoint_auth_method: "none", how: "registered" });
  // A secret without client_secret_expires_at (which oauth4webapi's own check refuses) is taken; its method is the server's.
  assert.deepEqual(await processRegistrationResponse(as, json({ client_id: "c2", client_secret: "s" }), ctx), { client_id: "c2", client_secret: "s", token_endpoint_auth_method: "client_secret_post", how: "registered" });
  const refused = processRegistrationResponse(as, json({ error: "invalid_redirect_uri", error_description: "no <b>such</b> URI" }, 400), ctx);
  await rejectsWith(refused, "registration_failed", /refused: invalid_redirect_uri \(no <b>such<\/b> URI\)/);
  await rejectsWith(processRegistrationResponse(as, json({ client_name: "x" }, 201), ctx), "bad_response", /without a client_id/);
});
