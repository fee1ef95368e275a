/**
 * The user's step of the authorization in Node: `loopback()`, `paste()`.
 * @module mcplive/oauth/node
 */
// mcplive/oauth/node: the user's step of the flow in Node (RFC 8252).

import type { OAuthOptions } from "./oauth.js";

type Authorize = NonNullable<OAuthOptions["authorize"]>;

/**
 * loopback: the authorize option for a redirectUri like
 * http://127.0.0.1:8976/callback. A server listens there for the one
 * callback while the system browser (or open) shows the authorization page.
 * It waits timeoutMs (default 300000: 5 minutes), and tells logger.info
 * (default: a line on stderr) the address it waits on and the URL to open.
 */
export function loopback(options?: { open?: (url: string) => void | Promise<void>; timeoutMs?: number; logger?: { info?: (message: string) => void } }): Authorize;

/** paste: prints the authorization URL and reads the callback URL the user pastes. */
export function paste(options?: {
  /** Where the pasted line comes from (default process.stdin): a Node readable stream. */
  input?: { on(event: string, listener: (...args: any[]) => void): unknown };
  /** Where the URL and the prompt go (default process.stderr). */
  output?: { write(chunk: string): unknown };
}): Authorize;

/** openBrowser opens a URL in the system's browser, without a shell. */
export function openBrowser(url: string): Promise<void>;
