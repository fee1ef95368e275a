// Type test of the fetch option and viaBridge (docs/reach-any-server.md).
import { connect, open, createHub, viaBridge, type ViaBridgeOptions } from "mcplive";
import { oauth } from "mcplive/oauth";

async function throughTheBridge(token: string): Promise<void> {
  const fetch = viaBridge("http://127.0.0.1:8787", { token });
  // A stdio server served by the bridge, and a remote one it forwards to.
  await connect("http://127.0.0.1:8787/mcp", { fetch });
  const auth = oauth({ redirectUri: "https://app.example.com/callback", fetch });
  open("https://remote.example/mcp", { fetch, auth });
  await createHub().add("remote", "https://remote.example/mcp", { fetch });
  // Any fetch fits: a same-origin dev proxy's.
  await connect("https://remote.example/mcp", {
    fetch: (input, init) => globalThis.fetch("/proxy?url=" + encodeURIComponent(input), init),
  });
  await connect("https://remote.example/mcp", { fetch: globalThis.fetch });
  const opts: ViaBridgeOptions = { token, fetch: globalThis.fetch };
  viaBridge(new URL("http://127.0.0.1:8787/mcp"), opts);
  const res: Response = await viaBridge("http://127.0.0.1:8787")("https://remote.example/mcp", { method: "POST" });
  console.log(res.status);
  // @ts-expect-error the token is a string
  viaBridge("http://127.0.0.1:8787", { token: 42 });
  // @ts-expect-error fetch is a function
  await connect("https://remote.example/mcp", { fetch: "http://127.0.0.1:8787" });
}
void throughTheBridge;
