// Type test: compiled with tsc --noEmit by `npm test`. Each @ts-expect-error
// must be an error, so the types refuse what the API refuses.
import { connect, type Client, type ListValue, type Tool, type MCPLiveError, type ReadableStore, type ChangeCause, type ServerCapabilities, type TokenRequest, type ProtocolVersion, type AuthError, type ElicitRequest, type ElicitResult } from "mcplive";

import { oauth, handleCallback, OAuthError, localStorageAdapter, type AuthState, type Auth } from "mcplive/oauth";
import { loopback, paste } from "mcplive/oauth/node";

async function withOAuth(): Promise<void> {
  const auth: Auth = oauth({
    redirectUri: "https://app.example.com/callback",
    clientMetadataUrl: "https://app.example.com/client.json",
    clients: { "https://as.example.com": { clientId: "abc" } },
    registration: { clientName: "My app" },
    scopes: ["tools:read"],
    storage: localStorageAdapter(),
    mode: "popup",
  });
  const client = await connect("https://mcp.example.com/mcp", { auth });
  const state: AuthState | undefined = client.auth?.get();
  if (state?.status === "needs-authorization") console.log(state.authorizationUrl?.length);
  if (state?.error instanceof OAuthError) console.log(state.error.code === "no_s256", state.error.step);
  await client.auth?.authorize({ mode: "redirect" });
  await auth.signOut();
  const { delivered }: { delivered: boolean } = await handleCallback();
  console.log(delivered);
  oauth({ redirectUri: "http://127.0.0.1:8976/callback", authorize: loopback({ timeoutMs: 60_000 }) });
  oauth({ redirectUri: "http://127.0.0.1:8976/callback", authorize: paste() });
  oauth({ redirectUri: "x", authorize: async (url, { signal }) => (signal.aborted ? url : new URL(url)) });
  // @ts-expect-error redirectUri is required
  oauth({});
  // @ts-expect-error status is one of the listed states
  const bad: AuthState["status"] = "signed-in";
  console.log(bad);
  // @ts-expect-error auth is what oauth() returns, not a token string
  await connect("https://x/mcp", { auth: "Bearer t" });
}
void withOAuth;

