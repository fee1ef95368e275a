package mcplive_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Errors that point at the cause (issue 33).

// silentListener accepts TCP connections and never answers: a server that
// is starting, or a proxy that holds connections.
func silentListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln
}

// A server that accepts and never answers fails the same way over both
// transports: ErrTimeout and ErrDial, naming the dial timeout (over
// Streamable HTTP the probe and the retry with initialize share it).
func TestSilentServerTimesOutAlikeOverBothTransports(t *testing.T) {
	t.Parallel()
	ln := silentListener(t)
	for _, scheme := range []string{"ws", "http"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			url := scheme + "://" + ln.Addr().String() + "/mcp"
			o := &mcplive.Options{DialTimeout: 300 * time.Millisecond}
			o.Reconnect.Disabled = true
			c, err := mcplive.Connect(testCtx(t), url, eraOptions(o))
			if err == nil {
				c.Close()
				t.Fatal("connected to a silent server")
			}
			if !errors.Is(err, mcplive.ErrTimeout) || !errors.Is(err, mcplive.ErrDial) {
				t.Errorf("error %q: want ErrTimeout and ErrDial", err)
			}
			if !strings.Contains(err.Error(), "no answer within 300ms") {
				t.Errorf("error %q does not name the dial timeout", err)
			}
		})
	}
}

// An HTTP error with an HTML page quotes its title, not its markup.
func TestHTTPErrorQuotesTheHTMLTitle(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The upstream server is down.</p></body></html>")
	}))
	defer srv.Close()
	o := &mcplive.Options{}
	o.Reconnect.Disabled = true
	c, err := mcplive.Connect(testCtx(t), srv.URL+"/mcp", eraOptions(o))
	if err == nil {
		c.Close()
		t.Fatal("connected to an error page")
	}
	var herr *mcplive.HTTPError
	if !errors.As(err, &herr) || herr.Body != "502 Bad Gateway" {
		t.Fatalf("error %q: want an HTTPError with the body %q", err, "502 Bad Gateway")
	}
	if strings.Contains(err.Error(), "<") {
		t.Errorf("error %q quotes markup", err)
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

// A ws:// URL that reaches a Streamable HTTP server: the error says that
// the server may speak Streamable HTTP, and which URL to try.
func TestWebSocketURLOfAStreamableHTTPServer(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "http-only", Version: "1.0.0"}, nil)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	httpURL := srv.URL + "/mcp"
	wsURL := "ws" + strings.TrimPrefix(httpURL, "http")
	o := &mcplive.Options{}
	o.Reconnect.Disabled = true
	c, err := mcplive.Connect(testCtx(t), wsURL, eraOptions(o))
	if err == nil {
		c.Close()
		t.Fatal("connected over WebSocket to an HTTP-only server")
	}
	if !errors.Is(err, mcplive.ErrDial) {
		t.Errorf("error %q: want ErrDial", err)
	}
	if want := "may speak Streamable HTTP and not WebSocket; try " + httpURL; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}

	// An HTTP server that is not MCP: no such hint.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"hello":"world"}`)
	}))
	defer plain.Close()
	_, err = mcplive.Connect(testCtx(t), "ws"+strings.TrimPrefix(plain.URL, "http")+"/mcp", eraOptions(o))
	if err == nil || strings.Contains(err.Error(), "Streamable HTTP") {
		t.Errorf("a server that is not MCP: %v", err)
	}
}
