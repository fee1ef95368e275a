package mcplive

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMethodErrNamesOnce: a method's error is prefixed with the method
// once, whether or not it had the package's prefix already.
func TestMethodErrNamesOnce(t *testing.T) {
	base := errors.New("no answer")
	for _, in := range []error{
		base,
		fmt.Errorf("server/discover: %w", base),
		fmt.Errorf("mcplive: server/discover: %w", base),
	} {
		got := methodErr("server/discover", in)
		if got.Error() != "mcplive: server/discover: no answer" || !errors.Is(got, base) {
			t.Errorf("methodErr(%q) = %q, want %q wrapping it", in, got, "mcplive: server/discover: no answer")
		}
		if got := namedFor("server/discover", in); strings.Count(got.Error(), "server/discover") != 1 || !errors.Is(got, base) {
			t.Errorf("namedFor(%q) = %q, want the method named once", in, got)
		}
	}
}
