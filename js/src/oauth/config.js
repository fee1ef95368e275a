// oauth()'s configuration (auth.js is the face): the options it takes and
// how each is checked, the limits of the flow, and what the runtime offers
// (a window for the user's step, this tab's sessionStorage for the flow
// records).

import { inBrowser, isLoopback } from "./http.js";
import { memoryStorage, sessionStorageAdapter, checkStorage } from "./storage.js";

export const OPTIONS = ["redirectUri", "clientMetadataUrl", "clients", "registration", "scopes", "storage", "authorize", "mode", "timeoutMs", "fetch", "allowPrivateNetwork", "allowParentResource", "dpop"];
export const MAX_STEP_UPS = 3;
/**
 * The authorizations a server's refusals may start by themselves (not the
 * user's authorize()) within AUTH_WINDOW_MS: each may open a browser.
 */
export const MAX_AUTO_AUTHORIZATIONS = 5;
export const AUTH_WINDOW_MS = 10 * 60_000;
/** The most scopes a step-up asks for (the union of every challenge's). */
export const MAX_SCOPES = 16;
/** A prepared authorization URL older than this is made anew (its state and verifier too). */
export const PREPARED_TTL_MS = 10 * 60_000;
/** A flow record older than this is refused at the callback. */
export const FLOW_TTL_MS = 30 * 60_000;

/**
 * readConfig checks oauth()'s options (throwing a TypeError that names a
 * bad one) and returns what the flow takes of them: the redirect URI, the
 * scopes (a string), the token storage, and the storage of the flow
 * records.
 */
export function readConfig(config) {
  if (config === null || typeof config !== "object") throw new TypeError("mcplive/oauth: oauth() takes an options object");
  for (const k of Object.keys(config)) {
    if (!OPTIONS.includes(k)) throw new TypeError(`mcplive/oauth: unknown option ${JSON.stringify(k)} (known: ${OPTIONS.join(", ")})`);
  }
  const redirectUri = checkRedirectUri(config.redirectUri);
  if (config.clientMetadataUrl !== undefined) {
    let u;
    try {
      u = new URL(String(config.clientMetadataUrl));
    } catch {
      u = null;
    }
    if (!u || u.protocol !== "https:" || u.pathname === "/") throw new TypeError("mcplive/oauth: clientMetadataUrl must be an https URL with a path (the client ID metadata document your app hosts)");
  }
  if (config.clients !== undefined && typeof config.clients !== "function" && (config.clients === null || typeof config.clients !== "object")) {
    throw new TypeError("mcplive/oauth: clients must be an object { [issuer]: { clientId, clientSecret? } } or a function issuer => that");
  }
  if (config.authorize !== undefined && typeof config.authorize !== "function") throw new TypeError("mcplive/oauth: authorize must be a function (authorizationUrl, { signal }) => Promise<callbackUrl>");
  if (config.mode !== undefined && config.mode !== "popup" && config.mode !== "redirect") throw new TypeError('mcplive/oauth: mode must be "popup" or "redirect"');
  if (config.fetch !== undefined && typeof config.fetch !== "function") throw new TypeError("mcplive/oauth: fetch must be a function");
  if (config.dpop !== undefined && typeof config.dpop !== "boolean") throw new TypeError("mcplive/oauth: dpop must be true or false");
  const scopes = Array.isArray(config.scopes) ? config.scopes.join(" ") : config.scopes;
  if (scopes !== undefined && typeof scopes !== "string") throw new TypeError("mcplive/oauth: scopes must be a string or an array of strings");
  const storage = config.storage === undefined ? memoryStorage() : checkStorage(config.storage);
  // Flow records (verifier, state): this tab's sessionStorage where there is
  // one, so a full-page redirect finds its flow on return.
  const flows = hasSessionStorage() ? sessionStorageAdapter() : memoryStorage();
  return { redirectUri, scopes, storage, flows };
}

/** hasWindow: a page, where the user can click authorize() (not a worker, not Node). */
export function hasWindow() {
  return inBrowser && typeof globalThis.window === "object" && globalThis.window !== null;
}

function hasSessionStorage() {
  try {
    return inBrowser && typeof globalThis.sessionStorage === "object" && globalThis.sessionStorage !== null;
  } catch {
    return false; // access denied (sandboxed iframe, storage off)
  }
}

function checkRedirectUri(v) {
  if (typeof v !== "string" && !(v instanceof URL)) throw new TypeError("mcplive/oauth: redirectUri is required: the URL your authorization callback page lives at (registered with the authorization server)");
  let u;
  try {
    u = new URL(String(v));
  } catch {
    throw new TypeError(`mcplive/oauth: redirectUri ${JSON.stringify(String(v))} is not an absolute URL`);
  }
  if (u.protocol === "javascript:" || u.protocol === "data:" || u.protocol === "blob:" || u.protocol === "file:") throw new TypeError(`mcplive/oauth: redirectUri may not be a ${u.protocol} URL`);
  if (u.protocol === "http:" && !isLoopback(u.hostname)) throw new TypeError("mcplive/oauth: redirectUri must be https (plain http on loopback only)");
  if (u.hash) throw new TypeError("mcplive/oauth: redirectUri may not have a fragment");
  return u.href;
}
