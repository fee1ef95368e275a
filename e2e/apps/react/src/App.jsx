import { Component, Suspense } from "react";
import { useClient, useReady, useStatus, useTools } from "mcplive/react";

// One client per mounted App: opened after mount (one, under StrictMode too),
// replaced when url changes, closed on unmount. The options may be a new
// object on every render: only a change of their values opens a new client.
export function App({ url }) {
  const client = useClient(url, { clientInfo: { name: "my-app", version: "1.0.0" } });
  return (
    <ErrorBoundary key={url}>
      <Suspense fallback={<p>Connecting…</p>}>
        <ToolList client={client} />
      </Suspense>
    </ErrorBoundary>
  );
}

// Suspends until the first sync is done (useReady); null before the client exists.
function ToolList({ client }) {
  useReady(client);
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

// A refused connection (useReady throws the error) shows here.
class ErrorBoundary extends Component {
  state = { error: null };
  static getDerivedStateFromError(error) {
    return { error };
  }
  render() {
    if (this.state.error) return <p role="alert">Cannot connect: {this.state.error.message}</p>;
    return this.props.children;
  }
}
