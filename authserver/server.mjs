#!/usr/bin/env node
// A real OAuth 2.1 authorization server for mcplive's authorization tests
// and the demo's protected mode: oidc-provider (panva/node-oidc-provider)
// configured as an MCP authorization server, with its own login and
// consent pages. NOT for production: the accounts and their passwords are
// public (alice / wonderland, bob / builder) and the keys are made anew at
// every start.
//
//   node authserver/server.mjs [--port 0] [--host 127.0.0.1]
//        [--resource URL]...            the MCP servers it issues tokens for (RFC 8707
//                                       resource indicators; the token's audience)
//        [--origin ORIGIN]...           the web origins its CORS answers (the app's page)
//        [--access-ttl SECONDS]         access token lifetime (default 3600)
//        [--introspection-secret S]     the secret of the client "mcp-resource-server",
//                                       which the MCP servers introspect tokens with
//
// Once it listens it prints one JSON line on stdout:
//   {"issuer":"http://127.0.0.1:PORT","introspection_endpoint":…,"clientId":"mcp-resource-server"}
// and exits when its standard input closes (the test runner went away) or on SIGINT/SIGTERM.
//
// What it does (all documented oidc-provider configuration): authorization
// code with PKCE S256 required; resource indicators (opaque access tokens
// bound to one MCP server, scopes tools:read and tools:admin); Dynamic
// Client Registration (open, no initial access token); refresh tokens,
// rotated at every use (a reused one revokes the grant); RFC 9207 `iss` in
// the authorization response; revocation (RFC 7009) and introspection
// (RFC 7662); CORS for the given origins (oidc-provider's clientBasedCORS,
// and here for the registration endpoint, which oidc-provider leaves
// without CORS).
//
// For tests: GET /_test/stats answers what it counted so far:
//   { token: { authorization_code, refresh_token }, authorization, login, consent,
//     registration, revocation, introspection, refreshErrors }
// and POST /_test/forget-client?client_id=ID deletes a registered client
// from the provider's store (the authorization server "forgot" it: the
// lifecycle tests of a stale registration).
import { createServer } from "node:http";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import Provider, { errors } from "oidc-provider";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    resource: { type: "string", multiple: true, default: [] },
    origin: { type: "string", multiple: true, default: [] },
    "access-ttl": { type: "string", default: "3600" },
    "introspection-secret": { type: "string", default: "" },
  },
});

export const SCOPES = ["tools:read", "tools:admin"];
const USERS = { alice: "wonderland", bob: "builder" };
const resources = new Set(args.resource);
const origins = new Set(args.origin);
const accessTTL = Number(args["access-ttl"]);
if (!Number.isInteger(accessTTL) || accessTTL < 1) throw new Error("--access-ttl must be a whole number of seconds");
const introspectionSecret = args["introspection-secret"] || randomBytes(24).toString("base64url");

const stats = { token: { authorization_code: 0, refresh_token: 0 }, authorization: 0, login: 0, consent: 0, registration: 0, revocation: 0, introspection: 0, refreshErrors: 0 };

const server = createServer();
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(Number(args.port), args.host, resolve);
});
const issuer = `http://${args.host}:${server.address().port}`;

const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

