// Type test: the end of this file is docs/reach-any-server.md's remote-server snippet, verbatim.
declare const tokenFromTheBridge: string;
export {};
// The page's code (docs/reach-any-server.md):
import { connect, viaBridge } from "mcplive";
import { oauth } from "mcplive/oauth";

const fetch = viaBridge("http://127.0.0.1:8787", { token: tokenFromTheBridge });
const client = await connect("https://remote.example/mcp", {
  fetch, // the MCP requests
  auth: oauth({ fetch, redirectUri: `${location.origin}/callback.html` }), // discovery, registration, tokens
});
