package mcplive

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoffDelay is the package's one backoff policy: the attempt-th
// (from 0) of delays that double from base up to ceiling, with full jitter
// (uniform in [0, delay]) when jitter is set, and at least floor (a
// server's Retry-After, capped where it was read).
func backoffDelay(base, ceiling time.Duration, attempt int, jitter bool, floor time.Duration) time.Duration {
	d := base << min(max(attempt, 0), 30)
	if d <= 0 || d > ceiling {
		d = ceiling
	}
	if jitter {
		d = time.Duration(rand.Int64N(int64(d) + 1))
	}
	return max(d, floor)
}

// sleep waits d unless ctx ends first; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
