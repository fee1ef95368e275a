import { connect } from "mcplive";

// Resolves after the session opened and the first full sync of every list.
const client = await connect("http://127.0.0.1:8080/mcp", { clientInfo: { name: "my-app", version: "1.0.0" } });

// A store calls back at once, then after every change of its list.
const stop = client.tools.subscribe(({ items, status, version }) => {
  console.log(`tools v${version} (${status}): ${items.map((t) => t.name).join(", ")}`);
});
client.on("change", ({ kind, added, removed }) => console.log(`${kind}: +${added.length} -${removed.length}`));

const result = await client.callTool("echo", { text: "hello" });
console.log(result.content[0].text); // hello

stop();
await client.close();
