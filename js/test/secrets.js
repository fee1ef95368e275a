// The secret scan of the mcplive/oauth tests (issue 45, security item 4):
// docs/oauth.md promises that no token, code, verifier or client secret is
// ever logged or put in an error. scanSecrets(), called once at the top of
// a test file, makes every test of that file check it:
//
// - what the test's authorization server issues is recorded as a secret:
//   every request and answer through fetch (globalThis.fetch, swapped per
//   test, and the fetch option of each oauth()/clientCredentials() made with
//   this module's wrappers): access, refresh and id tokens, client secrets
//   and registration access tokens in JSON answers; codes, PKCE verifiers,
//   refresh tokens, client secrets and assertions in form bodies; Bearer,
//   DPoP and Basic credentials and DPoP proofs in headers; codes in a
//   redirect's Location; plus the codes of every callback URL an authorize
//   option hands back, and the secrets in the factories' options
//   (clientSecret, privateKey, assertion, clients' clientSecret).
// - what the test shows is recorded: every OAuthError constructed (the
//   class's super constructor is swapped for one that records, per test),
//   every error assert.rejects/assert.throws see, every state of every auth
//   object the wrappers made (its error with its whole cause chain), every
//   console line, every write to process.stderr and every call of `logger`
//   (pass it where a test takes a logger).
// - after each test (afterEach), each recorded text (message, stack,
//   util.inspect at any depth with hidden fields, JSON) is searched for every
//   secret recorded so far in the file; a find fails that test, naming the
//   secret, where it was issued and where it showed.
//
// A secret of fewer than 4 characters is not searched for (it would match
// anything); short ones match as a whole word; long ones also by their first
// and last 20 characters (a truncated leak), a JWT by its payload and its
// signature. The PKCE verifier of a flow that fails before its code is
// exchanged never leaves the client, so it is not known here; the DPoP
// private key is never extractable (storage.js), so it cannot be serialised.
// SECRETS_DEBUG=1 prints, after each test, how many secrets are known and
// where what was searched came from.
import { beforeEach, afterEach, after } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { Buffer } from "node:buffer";
import { oauth as realOauth, clientCredentials as realClientCredentials, OAuthError } from "../src/oauth/index.js";

