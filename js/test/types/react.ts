// Type test of mcplive/react (tsc strict, with @types/react): what the docs'
// app does, and what the hooks refuse.
import { useClient, useStore, useTools, usePrompts, useResources, useResourceTemplates, useStatus, useReady, useHub, useServers } from "mcplive/react";
import type { Client, Hub, ListValue, Tool, HubListValue, HubTool, ConnectionStatus, HubServer } from "mcplive";

export function Component(url: string | null): string {
  const client: Client | null = useClient(url, { clientInfo: { name: "app", version: "1.0.0" }, token: () => "t", logger: console });
  const tools: ListValue<Tool> = useTools(client);
  const names: readonly string[] = tools.items.map((t) => t.name);
  usePrompts(client).items.map((p) => p.name);
  useResources(client).items.map((r) => r.uri);
  useResourceTemplates(client).items.map((r) => r.uriTemplate);
  const status: ConnectionStatus = useStatus(client);
  const ready: boolean = useReady(client);
  const s1: ConnectionStatus = useStore(client?.status, "connecting");
  const s2: ConnectionStatus | undefined = useStore(client?.status);
  if (client) {
    const s3: ConnectionStatus = useStore(client.status);
    console.log(s3);
  }
  useClient(new URL("ws://x/mcp"));
  useClient(null);
  // @ts-expect-error an unknown option
  useClient("ws://x/mcp", { nope: 1 });
  // @ts-expect-error a url is a string or a URL
  useClient(42);
  // @ts-expect-error useTools takes a client or a hub, not a store
  useTools(client?.tools);
  return `${names.join()} ${status} ${ready} ${s1} ${s2}`;
}

export function HubComponent(extra: boolean): number {
  const hub: Hub | null = useHub({ demo: "ws://127.0.0.1:8080/mcp", other: extra && { url: "https://x/mcp", options: { requestTimeoutMs: 5000 } } }, { onError: (id, err) => console.log(id, err.message) });
  const servers: readonly HubServer[] = useServers(hub);
  const all: HubListValue<HubTool> = useTools(hub); // a hub or null (before mount)
  const none: ListValue<Tool> = useTools(null);
  console.log(all.version, none.version);
  if (!hub) return servers.length;
  const tools: HubListValue<HubTool> = useTools(hub);
  // @ts-expect-error a server is a url or { url, options }
  useHub({ demo: 42 });
  return tools.items.filter((t) => t.approval === "approved").length;
}
