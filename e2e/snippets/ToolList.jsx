import { useSyncExternalStore } from "react";

// Every mcplive store (tools, prompts, resources, resourceTemplates, status)
// returns the same value object until it changes: a valid getSnapshot.
export function useStore(store) {
  return useSyncExternalStore(store.subscribe, store.get);
}

export function ToolList({ client }) {
  const { items, status, version } = useStore(client.tools);
  const connection = useStore(client.status);
  return (
    <section>
      <h2>
        Tools v{version} ({status}, {connection})
      </h2>
      <ul>
        {items.map((tool) => (
          <li key={tool.name} title={tool.description}>
            {tool.name}
          </li>
        ))}
      </ul>
    </section>
  );
}
