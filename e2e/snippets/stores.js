import { derived, get } from "svelte/store";

// Outside components, svelte/store's derived and get take the client's stores as they are.
export const toolNames = (client) => derived(client.tools, ($tools) => $tools.items.map((t) => t.name));
export const ready = (client) =>
  derived([client.status, client.tools, client.prompts], ([$status, $tools, $prompts]) =>
    $status === "ready" && $tools.status === "ready" && $prompts.status === "ready");

export const currentToolNames = (client) => get(toolNames(client));
