package mcplive

import "strings"

// HTTP status codes and methods the Streamable HTTP transport speaks, as
// net/http names them: the WebAssembly build does not link net/http (see
// Header).
const (
	methodGet    = "GET"
	methodPost   = "POST"
	methodDelete = "DELETE"

	statusAccepted         = 202
	statusNoContent        = 204
	statusBadRequest       = 400
	statusUnauthorized     = 401
	statusForbidden        = 403
	statusNotFound         = 404
	statusMethodNotAllowed = 405
	statusRequestTimeout   = 408
	statusTooManyRequests  = 429

	statusServiceUnavailable = 503
)

// shownURL is a URL as errors and log lines show it: without userinfo, and
// with its query and fragment replaced by "?…" (a query may carry a token:
// ws://host/mcp?access_token=…). The URL the requests go to is unchanged.
func shownURL(u string) string {
	rest := u
	scheme := ""
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
