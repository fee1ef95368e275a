package mcplive_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

// The spec asks a client to cache a server's era ("Clients SHOULD cache
// the result", versioning.mdx) and to probe again "if the cached
// assumption later fails". A Client remembers what its last session found:
// after a drop, a legacy server is opened with initialize, without the
// server/discover probe. These tests run where the client probes by
// default (the modern run), against legacy scripted servers.

// A reconnect to a server that refused server/discover does not ask again.
func TestEraLegacyRememberedOnReconnect(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Set("tools", scripted.Tool("a"))
	c := liveConnect(t, srv.URL, nil)
	assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "negotiated revision")
	states := liveWatchStates(t, c)
	for round := 2; round <= 3; round++ {
		srv.Set("tools", scripted.Tool("a"), scripted.Tool(strings.Repeat("b", round)))
		srv.DropConns()
		want := []mcplive.State{}
		for range round - 1 {
			want = append(want, mcplive.StateReconnecting, mcplive.StateReady)
		}
		states.await(t, want...)
		liveWait(t, c.Tools(), "the list of the new session", liveHasKeys[mcplive.Tool]([]string{"a", strings.Repeat("b", round)}))
		assertEqual(t, srv.Count("initialize"), round, "initialize requests")
		assertEqual(t, srv.Count("server/discover"), 1, "discover requests (the first opening's only)")
		assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "negotiated revision")
	}
}

// A legacy server that leaves server/discover unanswered costs the probe's
// timeout once, at the first opening, and not on every reconnect.
func TestEraSilentProbeNotRepeated(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "server/discover" {
			return scripted.ErrDrop // no answer, as a server that ignores it
		}
		return nil
	}
	o := liveOptions()
	// The probe's bound at the first opening (the whole wait here); a
	// reconnect's first attempt gets min(1 s, this) for its initialize.
	o.DialTimeout = 2 * time.Second
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("server/discover"), 1, "discover requests at the first opening")
	states := liveWatchStates(t, c)
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	assertEqual(t, srv.Count("server/discover"), 1, "discover requests after a reconnect")
	assertEqual(t, srv.Count("initialize"), 2, "initialize requests")
}

// A server that answered initialize and then moved on to 2026-07-28 only
// (it refuses initialize) is probed again, and the client follows it.
func TestEraReprobedWhenInitializeRefused(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Set("tools", scripted.Tool("a"))
	logs := &liveLog{}
	o := liveOptions()
	o.Logger = logs.Logger()
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "negotiated revision")
	states := liveWatchStates(t, c)

	srv.Modern(scripted.ModernOptions{}) // initialize: method not found from now on
	srv.Set("tools", scripted.Tool("a"), scripted.Tool("b"))
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	liveWait(t, c.Tools(), "the list of the modern session", liveHasKeys[mcplive.Tool]([]string{"a", "b"}))
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "revision after the server moved on")
	assertEqual(t, srv.Count("initialize"), 2, "initialize requests (the first opening, then the refused one)")
	assertEqual(t, srv.Count("server/discover"), 2, "discover requests (the first opening, then the new probe)")
	if got := logs.find("refused initialize", "probing"); len(got) != 1 {
		t.Errorf("log of the new probe: got %q, want one record", got)
	}

	// Now modern: a reconnect opens with server/discover alone.
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady, mcplive.StateReconnecting, mcplive.StateReady)
	assertEqual(t, srv.Count("initialize"), 2, "initialize requests after a modern reconnect")
	assertEqual(t, srv.Count("server/discover"), 3, "discover requests after a modern reconnect")
}

// A server reached that does not open the session (here: it leaves the
// reconnect's initialize unanswered) makes the Client forget the era: the
// attempt after it probes again.
func TestEraForgottenAfterAFailedOpening(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "initialize" && r.Conn == 2 {
			return scripted.ErrDrop
		}
		return nil
	}
	o := liveOptions()
	// Bounds a reconnect's opening: the unanswered attempt ends after 1 s,
	// the next one has 2 s for its probe and initialize.
	o.DialTimeout = 2 * time.Second
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	// Connection 1: the probe, then initialize. Connection 2: initialize
	// (the remembered era), unanswered: the attempt fails. Connection 3:
	// the probe again, then initialize.
	assertEqual(t, srv.Count("server/discover"), 2, "discover requests")
	assertEqual(t, srv.Count("initialize"), 3, "initialize requests")
	assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "negotiated revision")
}

