// Type test: the end of this file is docs/transports-and-cors.md's dev proxy snippet, verbatim.
export {};
// The page's code (docs/transports-and-cors.md):
import { connect } from "mcplive";
import { oauth } from "mcplive/oauth";

// Each origin the page must reach, and the prefix vite.config.js proxies it under.
const routes: Record<string, string> = {
  "http://localhost:3000": "/proxy/mcp-server",
  "http://localhost:3001": "/proxy/auth-server",
};
const viaDevProxy = (input: string | URL | Request, init?: RequestInit) => {
  const u = new URL(input instanceof Request ? input.url : input);
  const prefix = routes[u.origin];
  return fetch(prefix ? prefix + u.pathname + u.search : u.href, init);
};

const client = await connect("http://localhost:3000/mcp", {
  fetch: viaDevProxy,
  auth: oauth({ fetch: viaDevProxy, redirectUri: `${location.origin}/callback.html` }),
});
