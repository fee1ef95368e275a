// listEveryPage lists every page of tools through a TS SDK 1.x Client, as an
// app that re-lists on every notification does (the "re-list" mode). Shared
// by the browser page (ts.html) and the Node row (../node.mjs).
export async function listEveryPage(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