// A legacy server that ignores server/discover, reached again after the
// era was forgotten: the probe takes at most half of a reconnect's bound,
// and the retry with initialize on a new connection has the rest (with
// the whole bound spent on the probe, no reconnect to such a server could
// succeed).
func TestEraSilentProbeWithinAReconnect(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "server/discover" || (r.Method == "initialize" && r.Conn == 3) {
			return scripted.ErrDrop
		}
		return nil
	}
	o := liveOptions()
	// The first probe's bound; a reconnect's attempts get 1 s, then 2 s:
	// the second one's probe waits 1 s, its initialize has the other 1 s,
	// as much as any reconnect's first attempt.
	o.DialTimeout = 4 * time.Second
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	// 1: the probe, unanswered; 2: initialize (the first session). 3:
	// initialize (the remembered era), unanswered: the attempt fails. 4:
	// the probe again, unanswered within half the bound; 5: initialize.
	assertEqual(t, srv.Count("server/discover"), 2, "discover requests")
	assertEqual(t, srv.Count("initialize"), 3, "initialize requests")
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

// The ways a server answers the modern probe, and what the client makes of
// each.
func TestModernProbeRefusals(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	for _, tc := range []struct {
		name    string
		answer  string // the error answer to server/discover; "" leaves the scripted server's own
		pin     string
		version string // the revision the client ends up with; "" for an error
		errText string
	}{
		{name: "method-not-found", answer: `{"code":-32601,"message":"method not found"}`, version: mcplive.ProtocolVersion},
		{name: "unsupported-legacy-listed", answer: `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}`, version: mcplive.ProtocolVersion},
		{name: "unsupported-other-modern", answer: `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2099-01-01"]}}`, errText: "2099-01-01"},
		{name: "missing-capability", answer: `{"code":-32021,"message":"missing capability"}`, errText: "missing capability"},
		{name: "pinned-modern-legacy-server", answer: `{"code":-32601,"message":"method not found"}`, pin: mcplive.ModernVersion, errText: "method not found"},
		{name: "pinned-legacy", pin: mcplive.ProtocolVersion, version: mcplive.ProtocolVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := scripted.New("", 0) // a legacy server, whatever this run's era
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			if tc.answer != "" {
				srv.Hook = func(r *scripted.Request) error {
					if r.Method == "server/discover" {
						return scripted.RawError(json.RawMessage(tc.answer))
					}
					return nil
				}
			}
			o := liveOptions()
			o.ProtocolVersion = tc.pin
			o.Reconnect.Disabled = true
			c, err := mcplive.Connect(liveCtx(t), srv.URL, o)
			if tc.version == "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("Connect = %v, want an error mentioning %q", err, tc.errText)
				}
				return
			}
			assertNoErr(t, err, "Connect")
			defer c.Close()
			assertEqual(t, c.ProtocolVersion(), tc.version, "negotiated revision")
			wantDiscover := 1
			if tc.pin == mcplive.ProtocolVersion {
				wantDiscover = 0
			}
			assertEqual(t, srv.Count("server/discover"), wantDiscover, "discover requests")
			assertEqual(t, srv.Count("initialize"), 1, "initialize requests")
		})
	}
}

// A legacy revision hint opens with initialize at once; a hint that is no
// longer true (the server moved on) still connects.
func TestSeedRevisionHint(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := legacyServer(t)
	srv.Set("tools", scripted.Tool("a"))
	o := liveOptions()
	o.RevisionHint = "2025-11-25"
	liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("server/discover"), 0, "discover requests with a legacy hint")
	assertEqual(t, srv.Count("initialize"), 1, "initialize requests")

	modern := modernScripted(t, scripted.ModernOptions{}, 0)
	o = liveOptions()
	o.RevisionHint = "2025-11-25"
	c := liveConnect(t, modern.URL, o)
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "revision of a server that moved on")
}

// legacyServer starts a scripted server of the legacy era, whatever this
// run's era, and closes it when the test ends.
func legacyServer(t *testing.T) *scripted.Server {
	t.Helper()
	srv, err := scripted.New("", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

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

// The kept server/discover result (Options.Prior) opens the first session
// without asking first; server/discover goes out beside the first
// requests, and its answer (a new serverInfo here) is what Connect
// returns with.
func TestPriorAdoptedAndAskedBeside(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{}, 0)
	// The second connection's server/discover is answered only once its
	// tools/list has come: a client that waited for that answer before
	// listing would never list.
	var second atomic.Bool
	listed := make(chan struct{})
	var once sync.Once
	srv.Hook = func(r *scripted.Request) error {
		if !second.Load() {
			return nil
		}
		switch r.Method {
		case "tools/list":
			once.Do(func() { close(listed) })
		case "server/discover":
			select {
			case <-listed:
			case <-r.Done:
				return scripted.ErrDrop
			case <-time.After(liveDeadline):
				return errors.New("tools/list never came while server/discover was unanswered")
			}
		}
		return nil
	}
	first := liveConnect(t, srv.URL, nil)
	kept := first.InitializeResult().Raw
	first.Close()

	second.Store(true)
	srv.SetVersion("2.0.0")
	o := liveOptions()
	o.Prior = &mcplive.Prior{Discover: kept, Received: time.Now()}
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("server/discover"), 2, "discover requests (the first connection's, then one beside the first requests)")
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "revision")
	assertEqual(t, c.ServerInfo().Version, "2.0.0", "serverInfo (the server's answer, not the kept one)")
	if s := c.Tools().Snapshot(); !liveSameKeys(liveKeys(s.Items), []string{"a", "b"}) || s.Status != mcplive.StatusReady {
		t.Fatalf("tools: %s", liveDescribe(s))
	}
}

