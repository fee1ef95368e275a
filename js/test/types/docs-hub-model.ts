// Type test of docs/hub.md's "For the model" snippet (readme_test.go checks
// that this file ends with it, verbatim). What the snippet takes as given: a
// hub, a tool call of the Chat Completions API, and the AI SDK's generateText
// with a model (js/test/types/hub.ts checks the shapes against the real
// packages).
import type { Hub, ToolCalls } from "mcplive";
declare const hub: Hub;
declare const toolCall: ToolCalls["openai-chat"];
declare const model: unknown;
declare function generateText(options: { model: unknown; tools: unknown; prompt: string }): Promise<unknown>;
declare const prompt: string;

const tools = hub.toolsFor("openai-chat");          // or "openai-responses", "anthropic"
const message = await hub.runTool("openai-chat", toolCall);   // the API's tool result
// AI SDK: a ToolSet whose execute calls the tool through the hub
await generateText({ model, tools: hub.toolsFor("ai-sdk"), prompt });
