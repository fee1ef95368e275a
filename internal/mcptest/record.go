package mcptest

import (
	"context"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultServerOptions returns the options New uses when Options
// .ServerOptions is nil: pageSize, DefaultCapabilities, subscribe and
// unsubscribe handlers that accept everything, and a completion handler
// that answers value+"-done". Tests change a field and pass the result
// as Options.ServerOptions.
func DefaultServerOptions(pageSize int) *mcp.ServerOptions {
	return &mcp.ServerOptions{
		PageSize:           pageSize,
		Capabilities:       DefaultCapabilities(),
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{r.Params.Argument.Value + "-done"}}}, nil
		},
	}
}

// Recorder records, in order, the method of every request and
// notification a server receives and hands to its handlers
// (notifications/cancelled is handled by go-sdk before any middleware and
// is not seen).
type Recorder struct {
	mu      sync.Mutex
	methods []string
}

// Record starts recording what s receives. Call it before clients connect.
func Record(s *mcp.Server) *Recorder {
	r := &Recorder{}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r.mu.Lock()
			r.methods = append(r.methods, method)
			r.mu.Unlock()
			return next(ctx, method, req)
		}
	})
	return r
}

// Methods returns every method received so far, in order.
func (r *Recorder) Methods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.methods)
}

// Count returns how often method was received.
func (r *Recorder) Count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.methods {
		if m == method {
			n++
		}
	}
	return n
}
