package mcplive

import (
	"context"
	"strconv"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/methods"
)

// Ping checks that the server answers: ping in the legacy era,
// server/discover in the modern one (which has no ping).
func (s *Session) Ping(ctx context.Context) error {
	method := methods.Ping
	if s.modern {
		method = methods.Discover
	}
	_, err := s.request(ctx, method, nil)
	return err
}

// heartbeat is Ping bounded by ctx alone, not by the request timeout.
func (s *Session) heartbeat(ctx context.Context) error {
	method := methods.Ping
	if s.modern {
		method = methods.Discover
	}
	_, err := s.requestLong(ctx, method, nil, nil)
	return err
}

// CallToolOptions are optional settings of CallTool.
type CallToolOptions struct {
	// OnProgress receives the server's notifications/progress for this
	// call, in order, on the goroutine that called CallTool: every one the
	// server sent before the result has run when CallTool returns.
	OnProgress func(Progress)
}

// CallTool calls a tool. args is encoded as the arguments object (nil sends
// none). A tool that ran and failed returns a result with IsError, not an
// error.
func (s *Session) CallTool(ctx context.Context, name string, args any, opts *CallToolOptions) (*CallToolResult, error) {
	if err := s.need(methods.CallTool, s.caps().Tools != nil, "tools"); err != nil {
		return nil, err
	}
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res CallToolResult
	var err error
	if opts != nil && opts.OnProgress != nil {
		err = s.withProgress(params, opts.OnProgress, func() error {
			return s.requestInto(ctx, methods.CallTool, params, &res, &res.Raw)
		})
	} else {
		err = s.requestInto(ctx, methods.CallTool, params, &res, &res.Raw)
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// progressEvent is one notifications/progress of a call, or the end of
// the call (end).
type progressEvent struct {
	p   Progress
	end bool
}

// withProgress runs call with a progress token in params' _meta, on a
// goroutine of its own, and runs fn on this one for each notifications/
// progress of the token. The read loop routes them (observe) in order with
// the responses, so the call's end is queued after every one the server
// sent before its result: nothing waits on the dispatcher, which may be
// this goroutine (a notification handler that calls a tool).
func (s *Session) withProgress(params map[string]any, fn func(Progress), call func() error) error {
	token, q := s.addProgress()
	defer s.removeProgress(token)
	params["_meta"] = map[string]any{"progressToken": RawMessage(token)}
	var err error
	go func() {
		err = call()
		q.Push(progressEvent{end: true})
	}()
	for {
		ev, _ := q.Pop()
		if ev.end {
			return err // written before the end was pushed
		}
		s.safeProgress(fn, ev.p)
	}
}

// safeProgress runs an OnProgress callback; a panic in it is logged, and
// the call goes on.
func (s *Session) safeProgress(fn func(Progress), p Progress) {
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logger.Error("mcplive: OnProgress panicked", "panic", r)
		}
	}()
	fn(p)
}

// GetPrompt renders a prompt with its arguments.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	if err := s.need(methods.GetPrompt, s.caps().Prompts != nil, "prompts"); err != nil {
		return nil, err
	}
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	var res GetPromptResult
	if err := s.requestInto(ctx, methods.GetPrompt, params, &res, &res.Raw); err != nil {
		return nil, err
	}
	return &res, nil
}

// ReadResource reads the contents of a resource.
func (s *Session) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	if err := s.need(methods.ReadResource, s.caps().Resources != nil, "resources"); err != nil {
		return nil, err
	}
	var res ReadResourceResult
	ctx = context.WithValue(ctx, retriedKey{}, &res.Retried)
	if err := s.requestInto(ctx, methods.ReadResource, map[string]any{"uri": uri}, &res, &res.Raw); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks the server for completion values of an argument.
func (s *Session) Complete(ctx context.Context, params CompleteParams) (*CompleteResult, error) {
	if err := s.need(methods.Complete, s.caps().Completions != nil, "completions"); err != nil {
		return nil, err
	}
	var res CompleteResult
	if err := s.requestInto(ctx, methods.Complete, params, &res, &res.Raw); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel asks the server to send notifications/message at level
// and above (debug, info, notice, warning, error, critical, alert,
// emergency). They reach Options.OnLog.
func (s *Session) SetLoggingLevel(ctx context.Context, level string) error {
	if err := s.need(methods.SetLevel, s.caps().Logging != nil, "logging"); err != nil {
		return err
	}
	if s.modern {
		// The modern era has no logging/setLevel: the level travels in
		// the _meta of every request from now on.
		s.setMeta(ModernVersion, level)
		return nil
	}
	_, err := s.request(ctx, methods.SetLevel, map[string]any{"level": level})
	return err
}

// SubscribeResource subscribes to changes of one resource: fn is called with
// the URI on each notifications/resources/updated for it (then read the
// resource again). unsubscribe removes fn and, for the last subscriber of
// the URI, sends resources/unsubscribe.
func (s *Session) SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (unsubscribe func(context.Context) error, err error) {
	if err := s.need(methods.Subscribe, s.caps().Resources != nil && s.caps().Resources.Subscribe, "resources.subscribe"); err != nil {
		return nil, err
	}
	return s.subs.subscribe(ctx, uri, fn,
		func(ctx context.Context) error { return s.subscribeSend(ctx, uri) },
		func(ctx context.Context) error { return s.unsubscribeSend(ctx, uri) })
}

func (s *Session) addProgress() (string, *jsonrpc.Fifo[progressEvent]) {
	q := new(jsonrpc.Fifo[progressEvent])
	q.Init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextToken++
	token := strconv.FormatInt(s.nextToken, 10)
	s.progress[token] = q
	return token, q
}

func (s *Session) removeProgress(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.progress, token)
}
