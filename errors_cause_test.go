package mcplive_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
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
			c, err := mcplive.Connect(testCtx(t), url, o)
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
	c, err := mcplive.Connect(testCtx(t), srv.URL+"/mcp", o)
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
