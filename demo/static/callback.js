// The sign-in popup's last page (the redirect URI of auth.js): it hands
// the authorization response to the demo page and closes. Opened any other
// way, it goes back to the demo.
import { handleCallback } from "/js/src/oauth/browser.js";

const { delivered } = await handleCallback();
if (!delivered) location.replace("/");
