// Errors: the Go side describes an error as {name, message, code?, data?}
// (worded for JS by wasm/errors.go), both as a rejection and inside list
// messages; they become Errors here, in JS, so their stack is JS frames.

/**
 * toError builds an Error from a description; name is one of "RPCError",
 * "TimeoutError", "AbortError", "ClosedError", "DialError",
 * "AuthError", "UnsupportedError", "ProtocolError", "TypeError" or "Error".
 * RPC errors carry code and data; an AuthError status, resourceMetadata,
 * scope, wwwAuthenticate, error and errorDescription. A "TypeError" is a real TypeError.
 */
export function toError(info) {
  // The system's error under a failed request (Node: code "ECONNREFUSED").
  const opts = info.cause ? { cause: Object.assign(new Error(info.cause.message), { code: info.cause.code }) } : undefined;
  const err = info.name === "TypeError" ? new TypeError(info.message, opts) : new Error(info.message, opts);
  if (info.name && info.name !== "TypeError") err.name = info.name;
  if (info.code !== undefined) err.code = info.code;
  if (info.data !== undefined) err.data = info.data;
  // An AuthError's: the HTTP status and the WWW-Authenticate challenge (its
  // Bearer parameters: error is e.g. "invalid_token" or "insufficient_scope").
  for (const k of ["status", "resourceMetadata", "scope", "wwwAuthenticate", "error", "errorDescription", "dpopNonce"]) if (info[k] !== undefined) err[k] = info[k];
  return Object.freeze(err);
}

/**
 * fromGo turns what a Go Promise rejected with into an Error: a JSON
 * description (see toError); anything else passes through.
 */
export function fromGo(reason) {
  if (typeof reason !== "string") return reason;
  try {
    return toError(JSON.parse(reason));
  } catch {
    return new Error(reason);
  }
}

/** namedError is an Error with a name, as the Go side's errors have. */
export function namedError(name, message) {
  const err = new Error(message);
  err.name = name;
  return err;
}

/** abortError is what an aborted call rejects with: the signal's reason. */
export function abortError(signal) {
  if (signal.reason instanceof Error) return signal.reason;
  return namedError("AbortError", signal.reason === undefined ? "the operation was aborted" : String(signal.reason));
}
