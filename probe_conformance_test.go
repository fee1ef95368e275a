package mcplive_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcplive/mcplive"
)

// probeServer is a minimal Streamable HTTP server (JSON answers, no GET
// stream) whose answer to server/discover is discover(n), n counting the
// discover requests from 1; other methods: initialize as a legacy server,
// anything else an empty result.
func probeServer(t *testing.T, discover func(n int) (status int, body string)) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	var discovers, inits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		status, body := http.StatusOK, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`
		switch m.Method {
		case "server/discover":
			var res string
			status, res = discover(int(discovers.Add(1)))
			body = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,` + res + `}`
		case "initialize":
			inits.Add(1)
			body = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"legacy","version":"1"}}}`
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &discovers, &inits
}

// A legacy server that answers any method, server/discover too, with an
// empty result (the conformance suite's initialize and sse-retry servers do)
// is no 2026-07-28 server: a discover result must list supportedVersions.
func TestProbeEmptyDiscoverResultIsLegacy(t *testing.T) {
	onlyIn(t, "modern") // the run whose client probes (the legacy run pins 2025-11-25)
	srv, discovers, inits := probeServer(t, func(int) (int, string) { return http.StatusOK, `"result":{}` })
	o := liveOptions()
	o.Reconnect.Disabled = true
	c, err := mcplive.Connect(liveCtx(t), srv.URL, o)
	assertNoErr(t, err, "Connect")
	defer c.Close()
	assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "negotiated revision")
	assertEqual(t, int(discovers.Load()), 1, "discover requests")
	assertEqual(t, int(inits.Load()), 1, "initialize requests")
}

// A modern server that refuses the first request with
// UnsupportedProtocolVersion listing 2026-07-28 (the conformance suite's
// request-metadata server does) gets a second discover, in 2026-07-28.
func TestProbeRetriesAListedModernVersion(t *testing.T) {
	onlyIn(t, "modern")
	srv, discovers, inits := probeServer(t, func(n int) (int, string) {
		if n == 1 {
			return http.StatusBadRequest, `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}`
		}
		return http.StatusOK, `"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`
	})
	o := liveOptions()
	o.Reconnect.Disabled = true
	c, err := mcplive.Connect(liveCtx(t), srv.URL, o)
	assertNoErr(t, err, "Connect")
	defer c.Close()
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "negotiated revision")
	assertEqual(t, int(discovers.Load()), 2, "discover requests")
	assertEqual(t, int(inits.Load()), 0, "initialize requests")
}