const provider = new Provider(issuer, {
  clients: [
    // The MCP servers' own client: it may only introspect.
    { client_id: "mcp-resource-server", client_secret: introspectionSecret, redirect_uris: [], response_types: [], grant_types: [] },
  ],
  jwks: { keys: [{ ...key, kid: "k1", use: "sig", alg: "RS256" }] },
  cookies: { keys: [randomBytes(32).toString("base64url")] },
  findAccount: async (_ctx, id) => (Object.hasOwn(USERS, id) ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    revocation: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resourceIndicator) => {
        if (!resources.has(resourceIndicator)) throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}`);
        return { scope: SCOPES.join(" "), audience: resourceIndicator, accessTokenTTL: accessTTL, accessTokenFormat: "opaque" };
      },
    },
  },
  // A refresh token for every client that may use the grant (MCP clients do
  // not send prompt=consent, without which offline_access is dropped).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  rotateRefreshToken: true,
  ttl: { AccessToken: accessTTL },
  clientBasedCORS: (_ctx, origin) => origins.has(origin),
});

provider.on("authorization.accepted", () => stats.authorization++);
provider.on("registration_create.success", () => stats.registration++);
provider.on("grant.error", (ctx) => ctx.oidc?.params?.grant_type === "refresh_token" && stats.refreshErrors++);
// Every token request, by grant type, whether it succeeds or not.
provider.use(async (ctx, next) => {
  await next();
  const route = ctx.oidc?.route;
  if (route === "token") {
    const gt = ctx.oidc.params?.grant_type;
    if (gt in stats.token) stats.token[gt]++;
  }
  if ((route === "revocation" || route === "introspection") && ctx.status === 200) stats[route]++;
});

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; background: #f4f5f7; color: #1d2330; margin: 0; display: grid; place-items: center; min-height: 100vh; }
  main { background: #fff; border: 1px solid #d9dde5; border-radius: 10px; padding: 28px 32px; width: min(340px, 86vw); box-shadow: 0 2px 8px rgba(0,0,0,.06); }
  h1 { font-size: 20px; margin: 0 0 6px; } p { margin: 6px 0 14px; color: #4a5263; }
  label { display: block; font-size: 13px; margin: 10px 0 4px; color: #4a5263; }
  input { width: 100%; box-sizing: border-box; font: inherit; padding: 8px 10px; border: 1px solid #c4cad6; border-radius: 6px; }
  ul { padding-left: 20px; margin: 8px 0 16px; } code { overflow-wrap: anywhere; background: #eef0f4; padding: 1px 5px; border-radius: 4px; }
  .row { display: flex; gap: 8px; margin-top: 16px; }
  button { font: inherit; padding: 8px 16px; border-radius: 6px; border: 1px solid #2f5bd3; background: #2f5bd3; color: #fff; cursor: pointer; flex: 1; }
  button.secondary { background: #fff; color: #2f5bd3; }
  .hint { font-size: 12px; color: #6b7385; margin-top: 14px; } .err { color: #b42318; }
</style></head><body><main>${body}</main></body></html>`;

function send(res, status, html) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
}

async function form(req) {
  let body = "";
  for await (const c of req) {
    body += c;
    if (body.length > 10_000) throw new Error("form too large");
  }
  return new URLSearchParams(body);
}

const SCOPE_TEXT = { "tools:read": "see and call this server's tools", "tools:admin": "call its administrative tools" };

/** interaction serves the login and consent pages (provider.interactionDetails / interactionFinished). */
async function interaction(req, res, url) {
  const [, , uid, action] = url.pathname.split("/");
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) return send(res, 400, page("Sign-in", "<h1>Wrong sign-in</h1>"));
  const client = await provider.Client.find(details.params.client_id);
  const clientName = client?.clientName || details.params.client_id;
  const { prompt } = details;
  if (req.method === "GET") {
    if (prompt.name === "login") return send(res, 200, loginPage(uid, clientName, ""));
    const asked = Object.values(prompt.details.missingResourceScopes ?? {}).flat();
    const items = asked.length ? asked.map((s) => `<li><code>${esc(s)}</code> ${esc(SCOPE_TEXT[s] ?? "")}</li>`).join("") : "<li>access to the MCP server</li>";
    return send(
      res,
      200,
      page(
        "Allow access?",
        `<h1>Allow access?</h1><p><b>${esc(clientName)}</b> asks to act as <b>${esc(details.session?.accountId ?? "you")}</b> at <code>${esc(details.params.resource ?? "")}</code>:</p><ul>${items}</ul>
        <form method="post" action="/interaction/${esc(uid)}/confirm"><div class="row"><button type="submit" formaction="/interaction/${esc(uid)}/abort" class="secondary">Deny</button><button type="submit" id="allow" autofocus>Allow</button></div></form>`,
      ),
    );
  }
  if (action === "login") {
    const f = await form(req);
    const user = f.get("username") ?? "";
    if (!Object.hasOwn(USERS, user) || USERS[user] !== f.get("password")) return send(res, 200, loginPage(uid, clientName, "Unknown user or wrong password."));
    stats.login++;
    return provider.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false });
  }
  if (action === "confirm") {
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(" "));
    for (const [indicator, scope] of Object.entries(prompt.details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scope.join(" "));
    stats.consent++;
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
  if (action === "abort") {
    return provider.interactionFinished(req, res, { error: "access_denied", error_description: "The user denied the access." }, { mergeWithLastSubmission: false });
  }
  send(res, 404, page("Not found", "<h1>Not found</h1>"));
}

function loginPage(uid, clientName, error) {
  return page(
    "Sign in",
    `<h1>Sign in</h1><p>to continue to <b>${esc(clientName)}</b></p>${error ? `<p class="err">${esc(error)}</p>` : ""}
    <form method="post" action="/interaction/${esc(uid)}/login" autocomplete="off">
      <label for="username">Username</label><input id="username" name="username" required autofocus>
      <label for="password">Password</label><input id="password" name="password" type="password" required>
      <div class="row"><button type="submit" id="signin">Sign in</button></div>
    </form><p class="hint">Demo accounts: <code>alice</code> / <code>wonderland</code>, <code>bob</code> / <code>builder</code></p>`,
  );
}

const callback = provider.callback();
server.on("request", async (req, res) => {
  const url = new URL(req.url ?? "/", issuer);
  try {
    if (url.pathname.startsWith("/interaction/")) return await interaction(req, res, url);
    if (url.pathname === "/_test/stats") {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*", "cache-control": "no-store" }).end(JSON.stringify(stats));
      return;
    }
    if (url.pathname === "/_test/forget-client" && req.method === "POST") {
      const id = url.searchParams.get("client_id") ?? "";
      const known = id !== "mcp-resource-server" && (await provider.Client.adapter.find(id)) !== undefined;
      if (known) await provider.Client.adapter.destroy(id);
      res.writeHead(known ? 204 : 404, { "access-control-allow-origin": "*", "cache-control": "no-store" }).end();
      return;
    }
    if (url.pathname === "/reg") {
      // Registration from a page: oidc-provider sends no CORS here.
      const origin = req.headers.origin;
      if (origin && origins.has(origin)) {
        res.setHeader("access-control-allow-origin", origin);
        res.setHeader("vary", "Origin");
        if (req.method === "OPTIONS") {
          res.writeHead(204, { "access-control-allow-methods": "POST", "access-control-allow-headers": "content-type, authorization", "access-control-max-age": "600" }).end();
          return;
        }
      }
    }
    callback(req, res);
  } catch (err) {
    if (!res.headersSent) send(res, 400, page("Sign-in failed", `<h1>Sign-in failed</h1><p class="err">${esc(err.message)}</p>`));
    else res.end();
  }
});

console.log(JSON.stringify({ issuer, introspection_endpoint: `${issuer}/token/introspection`, clientId: "mcp-resource-server", clientSecret: args["introspection-secret"] ? undefined : introspectionSecret }));

const stop = () => {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
};
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
