package mcplive

import "github.com/mcplive/mcplive/internal/redact"

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

// shownURL is a URL as errors and log lines show it (redact.URL): no
// userinfo, and "?…" for its query and fragment.
func shownURL(u string) string { return redact.URL(u) }
