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

// waitLimit bounds every wait of a test for something that must happen. It
// is a liveness bound (a hang becomes a failure), never a speed assertion.
const waitLimit = 10 * time.Second

// testCtx returns a context that ends with the test or after waitLimit.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
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