async function main(): Promise<void> {
  const client: Client = await connect("ws://127.0.0.1:8080/mcp", {
    clientInfo: { name: "my-app", version: "1.0.0" },
    requestTimeoutMs: 5000,
    reconnect: { initialDelayMs: 100, maxDelayMs: 5000 },
    heartbeat: false,
    wasmUrl: new URL("https://example.com/mcplive.wasm"),
  });
  await connect(new URL("ws://x/mcp"), { reconnect: false, heartbeat: { intervalMs: 1000, timeoutMs: 500 } });

  const value: ListValue<Tool> = client.tools.get();
  const names: string[] = value.items.map((t) => t.name);
  const status: "loading" | "ready" | "stale" | "error" | "unsupported" = value.status;
  const err: MCPLiveError | null = value.error;
  if (err) console.log(err.code, err.data, err.message);
  console.log(names, status, value.version + 1);
  // @ts-expect-error items are read-only
  value.items.push(value.items[0]!);

  const un: () => void = client.tools.subscribe(({ items }) => items.length);
  un();
  client.resources.listen((v) => v.items.map((r) => r.uri));
  client.resourceTemplates.get().items.map((t) => t.uriTemplate);
  client.prompts.get().items.flatMap((p) => p.arguments ?? []).map((a) => a.required);
  const s: "connecting" | "ready" | "reconnecting" | "closed" = client.status.get();
  console.log(s);

  // React and Svelte shapes.
  const useSyncExternalStore = <T,>(subscribe: (cb: () => void) => () => void, get: () => T): T => (subscribe(() => {}), get());
  const snap: ListValue<Tool> = useSyncExternalStore(client.tools.subscribe, client.tools.get);
  console.log(snap);
  const svelte: { subscribe(run: (v: ListValue<Tool>) => void): () => void } = client.tools;
  console.log(svelte);
  const store: ReadableStore<unknown> = client.prompts;
  console.log(store);

  const off = client.on("change", (ev) => {
    if (ev.kind === "tools") ev.added.map((t) => t.inputSchema);
    if (ev.kind === "resources") ev.removed.map((r) => r.uri);
    const cause: ChangeCause = ev.cause;
    const ms: number | null = ev.latencyMs;
    if (ev.cause === "notification" && ev.latencyMs !== null) console.log(`re-listed ${ev.latencyMs.toFixed(1)} ms after list_changed`);
    // @ts-expect-error not a cause
    if (ev.cause === "timer") console.log(cause, ms);
  });
  off();
  client.on("log", (ev) => console.log(ev.level, ev.data));
  client.on("notification", ({ method, params }) => console.log(method, params));
  // @ts-expect-error unknown event
  client.on("changes", () => {});

  const ac = new AbortController();
  const res = await client.callTool("search", { q: "mcp" }, { signal: ac.signal, timeoutMs: 1000, onProgress: (p) => p.progress / (p.total ?? 1) });
  for (const c of res.content) if (c.type === "text") console.log(c.text);
  if (res.isError) console.log(res.structuredContent);
  // @ts-expect-error name must be a string
  await client.callTool(42);

  const prompt = await client.getPrompt("summarize", { text: "x", n: 3 });
  prompt.messages.map((m) => m.role);
  const read = await client.readResource("file:///readme.md");
  await client.readResource(new URL("file:///readme.md")); // a URL, as the runtime takes
  read.contents.map((c) => c.text ?? c.blob);
  const stop: () => void = client.subscribeResource("file:///readme.md", (contents) => contents[0]?.text, { onError: (e) => e.name });
  stop();
  const done = await client.complete({ ref: { type: "ref/prompt", name: "summarize" }, argument: { name: "text", value: "a" } });
  done.completion.values.join();
  await client.setLoggingLevel("debug");
  // @ts-expect-error not a level
  await client.setLoggingLevel("verbose");
  await client.ping();
  await client.refresh();
  await client.refresh("resourceTemplates");
  // @ts-expect-error not a kind
  await client.refresh("templates");
  console.log(client.serverInfo.name, client.protocolVersion, client.instructions?.length, client.capabilities["tools"]);
  // The spec's ServerCapabilities: these compile under --strict.
  const caps: ServerCapabilities = client.capabilities;
  const listChanged: boolean | undefined = client.capabilities.tools?.listChanged;
  const canSubscribe: boolean = client.capabilities.resources?.subscribe === true;
  if (caps.logging && caps.completions && caps.prompts?.listChanged) console.log(listChanged, canSubscribe);
  // @ts-expect-error listChanged is a boolean
  const wrong: string | undefined = client.capabilities.tools?.listChanged;
  console.log(wrong);
  try {
    await connect("ws://127.0.0.1:1/mcp");
  } catch (e) {
    const name: MCPLiveError["name"] = (e as MCPLiveError).name;
    if (name === "DialError") console.log("server down, wrong path, Origin or token refused");
  }
  // @ts-expect-error read-only
  client.tools = client.prompts;
  await client.close();

  // Streamable HTTP: a pinned revision, extra headers, an async token callback (an app's OAuth).
  let cached: string | null = null;
  const http: Client = await connect("https://mcp.example.com/mcp", {
    protocolVersion: "2026-07-28",
    headers: { "X-Api-Key": "k" },
    token: async ({ url, error }) => {
      if (error) {
        const where: string | undefined = error.resourceMetadata;
        const status: number = error.status;
        cached = await Promise.resolve(`renewed for ${url} via ${where} after ${status}`);
      }
      return cached;
    },
  });
  await connect("https://mcp.example.com/mcp", { protocolVersion: "2025-11-25", token: () => "static" });
  // @ts-expect-error not a revision
  await connect("https://mcp.example.com/mcp", { protocolVersion: "2024-01-01" });
  // @ts-expect-error the token is a function
  await connect("https://mcp.example.com/mcp", { token: "static" });
  // @ts-expect-error header values are strings
  await connect("https://mcp.example.com/mcp", { headers: { "X-N": 1 } });
  // Elicitation: a form for the user, the defaults for what they leave out.
  await connect("ws://127.0.0.1:8080/mcp", {
    onElicit: async (request: ElicitRequest, { signal }): Promise<ElicitResult> => {
      const fields: string[] = Object.keys(request.requestedSchema.properties ?? {});
      if (signal.aborted || fields.length === 0) return { action: "cancel" };
      return { action: "accept", content: { [fields[0]]: request.message, age: 30, ok: true, tags: ["a"] } };
    },
  });
  // @ts-expect-error the action is accept, decline or cancel
  await connect("ws://127.0.0.1:8080/mcp", { onElicit: () => ({ action: "ok" }) });
  // Diagnostics: console fits, and so does an object with some of the levels.
  await connect("ws://127.0.0.1:8080/mcp", { logger: console });
  await connect("ws://127.0.0.1:8080/mcp", { logger: { warn: (message: string, attrs) => console.log(message, attrs.err) } });
  // @ts-expect-error a logger's methods take (message, attrs)
  await connect("ws://127.0.0.1:8080/mcp", { logger: { warn: (n: number) => n } });
  const tv: ListValue<Tool> = http.tools.get();
  const live: boolean = tv.live;
  const ttl: number | null = tv.ttlMs;
  const scope: "public" | "private" | null = tv.cacheScope;
  const at: number | null = tv.receivedAt;
  if (!live && ttl !== null && at !== null && at + ttl < Date.now()) await http.refresh("tools"); // the app's own policy
  console.log(scope);
  try {
    await http.callTool("x");
  } catch (e) {
    const err = e as MCPLiveError;
    if (err.name === "AuthError") console.log(err.status, err.resourceMetadata, err.scope, err.wwwAuthenticate);
  }
  const tr: TokenRequest = { url: "u" };
  const pv: ProtocolVersion = "2025-06-18";
  const ae: AuthError | undefined = tr.error;
  console.log(pv, ae?.status);
}
void main;
