package mcplive_test

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
)

func TestNewTransportBySchemes(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"ws://127.0.0.1:1/mcp", "wss://example.com/mcp", "WS://127.0.0.1:1/"} {
		tr, err := mcplive.NewTransport(url, nil)
		assertNoErr(t, err, "NewTransport "+url)
		ws, ok := tr.(*mcplive.WebSocketTransport)
		if !ok || ws.URL != url || ws.ReadLimit != mcplive.DefaultReadLimit || ws.DialTimeout != mcplive.DefaultDialTimeout {
			t.Errorf("NewTransport(%q) = %#v, want a WebSocketTransport with the default limits", url, tr)
		}
	}
	tr, err := mcplive.NewTransport("ws://127.0.0.1:1/", &mcplive.Options{ReadLimit: 99, DialTimeout: time.Second})
	assertNoErr(t, err, "NewTransport with options")
	if ws := tr.(*mcplive.WebSocketTransport); ws.ReadLimit != 99 || ws.DialTimeout != time.Second {
		t.Errorf("options did not reach the transport: %#v", ws)
	}
	for url, want := range map[string]string{
		"127.0.0.1:8080/mcp":  "has no scheme",
		"/mcp":                "has no scheme",
		"ftp://127.0.0.1/mcp": `unsupported scheme "ftp"`,
	} {
		if _, err := mcplive.NewTransport(url, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewTransport(%q) = %v, want an error saying %q", url, err, want)
		}
		// Connect refuses it the same way, at once, without dialing.
		if _, err := mcplive.Connect(testCtx(t), url, eraOptions(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Connect(%q) = %v, want an error saying %q", url, err, want)
		}
	}
}

// A refused dial is ErrDial, with what to check; not ErrClosed.
func TestDialRefusedIsErrDial(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	url := srv.URL
	srv.Close() // nothing listens there any more
	_, err := mcplive.Connect(testCtx(t), url, eraOptions(&mcplive.Options{Reconnect: mcplive.ReconnectOptions{Disabled: true}}))
	if !errors.Is(err, mcplive.ErrDial) || errors.Is(err, mcplive.ErrClosed) || !strings.Contains(err.Error(), "Origin") {
		t.Fatalf("Connect to a closed port = %v, want ErrDial naming the likely causes", err)
	}
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
