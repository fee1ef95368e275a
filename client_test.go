package mcplive_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
)

// TestCloseLeavesListsStale: after Close the lists keep their items, marked
// stale, and calls fail with ErrClosed.
func TestCloseLeavesListsStale(t *testing.T) {
	t.Parallel()
	srv := mcptest.New(t, &mcptest.Options{Setup: liveSDKSetup})
	c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(nil))
	assertNoErr(t, err, "Connect")
	n := len(c.Tools().Snapshot().Items)
	c.Close()
	if s := c.Tools().Snapshot(); s.Status != mcplive.StatusStale || len(s.Items) != n || n == 0 {
		t.Fatalf("after Close: %s with %d items, want stale with %d", s.Status, len(s.Items), n)
	}
	if _, err := c.CallTool(testCtx(t), "tool00", nil, nil); !errors.Is(err, mcplive.ErrClosed) {
		t.Fatalf("call after Close: %v, want ErrClosed", err)
	}
}

// A plain Close of a connected client logs nothing at all, in either era
// (in 2026-07-28 the listen stream it ends is not news); a fallback to
// initialize is debug.
func TestQuietClose(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	srv.Set("tools", scripted.Tool("a"))
	logs := &levelLog{}
	o := liveOptions()
	o.Logger = logs
	c := liveConnect(t, srv.URL, o)
	c.Close()
	for _, r := range logs.all() {
		if !strings.HasPrefix(r, "DEBUG ") {
			t.Errorf("logged %q", r)
		}
	}
}

// A server that stays away: one short warning per reconnect attempt,
// numbered from 1, its cause in it; the advice only in the first.
func TestReconnectWarningsShortAndNumbered(t *testing.T) {
	t.Parallel()
	srv, err := scripted.New("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if testEra == "modern" {
		srv.Modern(scripted.ModernOptions{})
	}
	logs := &levelLog{}
	o := liveOptions()
	o.Logger = logs
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	srv.Close()
	states.await(t, mcplive.StateReconnecting)
	deadline := time.Now().Add(liveDeadline)
	var warns []string
	for time.Now().Before(deadline) {
		warns = warns[:0]
		for _, r := range logs.all() {
			if strings.Contains(r, "reconnect attempt") {
				warns = append(warns, r)
			}
		}
		if len(warns) >= 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(warns) < 3 {
		t.Fatalf("warnings: %q, want 3 or more", warns)
	}
	const advice = "is the server up"
	for i, w := range warns[:3] {
		if !strings.HasPrefix(w, fmt.Sprintf("WARN mcplive: reconnect attempt %d failed: ", i+1)) {
			t.Errorf("warning %d: %q", i+1, w)
		}
		if !strings.Contains(w, "refused") {
			t.Errorf("warning %d has no cause: %q", i+1, w)
		}
		if got := strings.Count(w, advice); i == 0 && got != 1 || i > 0 && got != 0 {
			t.Errorf("warning %d: the advice %d times: %q", i+1, got, w)
		}
	}
}

// levelLog records what a client logs, with the level.
type levelLog struct {
	mu   sync.Mutex
	recs []string
}

func (l *levelLog) add(level, msg string, args []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, level+" "+msg+" "+fmt.Sprint(args...))
}

func (l *levelLog) Debug(msg string, args ...any) { l.add("DEBUG", msg, args) }
func (l *levelLog) Info(msg string, args ...any)  { l.add("INFO", msg, args) }
func (l *levelLog) Warn(msg string, args ...any)  { l.add("WARN", msg, args) }
func (l *levelLog) Error(msg string, args ...any) { l.add("ERROR", msg, args) }

func (l *levelLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.recs...)
}
