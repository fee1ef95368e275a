// Package childserver runs an HTTP server as the child process of a test or
// benchmark driver: it listens on 127.0.0.1, prints one JSON line with its
// addresses on stdout, and stops when its stdin closes (the driver went
// away) or on SIGINT/SIGTERM.
package childserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Serve serves h on addr and prints {"http": …, "url": …, "ws": …/mcp} (url
// is http, for drivers that read that name). When told to stop it calls
// closeConns (to close WebSockets, which http.Server.Shutdown does not
// wait for), then shuts the server down.
func Serve(addr string, h http.Handler, closeConns func()) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	}()
	host := ln.Addr().String()
	line, _ := json.Marshal(map[string]string{"http": "http://" + host, "url": "http://" + host, "ws": "ws://" + host + "/mcp"})
	fmt.Println(string(line))

	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	closeConns()
	hs.Shutdown(ctx)
}
