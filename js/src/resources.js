// Resource subscriptions of one client: resources/subscribe through Go,
// then a fresh read of the resource on every notifications/resources/updated
// (Go calls the client's `updated` hook with the subscription id) and after
// every reconnect.

import { call, report } from "./store.js";
import { checkObject, nonEmptyString } from "./options.js";
import { namedError } from "./errors.js";

/**
 * createResourceSubscriptions serves client.subscribeResource.
 * request(op, args) runs a Go operation; readResource(uri) reads one;
 * closed() says whether the client is closed (or closing).
 */
export function createResourceSubscriptions({ request, readResource, closed }) {
  /** subscription id (Go's) → { read } */
  const subs = new Map();

  function subscribe(uriOrURL, fn, opts) {
    const uri = nonEmptyString("subscribeResource: the URI", uriOrURL instanceof URL ? String(uriOrURL) : uriOrURL);
    if (typeof fn !== "function") throw new TypeError("mcplive: subscribeResource needs a callback");
    const { onError: userOnError } = checkObject("subscribeResource options", opts, ["onError"]);
    if (userOnError !== undefined && typeof userOnError !== "function") throw new TypeError("mcplive: onError must be a function");
    if (closed()) throw namedError("ClosedError", "resources/subscribe: the client is closed");
    // A failure after close() is the close, not news: nobody to tell.
    const onError = (err) => {
      if (!stopped && !closed()) call(userOnError ?? report, err);
    };
    let subId = null;
    let stopped = false;
    let reading = false;
    let again = false;
    // read re-reads the resource after each update: one read at a time, and
    // updates during a read cost exactly one more (no stale content last).
    const read = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const result = await readResource(uri);
          if (!stopped) call(fn, result.contents, result);
        } while (again && !stopped);
      } catch (err) {
        onError(err);
      } finally {
        reading = false;
      }
    };
    request("subscribeResource", { uri }).then((s) => {
      subId = Number(s);
      if (stopped) {
        request("unsubscribeResource", { id: subId }).catch(() => {});
        return;
      }
      subs.set(subId, { read });
      read();
    }, onError);
    return () => {
      if (stopped) return;
      stopped = true;
      if (subId !== null) {
        subs.delete(subId);
        request("unsubscribeResource", { id: subId }).catch((err) => {
          if (err?.name !== "ClosedError") call(userOnError ?? report, err);
        });
      }
    };
  }

  return {
    subscribe,
    /** updated is Go's hook: the resource of subscription subId changed. */
    updated(subId) {
      subs.get(subId)?.read();
    },
    /** readAll reads every subscribed resource again (after a reconnect). */
    readAll() {
      for (const sub of subs.values()) sub.read();
    },
    clear() {
      subs.clear();
    },
  };
}
