package mcplive_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

// ping is gone from this revision: the heartbeat is server/discover, and
// a server that stops answering it is given up.
func TestModernHeartbeat(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{}, 0)
	silent := make(chan struct{})
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "server/discover" && r.Conn == 1 {
			select {
			case <-silent:
				<-r.Done
				return scripted.ErrDrop
			default:
			}
		}
		return nil
	}
	o := modernOptions()
	o.HeartbeatInterval, o.HeartbeatTimeout = 10*time.Millisecond, 200*time.Millisecond
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	close(silent)
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	if srv.Count("ping") != 0 {
		t.Errorf("%d pings sent in %s", srv.Count("ping"), mcplive.ModernVersion)
	}
}

// A server that stops answering pings: the heartbeat notices and the
// client reconnects.
func TestLiveHeartbeatReconnects(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	pings := make(chan struct{}, 1)
	opened := liveOpenings()
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == heartbeatMethod() && r.Conn == 1 && !opened(r) {
			select {
			case pings <- struct{}{}:
			default:
			}
			return scripted.ErrDrop
		}
		return nil
	}
	o := liveOptions()
	o.HeartbeatInterval, o.HeartbeatTimeout = 10*time.Millisecond, liveHeartbeatTimeout
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	liveRecv(t, pings, "a heartbeat ping")
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	if n := srv.Conns(); n != 2 {
		t.Errorf("connections: %d, want 2", n)
	}
	liveWait(t, c.Tools(), "re-listed", liveHasKeys[mcplive.Tool]([]string{"a"}))
}

// A connection that goes silent during the re-list after a reconnect (it
// answered initialize, then nothing, pings included) is given up by the
// heartbeat, not after the request timeout; the client does not report
// ready on it.
func TestLiveHeartbeatDuringResync(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	opened := liveOpenings()
	srv.Hook = func(r *scripted.Request) error {
		if r.Conn == 2 && !opened(r) {
			return scripted.ErrDrop
		}
		return nil
	}
	o := liveOptions()
	o.RequestTimeout = time.Minute
	o.HeartbeatInterval, o.HeartbeatTimeout = 10*time.Millisecond, liveHeartbeatTimeout
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.DropConns()
	liveWait(t, c.Tools(), "re-listed on the third connection", liveHasKeys[mcplive.Tool]([]string{"a", "b"}))
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	if n := srv.Conns(); n != 3 {
		t.Errorf("connections: %d, want 3", n)
	}
}

// A server that answers ping with an error is alive: the heartbeat must
// not drop the connection (some servers do not implement ping).
func TestLiveHeartbeatErrorAnswerIsAlive(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	const want = 5
	pings := make(chan int, 64)
	opened := liveOpenings()
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == heartbeatMethod() && !opened(r) {
			pings <- r.Conn
			return errors.New("ping is not implemented here")
		}
		return nil
	}
	o := liveOptions()
	// Error answers come at once; the timeout only must not end a healthy
	// connection whose answer is slow to come back on a loaded machine.
	o.HeartbeatInterval, o.HeartbeatTimeout = 5*time.Millisecond, liveDeadline
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	for i := 0; i < want; i++ {
		if conn := liveRecv(t, pings, "ping"); conn != 1 {
			t.Fatalf("ping %d came on connection %d: the client dropped a connection whose server answered ping with an error", i+1, conn)
		}
	}
	if got := states.all(); len(got) != 0 {
		t.Errorf("state changes: %v, want none", got)
	}
}
