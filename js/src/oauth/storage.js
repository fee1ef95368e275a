// Token storage adapters: { get(key), set(key, value), delete(key) }, each
// async, values plain JSON objects. Memory is the default; the others keep
// tokens across reloads (sessionStorage: this tab; localStorage and
// IndexedDB: every tab of the origin, which is what lets two tabs share one
// refresh). Records are keyed by issuer and resource (see tokens.js).

/** memoryStorage keeps records in this realm only (gone on reload). */
export function memoryStorage() {
  const m = new Map();
  return Object.freeze({
    async get(key) {
      const v = m.get(key);
      return v === undefined ? undefined : JSON.parse(v);
    },
    async set(key, value) {
      m.set(key, JSON.stringify(value));
    },
    async delete(key) {
      m.delete(key);
    },
  });
}

function webStorage(name, pick) {
  const area = () => {
    const s = pick();
    if (!s) throw new Error(`mcplive/oauth: ${name} is not available in this runtime`);
    return s;
  };
  const prefix = "mcplive-oauth:";
  return Object.freeze({
    async get(key) {
      const v = area().getItem(prefix + key);
      if (v === null) return undefined;
      try {
        return JSON.parse(v);
      } catch {
        return undefined; // a corrupt record is no record
      }
    },
    async set(key, value) {
      area().setItem(prefix + key, JSON.stringify(value));
    },
    async delete(key) {
      area().removeItem(prefix + key);
    },
  });
}

/** sessionStorageAdapter keeps records in this tab's sessionStorage. */
export const sessionStorageAdapter = () => webStorage("sessionStorage", () => globalThis.sessionStorage);

/** localStorageAdapter keeps records in the origin's localStorage (shared by its tabs). */
export const localStorageAdapter = () => webStorage("localStorage", () => globalThis.localStorage);

/**
 * indexedDBStorage keeps records in an IndexedDB database of the origin
 * (shared by its tabs and workers).
 * @param {{ name?: string }} [options]
 */
export function indexedDBStorage({ name = "mcplive-oauth" } = {}) {
  let db;
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      if (typeof indexedDB === "undefined") {
        reject(new Error("mcplive/oauth: IndexedDB is not available in this runtime"));
        return;
      }
      const req = indexedDB.open(name, 1);
      req.onupgradeneeded = () => req.result.createObjectStore("records");
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    }));
  const run = async (mode, fn) => {
    const d = await open();
    return new Promise((resolve, reject) => {
      const tx = d.transaction("records", mode);
      const r = fn(tx.objectStore("records"));
      tx.oncomplete = () => resolve(r.result);
      tx.onerror = tx.onabort = () => reject(tx.error ?? r.error);
    });
  };
  return Object.freeze({
    get: (key) => run("readonly", (s) => s.get(key)),
    set: async (key, value) => {
      await run("readwrite", (s) => s.put(value, key));
    },
    delete: async (key) => {
      await run("readwrite", (s) => s.delete(key));
    },
  });
}

/** checkStorage accepts an adapter with async get, set and delete. */
export function checkStorage(s) {
  if (s === null || typeof s !== "object" || !["get", "set", "delete"].every((m) => typeof s[m] === "function")) {
    throw new TypeError("mcplive/oauth: storage must be an object with get(key), set(key, value) and delete(key) (memoryStorage(), sessionStorageAdapter(), localStorageAdapter(), indexedDBStorage())");
  }
  return s;
}

/**
 * dpopKeyPair is the DPoP key pair of id: ECDSA P-256, its private key not
 * extractable (it never leaves WebCrypto). In a browser it is kept in
 * IndexedDB (a CryptoKey is stored as it is, never as bytes), so a reload
 * keeps the tokens bound to it usable; elsewhere it lives in memory.
 * fresh: a new pair replaces the kept one (a sign-out).
 */
export async function dpopKeyPair(id, { fresh = false } = {}) {
  const generate = () => globalThis.crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const inPage = typeof indexedDB !== "undefined" && (typeof process !== "object" || typeof process.versions?.node !== "string");
  if (!inPage) return generate();
  const db = indexedDBStorage({ name: "mcplive-oauth-dpop" });
  const key = `dpop:${id}`;
  let kp = fresh ? undefined : await db.get(key).catch(() => undefined);
  if (!kp?.privateKey || !kp?.publicKey) {
    kp = await generate();
    await db.set(key, kp).catch(() => {}); // not kept: this page's tokens are bound to a key of this page only
  }
  return kp;
}
