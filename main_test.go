package mcplive_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a test leaves a goroutine behind: a Client or
// Session must end all of its goroutines on Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
