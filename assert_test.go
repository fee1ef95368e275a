package mcplive_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A handful of assert helpers shared by this package's tests.

// waitLimit bounds the wait for ONE event that must happen: a message, an
// update, a state change, a call's answer. It is a hang detector, never a
// speed budget: it never spans a batch of work (a loop of calls, a burst of
// notifications), and it is long enough for a machine loaded far beyond its
// cores. A wait for a batch waits for each of its events in turn.
const waitLimit = 60 * time.Second

// deadlineMargin is how long before the test binary's deadline testCtx
// ends, so that a hung call fails its test with a message and a cleanup
// instead of the panic of go test -timeout.
const deadlineMargin = 15 * time.Second

// testCtx returns a context for the calls of a test. It is no speed budget
// either: go test -timeout is the hang detector of a whole test, and the
// context ends a little before it (without a deadline, with the test).
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := testDeadline(t); ok {
		cancel()
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-min(deadlineMargin, time.Until(d)/4)))
	}
	t.Cleanup(cancel)
	return ctx
}

// testDeadline is t.Deadline for a *testing.T (a benchmark has none).
func testDeadline(t testing.TB) (time.Time, bool) {
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return dt.Deadline()
	}
	return time.Time{}, false
}

// assertNoErr fails the test at once when err is not nil.
func assertNoErr(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: unexpected error: %v", what, err)
	}
}

// assertErr checks that err matches every target with errors.Is and that
// its message contains every one of texts.
func assertErr(t testing.TB, err error, targets []error, texts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one matching %v", targets)
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Errorf("error %q does not match %v", err, target)
		}
	}
	for _, s := range texts {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

// errs is shorthand for the targets of assertErr.
func errs(targets ...error) []error { return targets }

// assertEqual compares with reflect.DeepEqual.
func assertEqual[T any](t testing.TB, got, want T, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %#v, want %#v", what, got, want)
	}
}

// recv returns the next value of ch, failing the test when none comes
// within waitLimit.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// waitFor waits until cond holds (checked every few milliseconds), failing
// the test when it does not within waitLimit: for a state that no channel
// announces (a line in a log).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
