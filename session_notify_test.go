package mcplive_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/mcplive/mcplive"
)

// The callbacks may call back into the client: Close from a subscriber
// callback or a notification handler returns, and a tool called from a
// notification handler gets every progress notification before it
// returns. No goroutine is waited on by what runs on it (Close never waits
// on a callback; progress goes to the calling goroutine), so none of these
// can deadlock.

// A notification handler that closes its own session returns from Close;
// the call in flight fails with ErrClosed.
func TestSessionCloseFromNotificationHandler(t *testing.T) {
	t.Parallel()
	srv, _, _ := startSDKServer(t, nil)
	var s *mcplive.Session
	ready := make(chan struct{})
	closed := make(chan error, 1)
	var once sync.Once
	opts := &mcplive.Options{OnNotification: func(method string, _ json.RawMessage) {
		if method != "notifications/progress" {
			return
		}
		<-ready
		once.Do(func() { closed <- s.Close() })
	}}
	s = dialSession(t, srv.URL, opts)
	close(ready)
	_, err := s.CallTool(testCtx(t), "progress", nil, &mcplive.CallToolOptions{OnProgress: func(mcplive.Progress) {}})
	assertNoErr(t, liveRecv(t, closed, "Close from the notification handler returning"), "Close")
	if err != nil && !errors.Is(err, mcplive.ErrClosed) {
		t.Errorf("the call in flight: %v, want its result or ErrClosed", err)
	}
	liveRecv(t, s.Done(), "the session's end")
}

// A tool called from a notification handler (on the dispatcher, which
// the notifications it waits for would queue behind) gets every progress
// notification before it returns.
func TestCallToolProgressFromNotificationHandler(t *testing.T) {
	t.Parallel()
	srv, _, _ := startSDKServer(t, nil)
	var s *mcplive.Session
	ready := make(chan struct{})
	type outcome struct {
		n   int
		err error
	}
	inner := make(chan outcome, 1)
	var once sync.Once
	opts := &mcplive.Options{OnNotification: func(method string, _ json.RawMessage) {
		if method != "notifications/progress" {
			return
		}
		<-ready
		once.Do(func() {
			n := 0
			_, err := s.CallTool(testCtx(t), "progress", nil, &mcplive.CallToolOptions{OnProgress: func(mcplive.Progress) { n++ }})
			inner <- outcome{n, err}
		})
	}}
	s = dialSession(t, srv.URL, opts)
	close(ready)
	outer := 0
	_, err := s.CallTool(testCtx(t), "progress", nil, &mcplive.CallToolOptions{OnProgress: func(mcplive.Progress) { outer++ }})
	assertNoErr(t, err, "the outer CallTool")
	if outer != progressSteps {
		t.Errorf("outer call: %d progress notifications before it returned, want %d", outer, progressSteps)
	}
	got := liveRecv(t, inner, "the call from the notification handler")
	assertNoErr(t, got.err, "the CallTool from the handler")
	if got.n != progressSteps {
		t.Errorf("call from the handler: %d progress notifications before it returned, want %d", got.n, progressSteps)
	}
}
