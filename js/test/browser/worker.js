// A module Web Worker that uses the package: test/browser.test.js starts it
// with ?ws=<MCP URL> and gets the tool names back, or the error.
import { connect } from "/js/index.js";

const ws = new URL(self.location.href).searchParams.get("ws");
try {
  const client = await connect(ws);
  const names = client.tools.get().items.map((t) => t.name);
  const echo = await client.callTool("echo", { text: "from a worker" });
  await client.close();
  self.postMessage({ names, echo: echo.content[0].text, status: client.status.get() });
} catch (err) {
  self.postMessage({ error: String(err?.stack ?? err) });
}
