// Package leakcheck is goleak with a wait fit for a loaded machine.
//
// goleak gives goroutines that are on their way out about half a second to
// end, then reports them as leaked. A client closed at the end of a test
// ends its goroutines at once on an idle machine, but a machine loaded far
// beyond its cores may take longer to schedule them: these helpers ask
// goleak again until no goroutine is left or Wait has passed. A goroutine
// that never ends is still reported, after Wait.
package leakcheck

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Wait bounds the wait for leftover goroutines to end: a hang detector,
// not a speed budget.
const Wait = 60 * time.Second

// Find is goleak.Find, asked again until it finds nothing or Wait has
// passed.
func Find(opts ...goleak.Option) error {
	deadline := time.Now().Add(Wait)
	for {
		err := goleak.Find(opts...) // waits up to about half a second itself
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// VerifyNone is goleak.VerifyNone through Find.
func VerifyNone(t testing.TB, opts ...goleak.Option) {
	t.Helper()
	if err := Find(opts...); err != nil {
		t.Error(err)
	}
}

// VerifyTestMain is goleak.VerifyTestMain through Find: it runs the tests
// and, when they pass, fails the run if goroutines are left.
func VerifyTestMain(m *testing.M, opts ...goleak.Option) {
	code := m.Run()
	if code == 0 {
		if err := Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
