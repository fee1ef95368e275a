// The hub's routing (hub.js is the face): a hub name to the server that
// lists it and that server's own name (hubnames.js keeps the table), a URI
// to the server that lists it or whose template matches, and the model
// APIs' tool lists and calls (modelapis.js) over the merged tools.

import { checkAPI, toolFor, aiSDKTool, callOf, toolResultFor } from "./modelapis.js";
import { namedError } from "./errors.js";

/**
 * createRouting routes the calls of the hub's servers (id → server state,
 * hub.js), named by namers (tools, prompts); tools is the merged tools
 * store (hubsegments.js), which toolsFor offers.
 */
export function createRouting({ servers, namers, tools }) {
  function resolve(name) {
    for (const kind of ["tools", "prompts"]) {
      const r = namers[kind].resolve(name);
      if (r && servers.has(r.server)) return Object.freeze({ server: r.server, name: r.name });
    }
    return undefined;
  }

  function target(kind, name) {
    const r = typeof name === "string" ? namers[kind].resolve(name) : undefined;
    const srv = r && servers.get(r.server);
    if (!srv) throw namedError("NotFoundError", `mcplive: hub: no ${kind.slice(0, -1)} is named ${JSON.stringify(name)} in the hub`);
    return { srv, name: r.name };
  }

  function callTool(name, args, opts) {
    try {
      const { srv, name: own } = target("tools", name);
      const item = srv.segs.tools.byKey.get(own);
      if (item?.approval === "changed") {
        throw namedError("ApprovalError", `mcplive: hub: the tool ${JSON.stringify(name)} changed since it was approved (description, schemas or annotations): approve it again`);
      }
      return srv.client.callTool(own, args, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  function getPrompt(name, args, opts) {
    try {
      const { srv, name: own } = target("prompts", name);
      return srv.client.getPrompt(own, args, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** serverFor picks the server of a URI: the one given, the one that lists it, or the one whose template matches. */
  function serverFor(uri, server) {
    const u = String(uri);
    if (server !== undefined) {
      const srv = servers.get(server);
      if (!srv) throw new TypeError(`mcplive: hub: no server ${JSON.stringify(server)} in the hub`);
      return srv;
    }
    const listing = [...servers.values()].filter((s) => s.segs.resources.byKey.has(u));
    if (listing.length === 1) return listing[0];
    if (listing.length > 1) throw new TypeError(`mcplive: hub: the servers ${listing.map((s) => JSON.stringify(s.id)).join(", ")} all list ${u}: pass { server }`);
    const matching = [...servers.values()].filter((s) => [...s.segs.resourceTemplates.byKey.keys()].some((t) => templateMatches(t, u)));
    if (matching.length === 1) return matching[0];
    if (servers.size === 1) return servers.values().next().value;
    throw new TypeError(`mcplive: hub: ${matching.length ? "several servers' templates match" : "no server lists"} ${u}: pass { server }`);
  }

  function readResource(uri, opts) {
    try {
      const { server, rest } = splitServer(opts);
      return serverFor(uri, server).client.readResource(String(uri), rest);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  function subscribeResource(uri, fn, opts) {
    const { server, rest } = splitServer(opts);
    return serverFor(uri, server).client.subscribeResource(String(uri), fn, rest);
  }

  /** One memo per API: the same tool list until the merged tools change. */
  const memo = new Map();
  function toolsFor(api) {
    checkAPI(api);
    const value = tools.get();
    const hit = memo.get(api);
    if (hit && hit.value === value) return hit.out;
    const offered = value.items.filter((i) => i.approval !== "changed");
    let out;
    if (api === "ai-sdk") {
      out = {};
      for (const item of offered) out[item.name] = aiSDKTool(item, callTool);
      out = Object.freeze(out);
    } else {
      out = Object.freeze(offered.map((i) => toolFor(api, i)));
    }
    memo.set(api, { value, out });
    return out;
  }

  async function runTool(api, call, opts) {
    const { id, name, args } = callOf(api, call);
    let result;
    try {
      result = await callTool(name, args, opts);
    } catch (err) {
      if (err?.name === "AbortError") throw err;
      result = { content: [{ type: "text", text: err?.message ?? String(err) }], isError: true };
    }
    return toolResultFor(api, result, id);
  }

  return { resolve, target, callTool, getPrompt, readResource, subscribeResource, toolsFor, runTool };
}

function splitServer(opts) {
  if (opts === undefined || opts === null) return { server: undefined, rest: undefined };
  const { server, ...rest } = opts;
  return { server, rest: Object.keys(rest).length ? rest : undefined };
}

/** templateMatches tells whether uri fits an RFC 6570 template (its variables as any text). */
function templateMatches(template, uri) {
  const re = template
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith("{") ? (/^\{[+#]/.test(part) ? ".*" : "[^/?#]*") : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${re}$`).test(uri);
}
