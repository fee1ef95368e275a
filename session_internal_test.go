package mcplive

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mcplive/mcplive/internal/jsonrpc"
	"reflect"
	"testing"
	"time"

	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/scripted"
)

// A long-lived request (a listen stream) is not bounded by the request
// timeout, and its context still cancels it, with notifications/cancelled.
func TestRequestLong(t *testing.T) {
	srv, err := scripted.New("", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	arrived := make(chan string, 4)
	release := make(chan struct{})
	srv.Hook = func(r *Request) error {
		if r.Method != "tools/call" {
			return nil
		}
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(r.Params, &p)
		arrived <- p.Name
		if p.Name == "cancelled" {
			<-r.Done
			return ErrDrop
		}
		select { // held until the test releases it or the connection ends
		case <-release:
		case <-r.Done:
		}
		return nil
	}
	// The request timeout bounds the handshake and the pings below too:
	// long enough for each of those on a busy machine. The test's context
	// is no budget (go test -timeout is the hang detector).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := NewSession(ctx, &WebSocketTransport{URL: srv.URL}, &Options{RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	long := make(chan error, 1)
	go func() {
		_, err := s.requestLong(ctx, methods.CallTool, map[string]any{"name": "long"}, nil)
		long <- err
	}()
	if got := <-arrived; got != "long" {
		t.Fatalf("arrived %q", got)
	}
	// A plain request times out meanwhile: the request timeout has passed
	// while the long one is still open.
	if _, err := s.request(ctx, methods.CallTool, map[string]any{"name": "short"}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("plain request: %v, want ErrTimeout", err)
	}
	<-arrived // "short"
	select {
	case err := <-long:
		t.Fatalf("the long-lived request ended with the request timeout: %v", err)
	default:
	}
	close(release)
	if err := <-long; err != nil {
		t.Fatalf("long-lived request: %v", err)
	}

	// Cancelled by its context: the caller gets context.Canceled, the
	// server notifications/cancelled.
	lctx, lcancel := context.WithCancel(ctx)
	go func() {
		_, err := s.requestLong(lctx, methods.CallTool, map[string]any{"name": "cancelled"}, nil)
		long <- err
	}()
	<-arrived
	lcancel()
	if err := <-long; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled long-lived request: %v, want context.Canceled", err)
	}
	for srv.Count(methods.NotifyCancelled) == 0 {
		// The cancellation is written by its own goroutine: a ping after
		// it on the same connection arrives after it.
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

type Request = scripted.Request

var ErrDrop = scripted.ErrDrop

// TestMarshalListParams checks the hand-written encoding of list params
// (jsonrpc.MarshalMessage's cursorParams and listParams) against encoding/json, on
// cursors that need escaping, and the modern _meta with and without one.
func TestMarshalListParams(t *testing.T) {
	meta := json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)
	for _, cur := range []string{"", "c2", `a"b\c`, "é\u2028<&>", "\x01\x7f", "\xff\xfe", "tools/list"} {
		c := cur
		for _, tc := range []struct {
			params any
			want   any
		}{
			{cursorParams{c}, map[string]any{"cursor": c}},
			{listParams{cursor: &c, meta: meta}, map[string]any{"cursor": c, "_meta": meta}},
			{listParams{meta: meta}, map[string]any{"_meta": meta}},
		} {
			id := int64(7)
			got, err := jsonrpc.MarshalMessage(&id, c, tc.params, marshalJSON)
			if err != nil {
				t.Fatal(err)
			}
			wantB, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": c, "params": tc.want})
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%q: %s is not JSON: %v", c, got, err)
			}
			_ = json.Unmarshal(wantB, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%q: got %s, want %s", c, got, wantB)
			}
			if b, _ := json.Marshal(tc.params); !json.Valid(b) {
				t.Errorf("%q: json.Marshal of %T gives %s", c, tc.params, b)
			}
		}
	}
}
