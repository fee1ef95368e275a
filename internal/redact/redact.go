// Package redact shows URLs in errors and log lines without the parts that
// may carry a credential. The root package and the binding share it.
package redact

import "strings"

// URL is u as errors and log lines show it: without userinfo, and with its
// query and fragment replaced by "?…" (a query may carry a token:
// ws://host/mcp?access_token=…). The URL the requests go to is unchanged.
func URL(u string) string {
	rest, scheme := u, ""
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme, rest = rest[:i+3], rest[i+3:]
	}
	hostEnd := strings.IndexAny(rest, "/?#")
	if hostEnd < 0 {
		hostEnd = len(rest)
	}
	if at := strings.LastIndex(rest[:hostEnd], "@"); at >= 0 {
		rest = rest[at+1:]
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i] + "?…"
	}
	return scheme + rest
}
