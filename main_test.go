package mcplive_test

import (
	"testing"

	"github.com/mcplive/mcplive/internal/leakcheck"
)

// TestMain fails the run when a test leaves a goroutine behind: a Client or
// Session must end all of its goroutines on Close.
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}
