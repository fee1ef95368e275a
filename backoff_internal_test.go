package mcplive

import (
	"testing"
	"time"
)

// TestBackoffDelay: the one backoff policy doubles from base to its
// ceiling, never waits less than the floor, and with jitter stays within
// [0, the delay without it] (then at least the floor).
func TestBackoffDelay(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		attempt     int
		floor, want time.Duration
	}{
		{-1, 0, 100 * ms}, {0, 0, 100 * ms}, {1, 0, 200 * ms}, {3, 0, 800 * ms},
		{4, 0, time.Second}, {40, 0, time.Second}, // the ceiling; no overflow
		{0, 2 * time.Second, 2 * time.Second}, // a Retry-After above the ceiling wins
		{2, 50 * ms, 400 * ms},
	} {
		if got := backoffDelay(100*ms, time.Second, c.attempt, false, c.floor); got != c.want {
			t.Errorf("backoffDelay(attempt %d, floor %v) = %v, want %v", c.attempt, c.floor, got, c.want)
		}
	}
	seen := map[bool]bool{}
	for range 200 {
		d := backoffDelay(100*ms, time.Second, 2, true, 0)
		if d < 0 || d > 400*ms {
			t.Fatalf("jittered delay %v outside [0, 400ms]", d)
		}
		seen[d < 200*ms] = true
		if f := backoffDelay(100*ms, time.Second, 2, true, 300*ms); f < 300*ms || f > 400*ms {
			t.Fatalf("jittered delay with floor 300ms = %v", f)
		}
	}
	if !seen[true] || !seen[false] {
		t.Error("200 jittered delays all fell in one half of [0, 400ms]: not jittered")
	}
}
