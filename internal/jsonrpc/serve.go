package jsonrpc

// What the peer sends unasked: its requests, each served on a goroutine of
// its own, and its notifications, handed in arrival order to the handler
// the layer above gave the Connection (Options).

import (
	"context"
	"errors"

	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

// serve runs the handler of a server request on a goroutine of its own (it
// may wait for a user for minutes) and sends its answer. The handler's
// context ends when the server cancels the request (notifications/cancelled)
// or the connection ends; a cancelled request gets no answer, as the
// specification asks. Close does not wait for a handler: one that ignores
// its context only delays its own goroutine. A panic in the handler is
// answered as an internal error.
func (c *Connection) serve(m *Message, h Handler) {
	key := string(m.ID)
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	_, dup := c.serving[key]
	if c.closed || dup {
		c.mu.Unlock()
		cancel()
		if dup {
			c.log.Warn("mcplive: ignored a server request whose id is still in use", "method", m.Method, "id", key)
		}
		return
	}
	c.serving[key] = cancel
	c.mu.Unlock()
	go func() {
		res, err := safeHandle(ctx, h, m)
		c.mu.Lock()
		delete(c.serving, key)
		c.mu.Unlock()
		cancelled := ctx.Err() != nil
		cancel()
		if cancelled {
			return
		}
		resp := Message{JSONRPC: "2.0", ID: m.ID}
		var rpcErr *RPCError
		switch {
		case errors.As(err, &rpcErr):
			resp.Error = rpcErr
		case err != nil:
			c.log.Warn("mcplive: a server request failed", "method", m.Method, "err", err.Error())
			resp.Error = &RPCError{Code: CodeInternalError, Message: err.Error()}
		default:
			b, err := c.marshal(res)
			if err != nil {
				resp.Error = &RPCError{Code: CodeInternalError, Message: "mcplive: cannot encode the result: " + err.Error()}
			} else {
				resp.Result = b
			}
		}
		if b, err := Encode(&resp); err == nil {
			c.writeLater(b, "") // a response
		}
	}()
}

// safeHandle runs a server request's handler; a panic becomes an error.
func safeHandle(ctx context.Context, h Handler, m *Message) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, printf.Errorf("mcplive: the handler of %s panicked: %v", m.Method, p)
		}
	}()
	return h(ctx, m.Params)
}

// cancelServing ends the handler of the server request that a
// notifications/cancelled from the server names.
func (c *Connection) cancelServing(params jsontext.RawMessage) {
	var requestID jsontext.RawMessage
	if jsontext.Decode(params, "params", []jsontext.Field{{Name: "requestId", Dst: &requestID}}) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.serving[string(requestID)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// dispatchLoop hands the notifications to notify, in arrival order. It
// says when it runs notify (inHandler), so that Close never waits for a
// handler, which may be Close's own caller.
func (c *Connection) dispatchLoop() {
	defer close(c.dispatchDone)
	for {
		m, ok := c.queue.Pop()
		if !ok {
			return
		}
		c.inHandler.Store(true)
		c.safeNotify(m)
		c.inHandler.Store(false)
	}
}

// safeNotify runs the notification handler and keeps a panic in it from
// killing the program (in wasm a panic ends the runtime for the whole page).
func (c *Connection) safeNotify(m *Message) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("mcplive: notification handler panicked", "method", m.Method, "panic", r)
		}
	}()
	c.notify(m)
}
