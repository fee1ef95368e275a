// Test helpers for the tests against a real authorization server:
// authserver/server.mjs (oidc-provider) in front of which the Go test
// server's /mcp is a protected resource (internal/protect, turned on with
// its control operation "oauth"), and a driver of its login and consent
// pages over fetch (for Node; the browser tests click them with playwright).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startServer } from "./helpers.js";

const dir = fileURLToPath(new URL("../../authserver/", import.meta.url));

/** startAuthServer runs authserver/server.mjs; it stops with stop() or when this process exits. */
export async function startAuthServer({ resources = [], origins = [], accessTtl = 3600 } = {}) {
  if (!existsSync(`${dir}node_modules/oidc-provider`)) throw new Error(`oidc-provider is not installed: run npm ci in ${dir} (../build.sh test does)`);
  const secret = randomBytes(16).toString("hex");
  const args = [`${dir}server.mjs`, "--access-ttl", String(accessTtl), "--introspection-secret", secret];
  for (const r of resources) args.push("--resource", r);
  for (const o of origins) args.push("--origin", o);
  const proc = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  const log = [];
  createInterface({ input: proc.stderr }).on("line", (l) => log.push(l));
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const line = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("the authorization server did not start: " + log.join("\n"))), 15000);
    createInterface({ input: proc.stdout }).once("line", (l) => (clearTimeout(t), resolve(l)));
    proc.once("error", reject);
    proc.once("exit", (code) => reject(new Error(`the authorization server exited (${code}): ${log.join("\n")}`)));
  });
  const info = JSON.parse(line);
  return {
    ...info,
    clientSecret: secret,
    log,
    /** stats: what the server counted (token requests by grant type, revocations, ...). */
    async stats() {
      return (await fetch(`${info.issuer}/_test/stats`)).json();
    },
    /** forgetClient deletes a registered client from the server's store (it "forgot" the registration). */
    async forgetClient(clientId) {
      const res = await fetch(`${info.issuer}/_test/forget-client?client_id=${encodeURIComponent(clientId)}`, { method: "POST" });
      if (res.status !== 204) throw new Error(`forget-client ${clientId}: ${res.status}`);
    },
    async stop() {
      proc.stdin.end();
      await exited;
    },
  };
}

/**
 * startProtected runs the Go test server (with args) and an authorization
 * server for its /mcp, and makes /mcp a protected resource of it.
 */
export async function startProtected({ args = [], accessTtl = 3600, origins = [] } = {}) {
  const server = await startServer(args);
  let as;
  try {
    as = await startAuthServer({ resources: [server.mcp], origins: [server.http, ...origins], accessTtl });
    await server.control("oauth", { resource: server.mcp, issuer: as.issuer, introspection: as.introspection_endpoint, clientId: as.clientId, clientSecret: as.clientSecret, origins: [server.http, ...origins] });
  } catch (err) {
    await as?.stop();
    await server.stop();
    throw err;
  }
  return {
    server,
    as,
    async stop() {
      await as.stop();
      await server.stop();
    },
  };
}

/**
 * consentWithFetch plays the user at the authorization server's pages: from
 * the authorization URL it follows the redirects (with a cookie jar, so a
 * second authorization finds the session), signs in and allows, up to the
 * redirect to the app's redirect URI, which it then requests (the loopback
 * server's callback). It returns what it did: { login, consent, callback }.
 * beforeCallback(callbackUrl, authorizationUrl), if given, runs between the
 * authorization server's redirect and the request of the callback.
 */
export function consentWithFetch({ username = "alice", password = "wonderland", allow = true, beforeCallback = null } = {}) {
  const jar = new Map();
  const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  };
  const did = { login: 0, consent: 0, callback: null };
  const drive = async (authorizationUrl) => {
    const issuer = new URL(authorizationUrl).origin;
    let url = authorizationUrl;
    let init = {};
    for (let hop = 0; hop < 20; hop++) {
      if (new URL(url).origin !== issuer) {
        did.callback = url;
        if (beforeCallback) await beforeCallback(url, authorizationUrl); // e.g. the server forgets the client before the code exchange
        const res = await fetch(url); // the app's redirect URI (the loopback server)
        await res.text();
        return did;
      }
      const res = await fetch(url, { ...init, redirect: "manual", headers: { ...init.headers, cookie: cookies() } });
      keep(res);
      init = {};
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get("location"), url).href;
        await res.body?.cancel();
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) throw new Error(`the authorization server answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
      const action = html.match(/<form method="post" action="([^"]+)"/)?.[1];
      if (!action) throw new Error(`no form at ${url}: ${html.slice(0, 300)}`);
      const form = new URLSearchParams();
      if (/name="password"/.test(html)) {
        did.login++;
        form.set("username", username);
        form.set("password", password);
        url = new URL(action, url).href;
      } else {
        did.consent++;
        url = new URL(allow ? action : action.replace(/confirm$/, "abort"), url).href;
      }
      init = { method: "POST", body: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
    }
    throw new Error("too many redirects at the authorization server");
  };
  drive.did = did;
  return drive;
}
