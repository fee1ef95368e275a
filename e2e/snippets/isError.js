// A tool that fails resolves with isError: true and says why in its content (MCP:
// the model gets to read it); only a failed call (RPCError, TimeoutError, …) rejects.
export async function login(client, user, password) {
  const result = await client.callTool("login", { user, password });
  if (result.isError) throw new Error(`login failed: ${result.content.map((c) => c.text).join(" ")}`);
  return result.content[0].text;
}
