// mcplive/oauth/node: the user's step of the flow in Node (RFC 8252, native
// apps): a loopback redirect server that opens the system browser, or a
// prompt where the user pastes the callback URL. Each returns the authorize
// option of oauth(): (authorizationUrl, { signal }) => callbackUrl.

import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline/promises";
import { OAuthError } from "./errors.js";
import { isLoopback } from "./http.js";

/** redirectOf reads the redirect URI the authorization URL carries. */
function redirectOf(authorizationUrl) {
  const r = new URL(authorizationUrl).searchParams.get("redirect_uri");
  if (!r) throw new TypeError("mcplive/oauth: the authorization URL has no redirect_uri");
  return new URL(r);
}

/**
 * openBrowser opens url in the system's browser without a shell (the URL
 * is one argument, never parsed by a shell).
 */
export function openBrowser(url) {
  const [cmd, args] =
    process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["rundll32", ["url.dll,FileProtocolHandler", url]] : ["xdg-open", [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: "ignore", detached: true, shell: false });
    child.once("error", (err) => reject(new Error(`mcplive/oauth: could not open a browser (${cmd}: ${err.message}); open this URL yourself: ${url}`)));
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}

const PAGE = (title, text) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:3em"><h1 style="font-size:1.3em">${title}</h1><p>${text}</p></body>`;

/**
 * loopback: the redirect URI is http://127.0.0.1:<port>/<path> (or
 * localhost); a server listens there for the one callback, the system
 * browser (or options.open) shows the authorization page, and the callback
 * URL is returned. The server closes after the callback, on abort and on
 * timeout (default 5 minutes). It tells logger.info (default: a line on
 * stderr) where it waits, and the URL to open if no browser opened.
 * @param {{ open?: (url: string) => void | Promise<void>, timeoutMs?: number, logger?: { info?: (msg: string) => void } }} [options]
 */
export function loopback({ open = openBrowser, timeoutMs = 5 * 60_000, logger = { info: (m) => process.stderr.write(`${m}\n`) } } = {}) {
  return (authorizationUrl, { signal } = {}) => {
    const ru = redirectOf(authorizationUrl);
    if (ru.protocol !== "http:" || !isLoopback(ru.hostname) || !ru.port) {
      throw new TypeError(`mcplive/oauth: loopback() needs a redirectUri like http://127.0.0.1:8976/callback, got ${ru.href}`);
    }
    const expectedState = new URL(authorizationUrl).searchParams.get("state");
    return new Promise((resolve, reject) => {
      let timer;
      const server = createServer((req, res) => {
        const u = new URL(req.url ?? "/", ru.origin);
        if (req.method !== "GET" || u.pathname !== ru.pathname) {
          res.writeHead(404, { "content-type": "text/plain" }).end("not found");
          return;
        }
        if (u.searchParams.get("state") !== expectedState) {
          // Not this flow's callback: leave the wait on.
          res.writeHead(400, { "content-type": "text/html; charset=utf-8" }).end(PAGE("Unknown sign-in", "This callback does not belong to the sign-in in progress."));
          return;
        }
        const failed = u.searchParams.has("error");
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(PAGE(failed ? "Sign-in failed" : "Signed in", failed ? "You can close this window and try again." : "You can close this window and go back to the app."));
        finish(null, `${ru.origin}${ru.pathname}${u.search}`);
      });
      const onAbort = () => finish(signal.reason ?? new OAuthError("aborted", "the sign-in was aborted"));
      const finish = (err, url) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        server.close();
        server.closeAllConnections?.();
        if (err) reject(err);
        else resolve(url);
      };
      server.once("error", (err) => finish(new Error(`mcplive/oauth: the loopback redirect server could not listen on ${ru.host}: ${err.message}`)));
      server.listen(Number(ru.port), ru.hostname === "localhost" ? "127.0.0.1" : ru.hostname.replace(/^\[|\]$/g, ""), async () => {
        timer = setTimeout(() => finish(new OAuthError("timeout", `no sign-in callback at ${ru.origin}${ru.pathname} within ${Math.round(timeoutMs / 1000)} s (loopback({ timeoutMs }) sets the wait)`, { step: "authorization" })), timeoutMs);
        try {
          logger?.info?.(`mcplive/oauth: waiting up to ${Math.round(timeoutMs / 1000)} s for the sign-in callback at ${ru.origin}${ru.pathname}; if no browser opens, open this URL: ${authorizationUrl}`);
        } catch {
          // a logger that throws does not stop the sign-in
        }
        try {
          await open(authorizationUrl);
        } catch (err) {
          finish(err);
        }
      });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  };
}

/**
 * paste: prints the authorization URL and reads the URL the browser was
 * sent to afterwards (for a machine without a browser, or a redirect URI
 * nothing listens on).
 * @param {{ input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream }} [options]
 */
export function paste({ input = process.stdin, output = process.stderr } = {}) {
  return async (authorizationUrl, { signal } = {}) => {
    const rl = createInterface({ input, output, terminal: false });
    try {
      output.write(`Open this URL in a browser and sign in:\n\n  ${authorizationUrl}\n\n`);
      const line = await rl.question("Then paste the URL the browser ended on: ", { signal });
      return line.trim();
    } finally {
      rl.close();
    }
  };
}
