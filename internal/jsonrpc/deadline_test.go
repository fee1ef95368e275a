package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive/internal/methods"
)

// chanConn is a Conn whose peer is the test: what the client writes comes
// out of sent, what the test puts in recv the client reads.
type chanConn struct {
	sent   chan []byte
	recv   chan []byte
	closed chan struct{}
	once   sync.Once
	// block, when not nil, makes Write wait for it or for the end of its
	// context (a POST whose answer never starts); hold makes it wait for
	// hold only (a write that finishes whatever its context says).
	block, hold chan struct{}
}

func newChanConn() *chanConn {
	return &chanConn{sent: make(chan []byte, 16), recv: make(chan []byte, 16), closed: make(chan struct{})}
}

func (c *chanConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.recv:
		return b, nil
	case <-c.closed:
		return nil, ErrClosed
	}
}

func (c *chanConn) Write(ctx context.Context, msg []byte) error {
	if c.block != nil {
		select {
		case <-c.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if c.hold != nil {
		<-c.hold
	}
	select {
	case c.sent <- msg:
		return nil
	case <-c.closed:
		return ErrClosed
	}
}

func (c *chanConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *chanConn) expect(t *testing.T, method string) *Message {
	t.Helper()
	select {
	case b := <-c.sent:
		m, _, err := Decode(b)
		if err != nil || m.Method != method {
			t.Fatalf("sent %s (%v), want %s", b, err, method)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatalf("nothing sent, want %s", method)
		return nil
	}
}

func goCall(c *Connection, ctx context.Context, method string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, method, nil)
		done <- err
	}()
	return done
}

// Requests that share one timer: each fails with its own deadline, never
// before it; one answered in time is not failed; the timer is re-armed for
// the request left and disarmed when none is; each timed-out request is
// cancelled at the server, and a late answer is dropped.
func TestRequestTimeoutSweep(t *testing.T) {
	const timeout = 300 * time.Millisecond
	conn := newChanConn()
	c := New(conn, Options{Log: nopLogger{}, Notify: func(*Message) {}, Timeout: timeout, Marshal: json.Marshal})
	defer c.Close()
	ctx := context.Background()

	startA := time.Now()
	a := goCall(c, ctx, "a")
	ma := conn.expect(t, "a")
	time.Sleep(timeout / 3)
	startB := time.Now()
	b := goCall(c, ctx, "b")
	mb := conn.expect(t, "b")
	answered := goCall(c, ctx, "answered")
	mc := conn.expect(t, "answered")
	conn.recv <- []byte(`{"jsonrpc":"2.0","id":` + string(mc.ID) + `,"result":{}}`)
	if err := <-answered; err != nil {
		t.Fatalf("answered request: %v", err)
	}

	if err := <-a; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(startA); d < timeout {
		t.Fatalf("a failed after %v, before its timeout of %v", d, timeout)
	}
	// a's cancellation (a late timer on a loaded machine may have taken b
	// in the same sweep, and sent b's first: the two are checked together
	// below).
	n1 := conn.expect(t, methods.NotifyCancelled)
	// While b waits, the timer is armed for it (a late timer on a loaded
	// machine may have taken b in the same sweep as a: nothing to check then).
	c.mu.Lock()
	waiting, armed := len(c.pending), c.sweepAt != 0
	c.mu.Unlock()
	if waiting > 0 && !armed {
		t.Error("b waits, and the timer is not armed for it")
	}
	if err := <-b; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(startB); d < timeout {
		t.Fatalf("b failed after %v, before its timeout of %v", d, timeout)
	}
	n2 := conn.expect(t, methods.NotifyCancelled)
	cancelled := func(m *Message) string { return `{"reason":"timed out","requestId":` + string(m.ID) + `}` }
	if got := []string{string(n1.Params), string(n2.Params)}; !slices.Contains(got, cancelled(ma)) || !slices.Contains(got, cancelled(mb)) {
		t.Errorf("cancelled %v, want a's %s and b's %s", got, cancelled(ma), cancelled(mb))
	}

	c.mu.Lock()
	left, at := len(c.pending), c.sweepAt
	c.mu.Unlock()
	if left != 0 || at != 0 {
		t.Errorf("after the timeouts: %d pending, timer at %v; want none and disarmed", left, at)
	}
	// A late answer is dropped; the connection carries on.
	conn.recv <- []byte(`{"jsonrpc":"2.0","id":` + string(ma.ID) + `,"result":{}}`)
	d := goCall(c, ctx, "d")
	md := conn.expect(t, "d")
	conn.recv <- []byte(`{"jsonrpc":"2.0","id":` + string(md.ID) + `,"result":{}}`)
	if err := <-d; err != nil {
		t.Fatalf("request after the timeouts: %v", err)
	}
}

// A write that does not finish (a POST whose answer never starts) ends with
// the request timeout; a long-lived request (CallWith) has none; the end of
// the connection fails what is pending and stops the timer.
func TestRequestTimeoutWrite(t *testing.T) {
	const timeout = 100 * time.Millisecond
	conn := newChanConn()
	conn.block = make(chan struct{})
	c := New(conn, Options{Log: nopLogger{}, Notify: func(*Message) {}, Timeout: timeout, Marshal: json.Marshal})
	start := time.Now()
	if err := <-goCall(c, context.Background(), "stuck"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stuck write: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d < timeout {
		t.Fatalf("the write ended after %v, before the timeout of %v", d, timeout)
	}
	close(conn.block)
	select {
	case b := <-conn.sent:
		t.Fatalf("sent %s for a request whose write never finished", b)
	default:
	}

	// A write that finishes after the request's time is up: the request
	// fails and the server is told once the write is done.
	conn.hold = make(chan struct{})
	late := goCall(c, context.Background(), "late")
	pending := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.pending)
	}
	for pending() == 0 { // until the request is under way
		time.Sleep(time.Millisecond)
	}
	for pending() != 0 { // until the sweeper has taken it
		time.Sleep(time.Millisecond)
	}
	close(conn.hold) // and left closed: later writes pass
	ml := conn.expect(t, "late")
	if err := <-late; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("late write: %v, want context.DeadlineExceeded", err)
	}
	n := conn.expect(t, methods.NotifyCancelled)
	if want := `{"reason":"timed out","requestId":` + string(ml.ID) + `}`; string(n.Params) != want {
		t.Errorf("cancelled %s, want %s", n.Params, want)
	}

	long := make(chan error, 1)
	go func() {
		_, err := c.CallWith(context.Background(), "long", nil, nil)
		long <- err
	}()
	conn.expect(t, "long")
	// Three timeouts later it is still waiting.
	time.Sleep(3 * timeout)
	select {
	case err := <-long:
		t.Fatalf("long-lived request ended: %v", err)
	default:
	}
	short := goCall(c, context.Background(), "short")
	conn.expect(t, "short")
	c.Close()
	for _, ch := range []<-chan error{long, short} {
		if err := <-ch; !errors.Is(err, ErrClosed) {
			t.Fatalf("pending at close: %v, want ErrClosed", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sweep != nil && c.sweep.Stop() {
		t.Error("the timer was still armed after Close")
	}
}

// The context of a request's write: made lazily, ended by its parent, the
// request's timeout or the end of the request (first reason wins), and
// registering children (context.WithCancel, context.AfterFunc) without a
// goroutine each.
func TestCallCtx(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		c := &callCtx{parent: context.Background(), deadline: Clock() + time.Hour}
		if c.Err() != nil {
			t.Fatal("Err before the end")
		}
		done := c.Done()
		select {
		case <-done:
			t.Fatal("Done closed before the end")
		default:
		}
		child, cancelChild := context.WithCancel(c)
		defer cancelChild()
		fired := make(chan struct{})
		context.AfterFunc(c, func() { close(fired) })
		stopped := false
		stop := context.AfterFunc(c, func() { stopped = true })
		if !stop() {
			t.Error("stop of a registered AfterFunc reported false")
		}
		c.mu.Lock()
		n := len(c.funcs)
		c.mu.Unlock()
		if n != 3 {
			t.Errorf("%d functions registered with the context, want 3 (WithCancel, two AfterFunc): the context package went around AfterFunc", n)
		}
		c.cancel(context.DeadlineExceeded)
		c.cancel(context.Canceled) // too late: the first reason stands
		<-done
		<-child.Done()
		<-fired
		if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
			t.Errorf("Err %v, child's %v; want context.DeadlineExceeded", c.Err(), child.Err())
		}
		if stopped {
			t.Error("a stopped AfterFunc ran")
		}
		// Registered after the end: runs at once.
		late := make(chan struct{})
		context.AfterFunc(c, func() { close(late) })
		<-late
	})
	t.Run("parent", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		c := &callCtx{parent: parent, deadline: Clock() + time.Hour}
		done := c.Done()
		cancel()
		<-done
		if !errors.Is(c.Err(), context.Canceled) {
			t.Errorf("Err %v, want context.Canceled", c.Err())
		}
		// Without Done made: Err still sees the parent's end.
		parent2, cancel2 := context.WithCancel(context.Background())
		c2 := &callCtx{parent: parent2, deadline: Clock() + time.Hour}
		cancel2()
		if !errors.Is(c2.Err(), context.Canceled) {
			t.Errorf("Err %v, want context.Canceled", c2.Err())
		}
		<-c2.Done() // made after the end: closed
	})
	t.Run("deadline", func(t *testing.T) {
		c := &callCtx{parent: context.Background(), deadline: Clock() + time.Hour}
		d, ok := c.Deadline()
		if !ok || time.Until(d) < 59*time.Minute || time.Until(d) > time.Hour {
			t.Errorf("Deadline %v (%v), want an hour from now", d, ok)
		}
		parent, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pd, _ := parent.Deadline()
		c = &callCtx{parent: parent, deadline: Clock() + time.Hour}
		if d, _ := c.Deadline(); !d.Equal(pd) {
			t.Errorf("Deadline %v, want the parent's earlier %v", d, pd)
		}
		type key struct{}
		vctx := context.WithValue(context.Background(), key{}, "v")
		c = &callCtx{parent: vctx, deadline: Clock() + time.Hour}
		if c.Value(key{}) != "v" {
			t.Error("Value does not reach the parent's")
		}
	})
	t.Run("release", func(t *testing.T) {
		// A request that ends unregisters its context from the parent.
		parent, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := &callCtx{parent: parent, deadline: Clock() + time.Hour}
		c.Done()
		c.cancel(context.Canceled)
		c.mu.Lock()
		stop := c.stop
		c.mu.Unlock()
		if stop == nil || stop() {
			t.Error("the registration with the parent was still live after the end")
		}
	})
}

type nopLogger struct{}

func (nopLogger) Info(string, ...any)  {}
func (nopLogger) Warn(string, ...any)  {}
func (nopLogger) Error(string, ...any) {}
