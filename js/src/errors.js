// Errors as the Go side describes them: {name, message, code?, data?}.
// Promise rejections from Go arrive as real Errors already; list errors
// arrive inside list messages and become Errors here, the same shape.

/**
 * toError builds an Error from a description; name is one of "RPCError",
 * "TimeoutError", "AbortError", "ClosedError", "UnsupportedError",
 * "ProtocolError" or "Error". RPC errors carry code and data.
 */
export function toError(info) {
  const err = new Error(info.message);
  err.name = info.name || "Error";
  if (info.code !== undefined) err.code = info.code;
  if (info.data !== undefined) err.data = info.data;
  return Object.freeze(err);
}

/** abortError is what an aborted call rejects with: the signal's reason. */
export function abortError(signal) {
  if (signal.reason instanceof Error) return signal.reason;
  const err = new Error(signal.reason === undefined ? "mcplive: the operation was aborted" : String(signal.reason));
  err.name = "AbortError";
  return err;
}
