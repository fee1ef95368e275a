// The demo's sign-in: MCP authorization (OAuth 2.1) with mcplive/oauth.
// ./build.sh demo starts an authorization server (authserver/, with a
// login and consent page) and the demo server's protected endpoint
// /protected/mcp. "Sign in" connects to it and opens the sign-in popup in
// the click; the lists then show the protected catalog. Any other
// Streamable HTTP URL in the URL field gets an oauth() object too (app.js:
// authFor), so a protected server anywhere signs in the same way: when it
// answers 401, this card offers "Sign in" for it.
import { oauth, sessionStorageAdapter } from "/js/src/oauth/index.js";
import { h, $ } from "./dom.js";

const PROTECTED = new URL("/protected/mcp", location.href).href;
const byUrl = new Map(); // server URL → its oauth() object (one per server: it holds that server's tokens)
let current = null; // { url, auth } the lists are connected to
let off = () => {};

/** authFor is the auth option for connect(url): one oauth() object per server URL. */
export function authFor(url) {
  const key = String(url);
  let a = byUrl.get(key);
  if (!a) {
    a = oauth({
      redirectUri: new URL("/callback.html", location.href).href,
      storage: sessionStorageAdapter(), // this tab's, kept across reloads
      registration: { clientName: "mcplive demo", applicationType: "web" },
    });
    byUrl.set(key, a);
  }
  off();
  current = { url: key, auth: a };
  off = a.subscribe(render);
  return a;
}

const status = h("p", { id: "oauth-status", class: "result-line", "aria-live": "polite" });
const signIn = h("button", { type: "button", id: "oauth-signin" }, "Sign in");
const signOut = h("button", { type: "button", id: "oauth-signout", class: "secondary", hidden: true }, "Sign out");
const card = h(
  "section",
  { class: "card", id: "sit-oauth", hidden: true },
  h("h3", {}, h("span", { class: "num alt", "aria-hidden": "true" }, "→"), "Sign in (OAuth)"),
  h("p", { class: "hint" }, "The protected endpoint ", h("code", {}, "/protected/mcp"), " is behind MCP authorization: a real authorization server (oidc-provider) with a login and consent page. Sign in as ", h("code", {}, "alice"), " / ", h("code", {}, "wonderland"), ". A protected server in the URL field signs in here too."),
  h("div", { class: "row" }, signIn, signOut),
  status,
);

function render(s) {
  if (!current) return;
  const own = current.url === PROTECTED;
  card.hidden = card.hidden && !own && s.status === "none";
  const where = own ? "the protected endpoint" : current.url;
  const text = {
    none: own ? "Not signed in." : `${where}: not signed in.`,
    "needs-authorization": `${where} asks you to sign in.`,
    authorizing: "Signing in… (finish in the popup)",
    refreshing: "Refreshing the token…",
    authorized: `Signed in at ${s.issuer}: ${s.scopes.join(" ") || "no scopes"}${s.expiresAt ? `; the token lasts until ${new Date(s.expiresAt).toLocaleTimeString()} (then it is refreshed)` : ""}.`,
    error: `Sign-in failed: ${s.error?.message ?? "unknown error"}`,
  }[s.status];
  status.textContent = text ?? s.status;
  status.dataset.status = s.status;
  signIn.textContent = s.status === "needs-authorization" && !own ? "Sign in to this server" : "Sign in";
  signIn.disabled = s.status === "authorized" || s.status === "authorizing" || s.status === "refreshing";
  signOut.hidden = s.status !== "authorized" && s.status !== "refreshing";
}

signIn.addEventListener("click", () => {
  let a = current?.auth;
  if (!a || (current.url !== PROTECTED && a.get().status !== "needs-authorization")) {
    // Connect the lists to the protected endpoint (app.js's form; it binds
    // the oauth() object at once), then open the popup, still in the click.
    $("#connect-url").value = PROTECTED;
    $("#connect-form").requestSubmit();
    a = authFor(PROTECTED);
  }
  a.authorize().catch((err) => {
    status.textContent = `Sign-in: ${err.message}`;
    status.dataset.status = "error";
  });
});
signOut.addEventListener("click", () => current?.auth.signOut());

// Only a demo server started with an authorization server has the
// protected endpoint; the others answer 204 (none), not a 404 in red.
fetch(new URL("/.well-known/oauth-protected-resource/protected/mcp", location.href))
  .then((r) => {
    if (r.status !== 200) return;
    card.hidden = false;
    if (!current) status.textContent = "Not signed in.";
  })
  .catch(() => {});
const place = () => $("#dock-change")?.prepend(card);
if (document.readyState === "loading") addEventListener("DOMContentLoaded", place);
else place();
