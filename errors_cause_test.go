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
