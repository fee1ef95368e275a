package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one stdio server of the bridge's configuration: the command,
// its arguments and its environment, fixed at start (no request can choose
// or change them).
type server struct {
	Name    string            `json:"-"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Dir     string            `json:"cwd"`
}

func (s *server) String() string {
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// child is one running process of a server, serving one session.
type child struct {
	srv    *server
	conn   mcp.Connection
	stderr *tailWriter
	pid    int
}

// startChild starts the server's process through go-sdk's CommandTransport,
// which closes its stdin, waits, then sends SIGTERM and SIGKILL on Close:
// no zombie is left.
func startChild(ctx context.Context, srv *server, log *slog.Logger) (*child, error) {
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Dir = srv.Dir
	cmd.Env = os.Environ()
	for k, v := range srv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	tail := &tailWriter{max: 20, log: log.With("server", srv.Name)}
	cmd.Stderr = tail
	tr := &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	conn, err := tr.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not start %q: %w", srv.String(), err)
	}
	return &child{srv: srv, conn: conn, stderr: tail, pid: cmd.Process.Pid}, nil
}

// childError is what a session's page hears when its child ended.
func (c *child) childError(readErr, exitErr error) error {
	what := "the server process exited"
	if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, io.ErrClosedPipe) {
		what = "the server process wrote something that is not JSON-RPC (" + readErr.Error() + "); it was stopped"
	}
	msg := "mcplive-bridge: " + what
	if exitErr != nil {
		msg += " (" + exitErr.Error() + ")"
	}
	if lines := c.stderr.lines(); len(lines) > 0 {
		msg += "; its last stderr: " + strings.Join(lines, " | ")
	}
	return errors.New(msg)
}

// pump carries every message between the page (a WebSocket, or a
// Streamable HTTP session's relay) and its child, unchanged, in both
// directions, until one side ends. It answers the page's requests that
// were still waiting when the child ended with a JSON-RPC error naming the
// cause, closes both sides and returns that cause (nil when the page
// ended the session).
func pump(ctx context.Context, page mcp.Connection, c *child, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	pending := map[jsonrpc.ID]bool{}

	pageDone := make(chan error, 1)
	stdinBroken := make(chan error, 1) // the child's stdin refused a message: it is ending
	go func() {
		for {
			msg, err := page.Read(ctx)
			if err != nil {
				pageDone <- err
				return
			}
			if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
				mu.Lock()
				pending[r.ID] = true
				mu.Unlock()
			}
			if err := c.conn.Write(ctx, msg); err != nil {
				stdinBroken <- err
				return
			}
		}
	}()
	childDone := make(chan error, 1)
	go func() {
		for {
			msg, err := c.conn.Read(ctx)
			if err != nil {
				childDone <- err
				return
			}
			if r, ok := msg.(*jsonrpc.Response); ok {
				mu.Lock()
				delete(pending, r.ID)
				mu.Unlock()
			}
			if err := page.Write(ctx, msg); err != nil {
				// A Streamable HTTP session refuses a message for a
				// stream that is gone (the page stopped listening):
				// that message is lost for the page, the session
				// goes on. A WebSocket write error ends the socket,
				// which ends the page's Read.
				log.Debug("mcplive-bridge: a message could not reach the page", "error", err)
			}
		}
	}()

	var readErr error
	select {
	case err := <-pageDone:
		log.Info("session ended by the page", "reason", err)
		cancel()
		exitErr := c.conn.Close()
		if exitErr != nil {
			log.Info("server process stopped", "pid", c.pid, "exit", exitErr)
		}
		return nil
	case readErr = <-childDone:
	case <-stdinBroken:
		// Its standard output says how it ended, if it does so soon.
		select {
		case readErr = <-childDone:
		case <-time.After(2 * time.Second):
			readErr = io.EOF
		}
	}
	exitErr := c.conn.Close() // waits for the exit: no zombie
	cause := c.childError(readErr, exitErr)
	log.Warn("server process ended its session", "pid", c.pid, "error", cause)
	mu.Lock()
	ids := make([]jsonrpc.ID, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	clear(pending)
	mu.Unlock()
	for _, id := range ids {
		resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32000, Message: cause.Error()}}
		if err := page.Write(context.WithoutCancel(ctx), resp); err != nil {
			log.Debug("mcplive-bridge: could not answer a pending request", "error", err)
		}
	}
	return cause
}

// tailWriter keeps the last lines a child wrote on stderr, for the error
// that ends its session, and logs each line.
type tailWriter struct {
	mu      sync.Mutex
	max     int
	partial []byte
	last    []string
	log     *slog.Logger
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.add(string(bytes.TrimRight(t.partial[:i], "\r")))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4096 { // a line without end: keep its start
		t.add(string(t.partial[:4096]))
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

func (t *tailWriter) add(line string) {
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	t.log.Debug("server stderr", "line", line)
	t.last = append(t.last, line)
	if len(t.last) > t.max {
		t.last = t.last[len(t.last)-t.max:]
	}
}

// lines returns the last few lines (at most 3, as a session's error must
// stay readable; the log has them all).
func (t *tailWriter) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	all := t.last
	if len(t.partial) > 0 {
		all = append(append([]string(nil), all...), string(t.partial))
	}
	if len(all) > 3 {
		all = all[len(all)-3:]
	}
	return append([]string(nil), all...)
}
