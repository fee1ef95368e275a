"use client";
import { useClient, useStatus, useTools } from "mcplive/react";

// Server rendering and hydration show "Tools v0 (loading, connecting)": the
// client is opened in the browser, after hydration, and the wasm with it.
export function Tools({ url }) {
  const client = useClient(url, { clientInfo: { name: "my-app", version: "1.0.0" } });
  const tools = useTools(client);
  const status = useStatus(client);
  return (
    <section>
      <h2>
        Tools v{tools.version} ({tools.status}, {status})
      </h2>
      <ul>
        {tools.items.map((tool) => (
          <li key={tool.name} title={tool.description}>
            {tool.name}
          </li>
        ))}
      </ul>
    </section>
  );
}
