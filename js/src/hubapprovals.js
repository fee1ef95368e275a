// The hub's approvals of tools (hub.js: approve, revoke; hubsegments.js
// shows each tool's approval): where they are kept (the approvals option:
// memoryApprovals, localStorageApprovals, or the app's own), under which
// key, and how a kept one compares with a tool's fingerprint now.

import { sha256 } from "./hash.js";

/** memoryApprovals keeps approvals in this realm only (the default). */
export function memoryApprovals() {
  const m = new Map();
  return Object.freeze({ get: (k) => m.get(k), set: (k, v) => void m.set(k, v), delete: (k) => void m.delete(k) });
}

/** localStorageApprovals keeps approvals in the origin's localStorage, under prefix + key. */
export function localStorageApprovals({ prefix = "mcplive-approval:" } = {}) {
  const area = () => {
    if (!globalThis.localStorage) throw new Error("mcplive: localStorage is not available in this runtime");
    return globalThis.localStorage;
  };
  return Object.freeze({
    get: (k) => area().getItem(prefix + k) ?? undefined,
    set: (k, v) => area().setItem(prefix + k, v),
    delete: (k) => area().removeItem(prefix + k),
  });
}

/**
 * createApprovalBook reads and writes the approvals of the hub's tools in
 * approvals (the hub's option, checked already). of(srv, raw, fp) is a
 * tool's approval ("none", "approved", or "changed" when the approved
 * fingerprint is not fp); approve and revoke write one.
 */
export function createApprovalBook(approvals, logger) {
  // Keyed by a hash of the server URL and the tool name: a URL may carry
  // credentials (a query's token, userinfo), which storage must not keep.
  const approvalKey = (url, name) => sha256(`mcplive-approval\n${url}\n${name}`);
  // The key of approvals kept before (the raw URL and name): moved to the hashed key on first read.
  const legacyKey = (url, name) => `${url} ${name}`;
  function approvalOf(srv, raw, fp) {
    let v;
    try {
      v = approvals.get(approvalKey(srv.url, raw.name));
      if (v === undefined || v === null) {
        const old = approvals.get(legacyKey(srv.url, raw.name));
        if (old !== undefined && old !== null) {
          approvals.set(approvalKey(srv.url, raw.name), old);
          approvals.delete(legacyKey(srv.url, raw.name));
          v = old;
        }
      }
    } catch (err) {
      logger?.warn?.("mcplive: hub: reading an approval failed", { server: srv.id, tool: raw.name, err });
    }
    if (v === undefined || v === null) return "none";
    return v === fp ? "approved" : "changed";
  }
  return Object.freeze({
    of: approvalOf,
    approve: (url, name, fp) => approvals.set(approvalKey(url, name), fp),
    revoke(url, name) {
      approvals.delete(approvalKey(url, name));
      approvals.delete(legacyKey(url, name));
    },
  });
}
