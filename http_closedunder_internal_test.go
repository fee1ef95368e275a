//go:build !js

package mcplive

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// closeUnderRT sends every request through rt, to the server; the first
// request whose body holds one of the hit strings then fails as net/http
// fails a request whose kept-alive connection another request's
// cancellation closed under it (a race in net/http that no test can make
// happen on purpose): sent, and the server got it, but no answer.
// A request whose body holds one of the unwritten strings fails the same
// way the first time, before it is written (it never reaches the server).
type closeUnderRT struct {
	rt        roundTripper
	mu        sync.Mutex
	hits      map[string]int // hit string → how many requests held it
	sent      map[string]int // hit string → how many times it was sent
	unwritten map[string]bool
}

func (f *closeUnderRT) roundTrip(r *httpRequest) (*httpResponse, error) {
	f.mu.Lock()
	hit, written := false, true
	for s, n := range f.hits {
		if strings.Contains(string(r.Body), s) {
			f.hits[s]++
			if n == 0 {
				hit, written = true, !f.unwritten[s]
			}
			if written {
				f.sent[s]++
			}
		}
	}
	f.mu.Unlock()
	if hit && !written {
		return nil, &closedUnderError{err: context.Canceled}
	}
	resp, err := f.rt.roundTrip(r)
	if err != nil || !hit {
		return resp, err
	}
	resp.Body.Close()
	return nil, &closedUnderError{err: context.Canceled, written: true}
}

func (f *closeUnderRT) count(s string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[s]
}

// underTransport is an HTTPTransport whose connections send through a
// closeUnderRT.
type underTransport struct {
	t  *HTTPTransport
	rt *closeUnderRT
}

func (u underTransport) Connect(ctx context.Context) (Conn, error) {
	c, err := u.t.Connect(ctx)
	if err == nil {
		hc := c.(*httpConn)
		u.rt.rt = hc.rt
		hc.rt = u.rt
	}
	return c, err
}

// A request that net/http's race leaves without an answer ends neither the
// connection nor any other request: a notification is sent again, a list
// page is asked again, and a tool call (which may have run) fails alone
// with why.
func TestConnectionClosedUnderARequest(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := map[string]int{}
	srv := mcptest.New(t, &mcptest.Options{Setup: func(s *mcp.Server) {
		for _, name := range []string{"count", "again"} {
			s.AddTool(mcptest.Tool(name), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				mu.Lock()
				calls[name]++
				mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		}
	}})
	url := "http://" + strings.TrimPrefix(strings.TrimPrefix(srv.URL, "ws://"), "http://")
	const initialized, list, call, again = `"notifications/initialized"`, `"tools/list"`, `"name":"count"`, `"name":"again"`
	rt := &closeUnderRT{hits: map[string]int{initialized: 0, list: 0, call: 0, again: 0}, sent: map[string]int{}, unwritten: map[string]bool{again: true}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := NewSession(ctx, underTransport{&HTTPTransport{URL: url}, rt}, &Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	defer s.Close()
	if n := rt.count(initialized); n != 2 {
		t.Errorf("notifications/initialized sent %d times, want 2 (once more after the connection closed under it)", n)
	}

	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) != 2 {
		t.Fatalf("ListTools = %d tools, %v; want the 2 tools, asked again", len(tools), err)
	}
	if n := rt.count(list); n != 2 {
		t.Errorf("tools/list sent %d times, want 2", n)
	}

	_, err = s.CallTool(ctx, "count", nil, nil)
	if err == nil || !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "closed under the request by another request's cancellation") {
		t.Fatalf("CallTool on a connection closed under it: %v, want the failure told", err)
	}
	if _, err := s.CallTool(ctx, "count", nil, nil); err != nil {
		t.Fatalf("the next CallTool: %v", err)
	}
	// A call whose request was never written is sent again, and runs once.
	if _, err := s.CallTool(ctx, "again", nil, nil); err != nil {
		t.Fatalf("CallTool on a connection closed under it before the request was written: %v", err)
	}
	mu.Lock()
	n, m := calls["count"], calls["again"]
	mu.Unlock()
	if n != 2 || rt.count(call) != 2 {
		t.Errorf("the server ran the tool %d times for %d tools/call; want 2 and 2: a written call is never sent again", n, rt.count(call))
	}
	if m != 1 || rt.count(again) != 1 {
		t.Errorf("the unwritten call ran %d times, was written %d times; want 1 and 1", m, rt.count(again))
	}
	select {
	case <-s.Done():
		t.Fatalf("the connection ended: %v", s.Err())
	default:
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}
