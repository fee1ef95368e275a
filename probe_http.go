package mcplive

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
)

// A ws:// URL whose server speaks Streamable HTTP only: the WebSocket
// handshake fails (in browsers without a reason), so after a failed
// handshake the client POSTs a server/discover request to the same path
// over http(s)://. An answer like an MCP endpoint's says where to connect
// instead; a request that fails says why the server is out of reach (in
// Node fetch gives the system's error code, such as ECONNREFUSED, which a
// failed WebSocket handshake does not).

// probeBound caps the probe's wait.
const probeBound = 3 * time.Second

// wsDialError is a failed WebSocket handshake with what the probe found.
type wsDialError struct {
	err     error  // the handshake's error (ErrDial)
	httpURL string // the http(s):// URL that answered like MCP, if any
	cause   error  // the probe's own failure, if any
}

func (e *wsDialError) Error() string {
	if e.httpURL != "" {
		return withoutAdvice(e.err) + "; the server answered a Streamable HTTP POST to " + e.httpURL +
			" as an MCP endpoint does: it may speak Streamable HTTP and not WebSocket; try " + e.httpURL
	}
	return e.err.Error()
}

func (e *wsDialError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.err, e.cause}
	}
	return []error{e.err}
}

// StreamableHTTPURL is the http(s):// URL that answered like an MCP
// endpoint where the ws(s):// handshake failed; "" when none did.
func (e *wsDialError) StreamableHTTPURL() string { return e.httpURL }

// httpURLFor maps ws:// to http:// and wss:// to https://.
func httpURLFor(wsURL string) string {
	switch {
	case strings.HasPrefix(wsURL, "ws://"):
		return "http://" + wsURL[len("ws://"):]
	case strings.HasPrefix(wsURL, "wss://"):
		return "https://" + wsURL[len("wss://"):]
	}
	return ""
}

// probeFailedDial probes wsURL's http(s):// twin after the handshake
// failed with dialErr, and returns dialErr with what it found.
func probeFailedDial(ctx context.Context, wsURL string, dialErr error) error {
	u := httpURLFor(wsURL)
	if u == "" {
		return dialErr
	}
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > probeBound {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, probeBound)
		defer cancel()
	}
	mcp, err := probeMCP(ctx, u)
	switch {
	case mcp:
		return &wsDialError{err: dialErr, httpURL: u}
	case err != nil && ctx.Err() == nil:
		return &wsDialError{err: dialErr, cause: err}
	}
	return dialErr
}

// probeMCP POSTs server/discover to u and reports whether the answer is
// an MCP endpoint's: a JSON-RPC message (a result or an error, in JSON or
// an event stream, whatever the status), or a session id. err is the
// request's failure, when it got no answer.
func probeMCP(ctx context.Context, u string) (bool, error) {
	rt, closeIdle := defaultRoundTripper()
	if closeIdle != nil {
		defer closeIdle()
	}
	h := Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(headerProtocolVersion, ModernVersion)
	h.Set(headerMethod, methods.Discover)
	req := &httpRequest{ctx: ctx, Method: methodPost, URL: u, Header: h,
		Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"` + methods.Discover + `","params":{"_meta":{"` + metaProtocolVersion + `":"` + ModernVersion + `"}}}`)}
	resp, err := rt.roundTrip(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.Header.Get(headerSessionID) != "" {
		return true, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		return jsonRPCErrorBody(body) != nil || isJSONRPCMessage(body), nil
	case "text/event-stream":
		for _, line := range strings.Split(string(body), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && isJSONRPCMessage([]byte(strings.TrimSpace(d))) {
				return true, nil
			}
		}
	}
	return false, nil
}

// isJSONRPCMessage reports a JSON-RPC 2.0 response or notification.
func isJSONRPCMessage(b []byte) bool {
	var v struct{ JSONRPC string }
	return jsontext.Decode(b, "body", []jsontext.Field{{Name: "jsonrpc", Dst: &v.JSONRPC}}) == nil && v.JSONRPC == "2.0"
}
