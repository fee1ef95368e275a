package mcplive

import (
	"testing"
	"time"
)

func TestReconnectDialTimeout(t *testing.T) {
	for _, tc := range []struct {
		attempt int
		max     time.Duration
		want    time.Duration
	}{
		{0, 10 * time.Second, time.Second},
		{1, 10 * time.Second, 2 * time.Second},
		{3, 10 * time.Second, 8 * time.Second},
		{4, 10 * time.Second, 10 * time.Second},
		{100, 10 * time.Second, 10 * time.Second},
		{0, 300 * time.Millisecond, 300 * time.Millisecond},
		{2, 0, 4 * time.Second},
	} {
		if got := reconnectDialTimeout(tc.attempt, tc.max); got != tc.want {
			t.Errorf("reconnectDialTimeout(%d, %v) = %v, want %v", tc.attempt, tc.max, got, tc.want)
		}
	}
}
