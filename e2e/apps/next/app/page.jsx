import { Tools } from "./tools.jsx";

// A server component: rendered on the server, where Tools shows "loading".
export default function Page() {
  return (
    <main>
      <Tools url="ws://127.0.0.1:8080/mcp" />
    </main>
  );
}
