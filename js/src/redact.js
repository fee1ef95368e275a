// redactURL: a URL as logs and errors show it, without what may be a
// credential (userinfo, the query, the fragment).

/** redactURL drops the userinfo, query and fragment of a URL (they may carry credentials). */
export function redactURL(url) {
  try {
    const u = new URL(String(url));
    const q = u.search ? "?…" : "";
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.href + q;
  } catch {
    return "(not a URL)";
  }
}
