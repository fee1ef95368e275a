// The hub's tools in the shapes of model APIs (hub.toolsFor) and MCP tool
// results in the shapes those APIs take back (hub.runTool, toolResultFor).
// No import of the APIs' packages: the shapes are checked against their
// types by the tests (js/test/types/hub.ts).

export const APIS = Object.freeze(["openai-chat", "openai-responses", "anthropic", "ai-sdk"]);

/** The image types Anthropic's image blocks accept. */
const ANTHROPIC_IMAGES = ["image/jpeg", "image/png", "image/gif", "image/webp"];


export function checkAPI(api) {
  if (!APIS.includes(api)) throw new TypeError(`mcplive: hub: unknown model API ${JSON.stringify(api)} (use ${APIS.map((a) => JSON.stringify(a)).join(", ")})`);
}

/** toolFor is one hub tool in api's shape (not "ai-sdk": see aiSDKTool). */
export function toolFor(api, item) {
  const d = item.description ?? item.title ?? item.annotations?.title;
  const schema = item.inputSchema ?? { type: "object" };
  if (api === "openai-chat") return Object.freeze({ type: "function", function: Object.freeze({ name: item.name, ...(d === undefined ? {} : { description: d }), parameters: schema }) });
  // strict: false: MCP schemas rarely meet strict mode's rules (every property required, no extra).
  if (api === "openai-responses") return Object.freeze({ type: "function", name: item.name, ...(d === undefined ? {} : { description: d }), parameters: schema, strict: false });
  return Object.freeze({ name: item.name, ...(d === undefined ? {} : { description: d }), input_schema: schema.type === "object" ? schema : { ...schema, type: "object" } });
}

/** aiSDKTool is one hub tool as an AI SDK dynamic tool whose execute calls it through the hub. */
export function aiSDKTool(item, callTool) {
  const d = item.description ?? item.title ?? item.annotations?.title;
  const schema = item.inputSchema ?? { type: "object" };
  return Object.freeze({
    type: "dynamic",
    ...(d === undefined ? {} : { description: d }),
    inputSchema: standardSchema(schema),
    execute: (input, options) => callTool(item.name, input ?? {}, options?.abortSignal ? { signal: options.abortSignal } : undefined),
    toModelOutput: ({ output }) => toolResultFor("ai-sdk", output),
  });
}

/**
 * standardSchema wraps a JSON Schema as a Standard Schema with its JSON
 * Schema converter (standardschema.dev), which the AI SDK takes as a tool's
 * inputSchema without an import of it. Validation is the server's: every
 * value passes here. The converter gives a copy (the SDK may amend it).
 */
function standardSchema(schema) {
  const copy = () => structuredClone(schema);
  return Object.freeze({
    "~standard": Object.freeze({ version: 1, vendor: "mcplive", validate: (value) => ({ value }), jsonSchema: Object.freeze({ input: copy, output: copy }) }),
  });
}

/**
 * callOf reads a model's tool call in api's shape: { id, name, args }.
 * openai-chat: a message's tool_calls[i]; openai-responses: a
 * function_call output item; anthropic: a tool_use content block.
 */
export function callOf(api, call) {
  if (call === null || typeof call !== "object") throw new TypeError("mcplive: hub.runTool: the tool call must be an object");
  if (api === "openai-chat") return { id: call.id, name: call.function?.name, args: parseArgs(call.function?.arguments) };
  if (api === "openai-responses") return { id: call.call_id, name: call.name, args: parseArgs(call.arguments) };
  if (api === "anthropic") return { id: call.id, name: call.name, args: call.input ?? {} };
  throw new TypeError(`mcplive: hub.runTool: use "openai-chat", "openai-responses" or "anthropic" (the AI SDK's tools run themselves)`);
}

function parseArgs(s) {
  if (s === undefined || s === "") return {};
  if (typeof s !== "string") return s;
  return JSON.parse(s);
}

/** blocks sorts a result's content into text and media the APIs know. */
function blocks(result) {
  const out = [];
  for (const b of result?.content ?? []) {
    if (b.type === "text") out.push({ text: b.text });
    else if (b.type === "image" || b.type === "audio") out.push({ media: b.type, data: b.data, mimeType: b.mimeType });
    else if (b.type === "resource_link") out.push({ text: `[resource ${b.uri}${b.name ? ` (${b.name})` : ""}]` });
    else if (b.type === "resource") {
      const r = b.resource ?? {};
      out.push(typeof r.text === "string" ? { text: r.text } : { text: `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ""}]` });
    }
  }
  // Structured content alone (no text): the model gets it as JSON text.
  if (!out.some((b) => b.text !== undefined) && result?.structuredContent !== undefined) out.unshift({ text: JSON.stringify(result.structuredContent) });
  return out;
}

const placeholder = (b) => `[${b.media} ${b.mimeType}]`;
const joined = (bs) => bs.map((b) => b.text ?? placeholder(b)).join("\n");

/**
 * toolResultFor turns an MCP tool result into what api takes back for the
 * call callId: openai-chat a tool message (text only: its tool messages
 * take no images), openai-responses a function_call_output item (text, and
 * images as data URLs), anthropic a tool_result block (text and images,
 * is_error), ai-sdk a tool output (text, json, content with files, or
 * error-text). isError becomes the API's error result (where it has none,
 * the text starts with "Error: ").
 */
export function toolResultFor(api, result, callId) {
  checkAPI(api);
  const bs = blocks(result);
  const err = result?.isError === true;
  if (api === "openai-chat") return { role: "tool", tool_call_id: String(callId), content: (err ? "Error: " : "") + joined(bs) };
  if (api === "openai-responses") {
    const media = bs.some((b) => b.media === "image");
    if (!media) return { type: "function_call_output", call_id: String(callId), output: (err ? "Error: " : "") + joined(bs) };
    const output = bs.map((b) =>
      b.media === "image" ? { type: "input_image", image_url: `data:${b.mimeType};base64,${b.data}`, detail: "auto" } : { type: "input_text", text: b.text ?? placeholder(b) },
    );
    if (err) output.unshift({ type: "input_text", text: "Error:" });
    return { type: "function_call_output", call_id: String(callId), output };
  }
  if (api === "anthropic") {
    const content = bs
      .map((b) =>
        b.media === "image" && ANTHROPIC_IMAGES.includes(b.mimeType)
          ? { type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } }
          : { type: "text", text: b.text ?? placeholder(b) },
      )
      .filter((b) => b.type !== "text" || b.text !== "");
    return { type: "tool_result", tool_use_id: String(callId), ...(content.length ? { content } : {}), ...(err ? { is_error: true } : {}) };
  }
  // ai-sdk
  if (err) return { type: "error-text", value: joined(bs) };
  if (bs.some((b) => b.media)) {
    return {
      type: "content",
      value: bs.map((b) => (b.media ? { type: "file", data: { type: "data", data: b.data }, mediaType: b.mimeType } : { type: "text", text: b.text })),
    };
  }
  if (result?.structuredContent !== undefined) return { type: "json", value: result.structuredContent };
  return { type: "text", value: joined(bs) };
}
