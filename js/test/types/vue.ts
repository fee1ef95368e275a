// Type test of mcplive/vue (tsc strict, with vue's own types): what the
// docs' app does, and what the composables refuse.
import { ref, computed, type ShallowRef } from "vue";
import { useClient, useStore, useTools, useStatus, useHub, useServers, usePrompts } from "mcplive/vue";
import type { Client, Hub, ListValue, Tool, ConnectionStatus, HubServer, HubListValue, HubTool } from "mcplive";

export function setup(): string {
  const url = ref("ws://127.0.0.1:8080/mcp");
  const client: ShallowRef<Client | null> = useClient(url, () => ({ clientInfo: { name: "app", version: "1.0.0" } }));
  useClient(() => url.value, { requestTimeoutMs: 5000 });
  useClient("ws://x/mcp");
  useClient(null);
  const tools: Readonly<ShallowRef<ListValue<Tool>>> = useTools(client);
  const names = computed(() => tools.value.items.map((t) => t.name));
  usePrompts(() => client.value).value.items.map((p) => p.name);
  const status: Readonly<ShallowRef<ConnectionStatus>> = useStatus(client);
  const s: Readonly<ShallowRef<ConnectionStatus>> = useStore(() => client.value?.status, "connecting");
  const hub: ShallowRef<Hub | null> = useHub(() => ({ demo: url.value }));
  const servers: Readonly<ShallowRef<readonly HubServer[]>> = useServers(hub);
  const hubTools: Readonly<ShallowRef<HubListValue<HubTool>>> = useTools(hub);
  // @ts-expect-error an unknown option
  useClient(url, { nope: 1 });
  // @ts-expect-error a url is a string or a URL
  useClient(42);
  return `${names.value.join()} ${status.value} ${s.value} ${servers.value.length} ${hubTools.value.version}`;
}
