// A client's calls (client.js is the face): what the app asks of the
// server through Go (wasm/ops.go), each checked here first so that a bad
// argument rejects at once with a TypeError, and each answer parsed from
// the JSON Go hands back. The hooks, what Go calls in JavaScript, are in
// clienthooks.js.

import { call } from "./store.js";
import { KINDS } from "./kinds.js";
import { LEVELS, nonEmptyString } from "./options.js";

/** The options every call takes. */
export const CALL_OPTIONS = ["signal", "timeoutMs"];

/**
 * createCalls makes the client's calls over request(op, args, opts,
 * onProgress, allowed): one operation on the Go client, once connected
 * (client.js), resolving with Go's answer as JSON. cache is the catalog
 * cache (cache.js), or null: readResource answers from its fresh kept
 * results, and keeps what it reads.
 */
export function createCalls({ request, cache }) {
  const parsed = (p) => p.then((json) => JSON.parse(json));
  const rejectWith = (err) => Promise.reject(err);
  const valid = (fn) => {
    try {
      fn();
      return null;
    } catch (err) {
      return err;
    }
  };

  function callTool(name, args, opts) {
    const bad = valid(() => {
      nonEmptyString("callTool: the tool name", name);
      if (args != null && (typeof args !== "object" || Array.isArray(args))) throw new TypeError("mcplive: callTool: the arguments must be an object");
      if (opts?.onProgress !== undefined && typeof opts.onProgress !== "function") throw new TypeError("mcplive: onProgress must be a function");
    });
    if (bad) return rejectWith(bad);
    let progress;
    if (opts?.onProgress) {
      const fn = opts.onProgress;
      progress = (json) => call(fn, Object.freeze(JSON.parse(json)));
    }
    return parsed(request("callTool", { name, arguments: args ?? undefined }, opts, progress, [...CALL_OPTIONS, "onProgress"]));
  }

  function getPrompt(name, args, opts) {
    let strings;
    const bad = valid(() => {
      nonEmptyString("getPrompt: the prompt name", name);
      if (args == null) return;
      if (typeof args !== "object" || Array.isArray(args)) throw new TypeError("mcplive: getPrompt: the arguments must be an object");
      strings = {};
      for (const [k, v] of Object.entries(args)) {
        if (v === undefined) continue;
        if (v !== null && typeof v === "object") throw new TypeError(`mcplive: prompt argument ${k} must be a string`);
        strings[k] = String(v);
      }
    });
    if (bad) return rejectWith(bad);
    return parsed(request("getPrompt", { name, arguments: strings }, opts));
  }

  /** readResource reads uri; live (a subscription's read) skips the cache's kept result. */
  function readResource(uri, opts, live = false) {
    const bad = valid(() => nonEmptyString("readResource: the URI", uri instanceof URL ? String(uri) : uri));
    if (bad) return rejectWith(bad);
    const key = String(uri);
    // A fresh kept result (its ttlMs not run out, no update since) answers at once.
    const kept = live ? undefined : cache?.getRead(key);
    if (kept !== undefined) return Promise.resolve(structuredCopy(kept));
    const asked = Date.now();
    return parsed(request("readResource", { uri: key }, opts)).then((res) => {
      // A result of a retried request (inputResponses, requestState) comes
      // in an array (wasm/ops.go): never cached.
      if (Array.isArray(res)) return res[0];
      cache?.putRead(key, res, asked);
      return res;
    });
  }

  function complete(params, opts) {
    const bad = valid(() => {
      if (params === null || typeof params !== "object" || typeof params.ref !== "object" || typeof params.argument !== "object") {
        throw new TypeError("mcplive: complete needs { ref, argument }");
      }
    });
    if (bad) return rejectWith(bad);
    return parsed(request("complete", { params }, opts));
  }

  function setLoggingLevel(level, opts) {
    if (!LEVELS.includes(level)) {
      return rejectWith(new TypeError(`mcplive: setLoggingLevel: ${JSON.stringify(level)} is not a level (use ${LEVELS.join(", ")})`));
    }
    return request("setLoggingLevel", { level }, opts).then(() => {});
  }

  const ping = (opts) => request("ping", {}, opts).then(() => {});

  function refresh(kind, opts) {
    if (kind !== undefined && !KINDS.includes(kind)) {
      return rejectWith(new TypeError(`mcplive: refresh: unknown list kind ${JSON.stringify(kind)}`));
    }
    return request("refresh", { kind: kind ?? "" }, opts).then(() => {});
  }

  return { callTool, getPrompt, readResource, complete, setLoggingLevel, ping, refresh };
}

/** structuredCopy copies a kept JSON value, so the app may change what it gets. */
const structuredCopy = (v) => JSON.parse(JSON.stringify(v));
