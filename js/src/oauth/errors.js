import { redactURL } from "../redact.js";

export { redactURL };

// OAuthError: every failure of the authorization flow, with the step it
// failed at and the server it concerned, so an app can tell "the user
// closed the popup" from "this server is misconfigured".

/**
 * The codes of OAuthError, one per way the flow can fail. Each message
 * names the server and the step; code is for programs.
 */
export const CODES = Object.freeze([
  "insecure_url", // an endpoint that is not https (or http on loopback), or javascript:/data:
  "unreachable", // the request did not reach the server (down, DNS, CORS in a browser)
  "timeout", // no answer in time
  "too_large", // an answer over 1 MiB
  "bad_response", // not JSON, not the document expected, or a redirect where none is allowed
  "no_metadata", // no protected resource or authorization server metadata found
  "resource_mismatch", // the protected resource metadata names another resource
  "issuer_mismatch", // the authorization server metadata names another issuer
  "no_s256", // the authorization server does not offer PKCE with S256
  "no_client_id", // no pre-registered client, no client ID metadata document, no registration
  "registration_failed", // dynamic client registration refused
  "state_mismatch", // a callback whose state is not the flow's, or is unknown
  "replayed_callback", // a callback whose state was used already
  "iss_mismatch", // RFC 9207: a wrong or missing iss in the callback
  "authorization_denied", // the authorization server answered the callback with an error
  "token_error", // the token endpoint refused (its error code is in .error)
  "popup_blocked", // window.open gave no window
  "popup_closed", // the user closed the popup before finishing
  "insufficient_scope", // still refused after re-authorizing with the scopes asked for (or the step-up's caps)
  "too_many_authorizations", // the server's refusals started too many authorizations in a short time
  "needs_user", // the flow needs the user (authorize() from a click) and has no authorize callback
  "storage", // the token storage failed
  "aborted", // the flow was aborted (signOut, a signal)
]);

export class OAuthError extends Error {
  /**
   * @param {string} code one of CODES
   * @param {string} message what happened, naming the server and the step
   * @param {{ step?: string, server?: string, error?: string, errorDescription?: string, cause?: unknown, status?: number }} [details]
   */
  constructor(code, message, details = {}) {
    // A server URL with credentials in it (userinfo, a query) is shown without them.
    if (typeof details.server === "string" && details.server) {
      const shown = redactURL(details.server);
      if (shown !== details.server) {
        message = message.split(details.server).join(shown);
        details = { ...details, server: shown };
      }
    }
    super(`mcplive/oauth: ${message}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "OAuthError";
    this.code = code;
    if (details.step !== undefined) this.step = details.step;
    if (details.server !== undefined) this.server = details.server;
    if (details.error !== undefined) this.error = details.error;
    if (details.errorDescription !== undefined) this.errorDescription = details.errorDescription;
    if (details.status !== undefined) this.status = details.status;
  }
}
