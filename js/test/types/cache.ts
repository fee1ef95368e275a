// Type test of open() and the cache option (docs/cache.md shows this code).
import { open, connect, type CacheAdapter, type Client } from "mcplive";

const storage = new Map<string, string>();
const adapter: CacheAdapter = {
  get: async (key) => storage.get(key),
  set: async (key, value) => void storage.set(key, value),
  delete: async (key) => void storage.delete(key),
};

// The client at once: render from the stores, await nothing.
const client: Client = open("https://mcp.example.com/mcp", { cache: "indexeddb" });
client.tools.subscribe(({ items, status, source }) => {
  const from: "cache" | "server" | null = source;
  console.log(status, from, items.map((t) => t.name));
});
client.on("change", (e) => {
  if (e.cause === "resync") console.log("reconciled with the server", e.added, e.removed);
});
client.ready.then(
  () => console.log("synced", client.protocolVersion),
  (err: Error) => console.error(err.name),
);

const other = await connect("wss://mcp.example.com/mcp", { cache: adapter });
await other.readResource("file:///readme.md"); // a fresh kept result answers at once
const mem = open("https://mcp.example.com/mcp", { cache: "memory", token: () => "t" });
await mem.ready;
// @ts-expect-error: not a cache
open("https://mcp.example.com/mcp", { cache: "disk" });
