// Type test of README.md's OAuth snippet (readme_test.go checks that this
// file ends with it, verbatim). What the snippet takes as given: a page's
// sign-in button.
declare const signIn: HTMLButtonElement;

import { connect } from "mcplive";
import { oauth, sessionStorageAdapter } from "mcplive/oauth";

const auth = oauth({
  redirectUri: new URL("/oauth-callback.html", location.href), // a page that calls handleCallback()
  storage: sessionStorageAdapter(), // this tab, kept through reloads; default: memory (see "Where tokens are kept")
});
auth.subscribe(({ status }) => (signIn.hidden = status !== "needs-authorization"));
signIn.onclick = () => auth.authorize(); // in the click: a popup opened after an await is blocked

const client = await connect("https://mcp.example.com/mcp", { auth }); // waits for the sign-in when one is needed
auth.get(); // also client.auth: { status, issuer, scopes, expiresAt, authorizationUrl, error }
await auth.signOut(); // forgets (and revokes) the tokens; the lists are listed again
