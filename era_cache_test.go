package mcplive_test

import (
	"strings"
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