const MIN = 4;
const LONG = 24;
const WORD = "A-Za-z0-9_\\-";
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** patterns are the regular expressions a secret is searched for by (see the file's comment). */
function patterns(s) {
  if (s.length < MIN) return [];
  if (s.length < LONG) return [new RegExp(`(?<![${WORD}])${escape(s)}(?![${WORD}])`)];
  const parts = s.split(".");
  const pieces = parts.length === 3 && parts.every((p) => p.length >= 16) ? [s, parts[1], parts[2]] : [s, s.slice(0, 20), s.slice(-20)];
  return [...new Set(pieces)].map((p) => new RegExp(escape(p)));
}

/** show is every way a value may be shown: message, stack, inspect (any depth, hidden fields) and JSON. */
function show(v) {
  if (typeof v === "string") return v;
  const out = [inspect(v, { depth: Infinity, showHidden: true, maxArrayLength: Infinity, maxStringLength: Infinity, breakLength: Infinity })];
  if (v instanceof Error) out.push(String(v.message), String(v.stack));
  try {
    out.push(JSON.stringify(v) ?? "");
  } catch {
    // a cycle: inspect showed it
  }
  return out.join("\n");
}

/**
 * Scan holds the secrets of a test file and what its current test showed.
 * check() returns what was found; scanSecrets() fails a test on a find.
 */
export class Scan {
  constructor() {
    /** secret → where it was issued */
    this.secrets = new Map();
    /** [where, value] shown by the current test */
    this.shown = [];
  }

  /** secret records a value as a secret (where: what issued it). */
  secret(value, where = "the test") {
    if (typeof value !== "string" || value.length < MIN || this.secrets.has(value)) return;
    this.secrets.set(value, where);
  }

  /** show records what a test showed (an error, a state, a log line). */
  show(where, value) {
    if (value === undefined || value === null) return;
    this.shown.push([where, value]);
  }

  /** check searches what was shown for every secret: [{ secret, issued, where, text }]. */
  check() {
    const found = [];
    const all = [...this.secrets].map(([s, issued]) => ({ s, issued, res: patterns(s) }));
    for (const [where, value] of this.shown) {
      const text = show(value);
      for (const { s, issued, res } of all) {
        const re = res.find((r) => r.test(text));
        if (!re) continue;
        const i = text.search(re);
        found.push({ secret: s, issued, where, text: text.slice(Math.max(0, i - 200), i + s.length + 200) });
      }
    }
    return found;
  }

  /** fromURL records the secrets of a URL's query and fragment (a callback's code, a token in a query). */
  fromURL(url, where) {
    let u;
    try {
      u = new URL(String(url));
    } catch {
      // not a URL (a callback an authorize option got wrong): its query, if any
      const q = String(url);
      this.fromForm(new URLSearchParams(q.includes("?") ? q.slice(q.indexOf("?") + 1) : q), where);
      return;
    }
    this.fromForm(u.searchParams, where);
    if (u.hash.length > 1) this.fromForm(new URLSearchParams(u.hash.slice(1)), where);
    if (u.password) this.secret(decodeURIComponent(u.password), `${where} (userinfo)`);
  }

  fromForm(params, where) {
    for (const k of ["code", "code_verifier", "refresh_token", "access_token", "id_token", "client_secret", "client_assertion", "assertion", "token", "subject_token", "actor_token"]) {
      for (const v of params.getAll(k)) this.secret(v, `${where}: ${k}`);
    }
  }

  fromJSON(doc, where) {
    if (doc === null || typeof doc !== "object") return;
    for (const k of ["access_token", "refresh_token", "id_token", "client_secret", "registration_access_token", "device_code"]) {
      if (typeof doc[k] === "string") this.secret(doc[k], `${where}: ${k}`);
    }
  }

  fromHeaders(headers, where) {
    const auth = headers.get("authorization");
    const m = auth?.match(/^(\w+)\s+(.+)$/);
    if (m && /^basic$/i.test(m[1])) {
      this.secret(m[2], `${where}: Basic credentials`);
      const plain = Buffer.from(m[2], "base64").toString("utf8");
      const i = plain.indexOf(":");
      if (i >= 0) {
        const raw = plain.slice(i + 1);
        this.secret(raw, `${where}: Basic client secret`);
        try {
          this.secret(decodeURIComponent(raw.replace(/\+/g, " ")), `${where}: Basic client secret`);
        } catch {
          // not form-encoded
        }
      }
    } else if (m) {
      this.secret(m[2], `${where}: ${m[1]} token`);
    }
    const proof = headers.get("dpop");
    if (proof) this.secret(proof, `${where}: DPoP proof`);
  }

  /** fromOptions records the secrets an app hands oauth() or clientCredentials(). */
  fromOptions(options, where) {
    if (!options || typeof options !== "object") return;
    if (typeof options.clientSecret === "string") this.secret(options.clientSecret, `${where}: clientSecret`);
    if (typeof options.assertion === "string") this.secret(options.assertion, `${where}: assertion`);
    if (typeof options.privateKey === "string") {
      this.secret(options.privateKey, `${where}: privateKey`);
      for (const line of options.privateKey.split(/\r?\n/)) if (!line.startsWith("-----")) this.secret(line.trim(), `${where}: privateKey (a line of its PEM)`);
    }
    if (options.clients && typeof options.clients === "object") {
      for (const [issuer, c] of Object.entries(options.clients)) if (typeof c?.clientSecret === "string") this.secret(c.clientSecret, `${where}: clients[${issuer}].clientSecret`);
    }
  }
}

/** The scan of the running test (null outside scanSecrets' tests). */
let current = null;
/** The file's scan: its secrets outlive each test (a secret of one test in a later test's log is a leak too). */
const file = new Scan();
/** Where a recorded thing goes: the current test's scan, else the file's (what comes after a test, or before the first). */
const scan = () => current ?? file;

/** currentScan is the running test's scan (for the scan's own test). */
export const currentScan = () => current;

/** secret records a value the test made as a secret (one that reached the client another way than fetch). */
export const secret = (value, where) => scan().secret(value, where);

/** record adds a value the test saw (an error it caught itself) to what is searched. */
export const record = (value, where = "recorded by the test") => scan().show(where, value);

/** logger records every call (pass it as connect's or loopback()'s logger). */
export const logger = Object.freeze(
  Object.fromEntries(["debug", "info", "warn", "error"].map((level) => [level, (msg, attrs) => scan().show(`logger.${level}`, attrs === undefined ? msg : [msg, attrs])])),
);

/**
 * recordingFetch wraps a fetch: the secrets of each request and of its
 * answer are recorded; the request and the answer are passed on as they are.
 * @param {typeof fetch} f
 * @returns {typeof fetch}
 */
export function recordingFetch(f) {
  if (typeof f !== "function" || f.recording) return f;
  const wrapped = async function (input, init) {
    const s = scan();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
    const where = `fetch ${init?.method ?? input?.method ?? "GET"} ${url}`;
    try {
      if (url) s.fromURL(url, `${where} (request)`);
      s.fromHeaders(new Headers(init?.headers ?? (typeof input === "object" ? input?.headers : undefined)), `${where} (request)`);
      const body = init?.body;
      const text = typeof body === "string" ? body : body instanceof URLSearchParams ? body.toString() : body instanceof Uint8Array || body instanceof ArrayBuffer ? Buffer.from(body).toString("utf8") : null;
      if (text !== null && !/^\s*[[{]/.test(text)) s.fromForm(new URLSearchParams(text), `${where} (request)`);
    } catch {
      // a request this does not understand: passed on as it is
    }
    const res = await f.call(this, input, init);
    try {
      const loc = res.headers.get("location");
      if (loc) s.fromURL(new URL(loc, url).href, `${where} (Location)`);
      if (/json/i.test(res.headers.get("content-type") ?? "") && Number(res.headers.get("content-length") ?? 0) <= 1 << 20) {
        s.fromJSON(JSON.parse(await res.clone().text()), `${where} (answer)`);
      }
    } catch {
      // not JSON, or its body failed: the caller sees that itself
    }
    return res;
  };
  wrapped.recording = true;
  return wrapped;
}

/** recordingAuthorize wraps an authorize option: the code of each callback URL it hands back is recorded. */
function recordingAuthorize(a) {
  if (typeof a !== "function") return a;
  return async (...args) => {
    const cb = await a(...args);
    if (typeof cb === "string" || cb instanceof URL) scan().fromURL(cb, "the callback URL an authorize option gave");
    return cb;
  };
}

/** watch records every state of an auth object (their errors with their causes). */
function watch(auth, what) {
  let n = 0;
  auth.subscribe((state) => scan().show(`${what} state #${++n} (${state.status})`, state));
  return auth;
}

/** oauth is mcplive/oauth's oauth(), whose secrets, states and fetch the scan records. */
export function oauth(options) {
  scan().fromOptions(options, "oauth() options");
  const o = options && typeof options === "object" ? { ...options } : options;
  if (o && typeof o === "object") {
    if ("fetch" in o) o.fetch = recordingFetch(o.fetch);
    if ("authorize" in o) o.authorize = recordingAuthorize(o.authorize);
  }
  return watch(realOauth(o), "oauth()");
}

/** clientCredentials is mcplive/oauth's clientCredentials(), whose secrets, states and fetch the scan records. */
export function clientCredentials(options) {
  scan().fromOptions(options, "clientCredentials() options");
  const o = options && typeof options === "object" ? { ...options } : options;
  if (o && typeof o === "object" && "fetch" in o) o.fetch = recordingFetch(o.fetch);
  if (o && typeof o === "object" && typeof o.assertion === "function") {
    const give = o.assertion;
    o.assertion = async (...args) => {
      const jwt = await give(...args);
      scan().secret(jwt, "the assertion callback");
      return jwt;
    };
  }
  return watch(realClientCredentials(o), "clientCredentials()");
}

/**
 * scanSecrets makes every test of the calling file scan what it showed for
 * the secrets its servers issued (see the file's comment).
 */
export function scanSecrets() {
  const saved = {};
  beforeEach(() => {
    current = new Scan();
    current.secrets = file.secrets;
    // What came between tests (a late state, a log line) is this test's to answer for.
    current.shown.push(...file.shown.splice(0));
    const s = current;
    saved.fetch = globalThis.fetch;
    globalThis.fetch = recordingFetch(saved.fetch);
    saved.console = {};
    for (const m of ["log", "info", "warn", "error", "debug", "trace"]) {
      const orig = (saved.console[m] = console[m]);
      console[m] = function (...args) {
        scan().show(`console.${m}`, args.length === 1 ? args[0] : args);
        return orig.apply(this, args);
      };
    }
    const write = (saved.stderr = process.stderr.write);
    process.stderr.write = function (chunk, ...rest) {
      scan().show("process.stderr", typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return write.call(this, chunk, ...rest);
    };
    saved.rejects = assert.rejects;
    saved.throws = assert.throws;
    const seen = (where) => (err) => {
      scan().show(where, err);
      throw err;
    };
    assert.rejects = function (p, ...rest) {
      const observed = typeof p === "function" ? () => {
        const r = p();
        return r && typeof r.then === "function" ? r.then(undefined, seen("assert.rejects")) : r;
      } : p && typeof p.then === "function" ? p.then(undefined, seen("assert.rejects")) : p;
      return saved.rejects.call(this, observed, ...rest);
    };
    assert.throws = function (fn, ...rest) {
      const observed = typeof fn === "function" ? () => {
        try {
          return fn();
        } catch (err) {
          seen("assert.throws")(err);
        }
      } : fn;
      return saved.throws.call(this, observed, ...rest);
    };
    // Every OAuthError made: its super constructor records it.
    saved.superclass = Object.getPrototypeOf(OAuthError);
    const Base = saved.superclass;
    Object.setPrototypeOf(
      OAuthError,
      class extends Base {
        constructor(...args) {
          super(...args);
          s.show("an OAuthError (constructed)", this);
        }
      },
    );
  });
  afterEach(() => {
    Object.setPrototypeOf(OAuthError, saved.superclass);
    assert.rejects = saved.rejects;
    assert.throws = saved.throws;
    process.stderr.write = saved.stderr;
    Object.assign(console, saved.console);
    globalThis.fetch = saved.fetch;
    const s = current;
    current = null;
    if (process.env.SECRETS_DEBUG) saved.console.log(`secrets.js: ${s.secrets.size} secrets, ${s.shown.length} shown: ${[...new Set(s.shown.map(([w]) => w.replace(/ #\d+.*/, "")))].join(", ")}\n  ${[...s.secrets].slice(-8).map(([k, v]) => `${k.slice(0, 30)} (${v})`).join("\n  ")}`);
    fail(s.check());
  });
  // What was shown after the last test (a late state, a log line).
  after(() => fail(file.check()));
}

/** fail throws an error listing the finds, if any. */
function fail(found) {
  if (!found.length) return;
  const lines = found.slice(0, 10).map((f) => `- ${JSON.stringify(f.secret)} (issued by ${f.issued}) in ${f.where}:\n    …${f.text.replace(/\n/g, "\n    ")}…`);
  throw new Error(`a secret the test's servers issued is shown (docs/oauth.md: tokens are never logged), ${found.length} find(s):\n${lines.join("\n")}`);
}

/**
 * scanBrowserContext puts a playwright browser context under the scan:
 * what it sends and gets is recorded as secrets (the codes of every URL it
 * requests, the token endpoint's form fields code, code_verifier and
 * refresh_token and its Authorization and DPoP headers, the tokens of the
 * token endpoint's answers), and what its pages show is searched (every
 * console line and page error). It returns settle(): await it before the
 * test ends (the answers' bodies are read asynchronously).
 */
export function scanBrowserContext(context, issuer) {
  const pending = new Set();
  const tokenEndpoint = `${issuer}/token`;
  // Where a page's line came from, without its URL's query (a callback's code).
  const label = (p) => {
    try {
      const u = new URL(p.url());
      return `${u.origin}${u.pathname}`;
    } catch {
      return "a page";
    }
  };
  context.on("request", (req) => {
    let url;
    try {
      url = new URL(req.url());
    } catch {
      return;
    }
    for (const [k, v] of url.searchParams) if (k === "code") secret(v, "a URL's code (Chromium)");
    if (url.origin + url.pathname !== tokenEndpoint) return;
    for (const [k, v] of new URLSearchParams(req.postData() ?? "")) if (["code", "code_verifier", "refresh_token"].includes(k)) secret(v, `the token request's ${k} (Chromium)`);
    for (const [k, v] of Object.entries(req.headers())) if (k === "authorization" || k === "dpop") secret(v.replace(/^\S+ /, ""), `the token request's ${k} header (Chromium)`);
  });
  context.on("response", (res) => {
    if (!res.url().startsWith(tokenEndpoint) || res.status() !== 200) return;
    const p = res.json().then(
      (j) => ["access_token", "refresh_token", "id_token"].forEach((k) => secret(j?.[k], `the token endpoint's ${k} (Chromium)`)),
      () => {},
    );
    pending.add(p);
    p.finally(() => pending.delete(p));
  });
  context.on("page", (p) => {
    p.on("console", (m) => record(m.text(), `console.${m.type()} of ${label(p)}`));
    p.on("pageerror", (err) => record(err, `pageerror of ${label(p)}`));
  });
  return async () => {
    await Promise.all(pending);
  };
}