// A kept result still fresh by its ttlMs is not asked for again.
func TestPriorFreshNotAsked(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{TTLMs: 60000}, 0)
	first := liveConnect(t, srv.URL, nil)
	kept := first.InitializeResult().Raw
	first.Close()

	o := liveOptions()
	o.Prior = &mcplive.Prior{Discover: kept, Received: time.Now().Add(-time.Second)}
	c := liveConnect(t, srv.URL, o)
	assertEqual(t, srv.Count("server/discover"), 1, "discover requests (only the first connection's)")
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "revision")
	assertEqual(t, string(c.InitializeResult().Raw), string(kept), "the session's discover result")
	liveWait(t, c.Prompts(), "the prompts", liveHasKeys[mcplive.Prompt]([]string{"p"}))

	// Expired, or received "in the future" (a clock set back): asked.
	for i, at := range []time.Time{time.Now().Add(-2 * time.Minute), time.Now().Add(time.Hour)} {
		o := liveOptions()
		o.Prior = &mcplive.Prior{Discover: kept, Received: at}
		liveConnect(t, srv.URL, o)
		assertEqual(t, srv.Count("server/discover"), 2+i, "discover requests with a kept result that is not fresh")
	}
}

// A server whose capabilities are no longer the kept ones is opened again:
// a kind it offers now is listed, not left unsupported.
func TestPriorCapabilitiesChanged(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{}, 0)
	srv.SetCaps(`{"tools":{"listChanged":true}}`)
	first := liveConnect(t, srv.URL, nil)
	kept := first.InitializeResult().Raw
	assertEqual(t, first.Prompts().Snapshot().Status, mcplive.StatusUnsupported, "prompts of the first connection")
	first.Close()

	srv.SetCaps(scripted.DefaultCaps)
	o := liveOptions()
	o.Prior = &mcplive.Prior{Discover: kept, Received: time.Now()}
	c := liveConnect(t, srv.URL, o)
	if p := c.Prompts().Snapshot(); !liveSameKeys(liveKeys(p.Items), []string{"p"}) || p.Status != mcplive.StatusReady {
		t.Fatalf("prompts, offered now: %s", liveDescribe(p))
	}
	if c.Capabilities() == nil || !strings.Contains(string(c.Capabilities()), `"prompts"`) {
		t.Fatalf("capabilities: %s", c.Capabilities())
	}
	assertEqual(t, srv.Count("server/discover"), 3, "discover requests (first, beside, the probe of the new opening)")
}

// A kept result of a server that speaks only 2025-11-25 now: the session
// is opened again with the probe, and falls back to initialize.
func TestPriorServerMovedToLegacy(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	modern := modernScripted(t, scripted.ModernOptions{}, 0)
	first := liveConnect(t, modern.URL, nil)
	kept := first.InitializeResult().Raw
	first.Close()

	legacy := legacyServer(t)
	legacy.Set("tools", scripted.Tool("l"))
	o := liveOptions()
	o.Prior = &mcplive.Prior{Discover: kept, Received: time.Now()}
	c := liveConnect(t, legacy.URL, o)
	assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "revision")
	liveWait(t, c.Tools(), "the legacy server's tools", liveHasKeys[mcplive.Tool]([]string{"l"}))
	assertEqual(t, legacy.Count("initialize"), 1, "initialize requests")
}

// A Prior is not used where it cannot be: a legacy revision hint (the
// hint opens with initialize), and a kept result that is not a
// DiscoverResult of 2026-07-28 (probed as without one).
func TestPriorIgnored(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	legacy := legacyServer(t)
	o := liveOptions()
	o.RevisionHint = mcplive.ProtocolVersion
	o.Prior = &mcplive.Prior{Discover: json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`), Received: time.Now()}
	c := liveConnect(t, legacy.URL, o)
	assertEqual(t, c.ProtocolVersion(), mcplive.ProtocolVersion, "revision with a legacy hint")
	assertEqual(t, legacy.Count("server/discover"), 0, "discover requests with a legacy hint")

	srv := modernScripted(t, scripted.ModernOptions{TTLMs: 60000}, 0)
	for i, junk := range []string{`{"supportedVersions":["2099-01-01"],"ttlMs":60000}`, `[]`, `{"capabilities":{},"ttlMs":60000}`} {
		o := liveOptions()
		o.Prior = &mcplive.Prior{Discover: json.RawMessage(junk), Received: time.Now()}
		c := liveConnect(t, srv.URL, o)
		assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "revision with a kept "+junk)
		assertEqual(t, srv.Count("server/discover"), i+1, "discover requests with a kept "+junk)
	}
}
