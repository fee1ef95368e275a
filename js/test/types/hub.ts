// Type test of the hub: what toolsFor and runTool give is what the model
// APIs' own packages take (openai, @anthropic-ai/sdk, ai), under --strict.
import { createHub, localStorageApprovals, toolResultFor, type Hub, type HubTool, type AnyHubChangeEvent, type HubServer, type CallToolResult } from "mcplive";
import type { ChatCompletionTool, ChatCompletionToolMessageParam, ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";
import type { FunctionTool, ResponseInputItem, ResponseFunctionToolCall } from "openai/resources/responses/responses";
import type { Tool as AnthropicTool, ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { generateText, type ToolSet, type ToolResultPart } from "ai";

async function hubTypes(): Promise<void> {
  const hub: Hub = createHub({ clientInfo: { name: "x", version: "1" }, names: (id, name, kind) => `${kind}-${id}-${name}`, approvals: localStorageApprovals() });
  await hub.add("code", "ws://127.0.0.1:1/mcp", { reconnect: false });
  const tools: readonly HubTool[] = hub.tools.get().items;
  const t = tools[0];
  if (t) console.log(t.name, t.serverName, t.server, t.fingerprint, t.approval === "changed", t.stale);
  hub.on("change", (ev: AnyHubChangeEvent) => {
    if (ev.kind === "tools") for (const c of ev.changed) console.log(c.item.serverName, c.previous.description, c.fields.includes("description"));
  });
  const s: readonly HubServer[] = hub.servers.get();
  console.log(s[0]?.status === "unauthorized", hub.resolve("code__echo")?.server);
  hub.filter({ server: "code", exclude: [/^code__danger/, "x*"] });
  hub.filter((item, kind) => kind === "tools" && item.server === "code");
  hub.filter(null);
  hub.approve("code__echo");
  const r: CallToolResult = await hub.callTool("code__echo", { text: "hi" }, { timeoutMs: 1000 });
  console.log(r.isError);
  await hub.readResource("test://x", { server: "code", timeoutMs: 5 });
  hub.subscribeResource("test://x", (contents) => contents.length, { server: "code" });

  // OpenAI Chat Completions
  const chatTools: ChatCompletionTool[] = [...hub.toolsFor("openai-chat")];
  const chatCall: ChatCompletionMessageFunctionToolCall = { id: "c", type: "function", function: { name: "code__echo", arguments: "{}" } };
  const chatResult: ChatCompletionToolMessageParam = await hub.runTool("openai-chat", chatCall);
  // OpenAI Responses
  const respTools: FunctionTool[] = [...hub.toolsFor("openai-responses")];
  const respCall = {} as ResponseFunctionToolCall;
  const respResult: ResponseInputItem = await hub.runTool("openai-responses", respCall);
  const respResult2: ResponseInputItem.FunctionCallOutput = toolResultFor("openai-responses", r, "c");
  // Anthropic
  const anthTools: AnthropicTool[] = [...hub.toolsFor("anthropic")];
  const anthCall = {} as ToolUseBlock;
  const anthResult: ToolResultBlockParam = await hub.runTool("anthropic", anthCall);
  // AI SDK
  const toolSet: ToolSet = hub.toolsFor("ai-sdk");
  await generateText({ model: "x", tools: hub.toolsFor("ai-sdk"), prompt: "hi" });
  const out: ToolResultPart["output"] = toolResultFor("ai-sdk", r);
  console.log(chatTools, chatResult, respTools, respResult, respResult2, anthTools, anthResult, toolSet, out);

  // @ts-expect-error not a model API
  hub.toolsFor("gemini");
  // @ts-expect-error the AI SDK's tools run themselves
  await hub.runTool("ai-sdk", {});
  // @ts-expect-error names gives a string
  createHub({ names: () => 1 });
}
console.log(hubTypes);
