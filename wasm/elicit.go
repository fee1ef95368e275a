//go:build js && wasm

package main

import (
	"context"

	"errors"
	"strings"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// onElicit returns the Options.OnElicit that asks the app's onElicit
// callback, or nil when the app passed none (then the client declares no
// elicitation capability).
func (h *hooks) onElicit() func(context.Context, *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
	if h.elicitFn.Type() != safejs.TypeFunction {
		return nil
	}
	return h.elicit
}

// elicit calls the hook as elicit(done, paramsJSON), which returns a
// function that aborts the app's callback (its AbortSignal), and waits for
// JS to call done("r:<ElicitResult JSON>") or done("e:<message>") once the
// callback settled. When ctx ends first (the server cancelled, the
// connection ended, the call was aborted) the callback is aborted; JS then
// calls done at once, which releases it.
func (h *hooks) elicit(ctx context.Context, req *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
	abort, ch, err := invokeWithDone(h.elicitFn, string(req.Raw))
	if err != nil {
		return nil, errors.New("the onElicit callback threw: " + err.Error())
	}
	var r string
	select {
	case r = <-ch:
	case <-ctx.Done():
		invoke(abort)
		return nil, ctx.Err()
	}
	if e, ok := strings.CutPrefix(r, "e:"); ok {
		return nil, errors.New("the onElicit callback failed: " + e)
	}
	b := []byte(strings.TrimPrefix(r, "r:"))
	if string(b) == "null" {
		return nil, nil // as json.Unmarshal into a *ElicitResult
	}
	res := new(mcplive.ElicitResult)
	if err := res.UnmarshalJSON(b); err != nil {
		return nil, errors.New("the onElicit callback gave no { action, content } object: " + err.Error())
	}
	return res, nil
}
