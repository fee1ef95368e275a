// The client under test for the official MCP conformance suite
// (@modelcontextprotocol/conformance): mcplive's npm package (../js, the real
// wasm) in Node 22. The suite runs it as `node client.mjs <serverURL>` with the
// scenario in MCP_CONFORMANCE_SCENARIO (and, for some, test data in
// MCP_CONFORMANCE_CONTEXT). It does what an app built on mcplive does: connect
// (which initializes, or discovers in 2026-07-28, and lists every kind the
// server offers), use what the live stores show, close, and exit 0; any error
// exits 1 with the error on stderr.
//
// Only the public API of the package is used: for the auth/* scenarios,
// mcplive/oauth itself, with the authorize option an unattended app uses.
// The suite's authorization servers approve at once (a redirect to the
// redirect URI with the code), so the user's part is to follow the
// authorization URL to that redirect, as a browser would, without sending
// anything of the flow's secrets anywhere else.

import { connect } from "../js/index.js";
import { oauth, clientCredentials } from "../js/src/oauth/index.js";

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const log = (...a) => console.error(`[client ${scenario}]`, ...a);

const options = {
  clientInfo: { name: "mcplive-conformance", version: "0.1.0" },
  requestTimeoutMs: 20_000,
  dialTimeoutMs: 10_000,
  reconnect: false, // a scenario's server is gone after the run: fail, don't retry
  // An unattended app has no user to ask: it accepts every form with what
  // the server proposes (the client fills in the schema's defaults for the
  // fields an accepted answer leaves out), in either revision (2025-11-25's
  // elicitation/create, 2026-07-28's input requests).
  onElicit: async (request) => {
    log("accepting with the defaults:", request.message);
    return { action: "accept", content: {} };
  },
};

if (scenario === "auth/wif-jwt-bearer") {
  // Workload identity federation (SEP-1933): the workload's JWT, traded with the JWT bearer grant.
  options.auth = clientCredentials({ clientId: context.client_id, assertion: context.valid_jwt });
} else if (scenario.startsWith("auth/client-credentials-")) {
  // A machine client (SEP-1046): its own credentials from the scenario's
  // context, a secret (client_secret_basic) or a private key (private_key_jwt).
  options.auth = clientCredentials({
    clientId: context.client_id,
    ...(context.private_key_pem ? { privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? "ES256" } : { clientSecret: context.client_secret }),
  });
} else if (scenario.startsWith("auth/")) {
  options.auth = oauth({
    redirectUri: "http://localhost:3000/callback",
    // A Client ID Metadata Document the app would host (used where the
    // authorization server accepts those, auth/basic-cimd).
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    // Pre-registered credentials, where the scenario gives some.
    clients: context.client_id ? () => ({ clientId: context.client_id, clientSecret: context.client_secret }) : undefined,
    registration: { clientName: "mcplive-conformance" },
    // DPoP (RFC 9449) where the scenario is about it.
    ...(scenario.startsWith("auth/dpop") ? { dpop: true } : {}),
    authorize: async (authorizationUrl, { signal }) => {
      const res = await fetch(authorizationUrl, { redirect: "manual", signal });
      const location = res.headers.get("location");
      if (!location) throw new Error(`the authorization endpoint answered HTTP ${res.status} without a redirect`);
      return new URL(location, authorizationUrl).href;
    },
  });
}

/** items returns the list of kind once its first sync is done (connect waits for it). */
function items(client, kind) {
  const v = client[kind].get();
  if (v.status === "error") throw v.error;
  return v.items;
}

/** argsFor makes arguments that satisfy a tool's inputSchema (numbers → 2, 3, …). */
function argsFor(tool) {
  const props = tool.inputSchema?.properties ?? {};
  const out = {};
  let n = 2;
  for (const [name, schema] of Object.entries(props)) {
    switch (schema?.type) {
      case "number":
      case "integer":
        out[name] = n++;
        break;
      case "boolean":
        out[name] = true;
        break;
      case "string":
        out[name] = schema.enum?.[0] ?? schema.default ?? "test";
        break;
      default:
        if (schema?.default !== undefined) out[name] = schema.default;
    }
  }
  return out;
}

/**
 * callTools calls each listed tool once (or the calls the scenario's context
 * names), in order. A failed call does not stop the others (the suite judges
 * each on its own); the first failure is thrown at the end.
 */
async function callTools(client) {
  const calls = Array.isArray(context.toolCalls)
    ? context.toolCalls.map((c) => ({ name: c.name, args: c.arguments ?? {} }))
    : items(client, "tools").map((t) => ({ name: t.name, args: argsFor(t) }));
  let first = null;
  for (const { name, args } of calls) {
    try {
      const r = await client.callTool(name, args);
      log("called", name, JSON.stringify(r.content));
    } catch (err) {
      log("call", name, "failed:", `${err.name}: ${err.message}`);
      first ??= err;
    }
  }
  if (first) throw first;
}

async function useEverything(client) {
  await callTools(client);
  for (const p of items(client, "prompts")) {
    const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, "test"]));
    await client.getPrompt(p.name, args);
    log("got prompt", p.name);
  }
  for (const r of items(client, "resources")) {
    await client.readResource(r.uri);
    log("read", r.uri);
  }
}

const scenarios = {
  // Connect (initialize or discover, list), call the tool, close.
  initialize: callTools,
  tools_call: callTools,
  "request-metadata": callTools,
  "json-schema-ref-no-deref": async () => {},
  "json-schema-2020-12-preservation": async (client) => {
    // Echo the focal tool's inputSchema as the store holds it: the schema must
    // reach the app unchanged.
    const tools = items(client, "tools");
    const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("json_schema_2020_12_tool not listed");
    await client.callTool("json_schema_echo", { schema: focal.inputSchema });
  },
  "sse-retry": callTools,
  "elicitation-sep1034-client-defaults": callTools,
  "sep-2322-client-request-state": callTools,
  "http-standard-headers": useEverything,
  "http-custom-headers": callTools,
  "http-invalid-tool-headers": callTools,
};

async function main() {
  const run = scenarios[scenario] ?? (scenario.startsWith("auth/") ? callTools : undefined);
  if (!run) throw new Error(`no client behaviour for scenario ${JSON.stringify(scenario)}`);
  const client = await connect(url, options);
  log("connected:", client.protocolVersion, JSON.stringify(client.capabilities));
  try {
    await run(client);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[client ${scenario}] ${err?.name ?? "Error"}: ${err?.message ?? err}`);
    process.exit(1);
  },
);
