// Type test: the end of this file is docs/reach-any-server.md's stdio snippet, verbatim.
declare const tokenFromTheBridge: string;
export {};
// The page's code (docs/reach-any-server.md):
import { connect, viaBridge } from "mcplive";

const token = tokenFromTheBridge; // printed by mcplive-bridge at its start
const client = await connect("http://127.0.0.1:8787/mcp", {
  fetch: viaBridge("http://127.0.0.1:8787", { token }),
});
client.tools.subscribe(({ items }) => console.log(items.map((t) => t.name)));

// Or over WebSocket, the token in the URL (a browser cannot set its headers):
const ws = await connect(`ws://127.0.0.1:8787/mcp?token=${encodeURIComponent(token)}`);
