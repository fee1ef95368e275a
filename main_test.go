package mcplive_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/leakcheck"
)

// testEra is the protocol era this run of the tests speaks by default:
// "legacy" (initialize, 2025-11-25) or "modern" (2026-07-28, with the
// scripted servers switched to it). Set by TestMain from MCPLIVE_TEST_ERA.
var testEra string

// TestMain runs every test once per protocol era: without MCPLIVE_TEST_ERA
// it runs this test binary again for each era, with the same flags, and
// fails when either run fails. Fuzzing and benchmarks run once, in the
// client's own default (modern first). In each run it fails when a test
// leaves a goroutine behind: a Client or Session must end all of its
// goroutines on Close.
func TestMain(m *testing.M) {
	testEra = os.Getenv("MCPLIVE_TEST_ERA")
	if testEra == "" && !singleRun() {
		os.Exit(runEachEra())
	}
	switch testEra {
	case "legacy":
		mcplive.SetDefaultVersion(mcplive.ProtocolVersion)
	case "modern", "":
		testEra = "modern"
	default:
		fmt.Fprintf(os.Stderr, "MCPLIVE_TEST_ERA=%q: want legacy or modern\n", testEra)
		os.Exit(2)
	}
	leakcheck.VerifyTestMain(m)
}

// singleRun reports a run that must not be repeated per era: fuzzing (and
// its workers), benchmarks, listing tests.
func singleRun() bool {
	for _, a := range os.Args[1:] {
		for _, f := range []string{"-test.fuzz", "-test.bench", "-test.list", "-test.fuzzworker", "-test.run=^$"} {
			if strings.HasPrefix(a, f) && (f != "-test.bench" || !strings.HasSuffix(a, "=")) {
				return true
			}
		}
	}
	return false
}

func runEachEra() int {
	code := 0
	for _, era := range []string{"legacy", "modern"} {
		fmt.Printf("=== era %s (MCPLIVE_TEST_ERA=%s)\n", era, era)
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), "MCPLIVE_TEST_ERA="+era)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Printf("=== era %s: %v\n", era, err)
			code = 1
		}
	}
	return code
}

// onlyIn skips a test that is about one era in the other era's run.
func onlyIn(t *testing.T, era string) {
	t.Helper()
	if testEra != era {
		t.Skipf("a test of the %s era: it runs in the %s run (MCPLIVE_TEST_ERA=%s)", era, era, era)
	}
}

// eraVersion is the revision a client negotiates with a server that speaks
// both eras, in this run.
func eraVersion() string {
	if testEra == "modern" {
		return mcplive.ModernVersion
	}
	return mcplive.ProtocolVersion
}

// heartbeatMethod is what Ping and the heartbeat send in this run: ping,
// or server/discover in 2026-07-28, which has no ping.
func heartbeatMethod() string {
	if testEra == "modern" {
		return "server/discover"
	}
	return "ping"
}

// openingMethod is a session's first request in this run.
func openingMethod() string {
	if testEra == "modern" {
		return "server/discover"
	}
	return "initialize"
}
