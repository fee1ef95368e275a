package mcplive_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/leakcheck"
	"github.com/mcplive/mcplive/internal/mcptest"
	"go.uber.org/goleak"
)

// testEra is the protocol era this run of the tests speaks by default:
// "legacy" (initialize, 2025-11-25) or "modern" (2026-07-28, with the
// scripted servers switched to it). Set by TestMain from MCPLIVE_TEST_ERA.
var testEra string

// TestMain runs every test once per protocol era: without MCPLIVE_TEST_ERA
// it runs this test binary again for each era, with the same flags, and
// fails when either run fails. Fuzzing and benchmarks run once, in the
// legacy era (their clients pin 2025-11-25: eraOptions). In each run it
// fails when a test leaves a goroutine behind: a Client or Session must
// end all of its goroutines on Close.
func TestMain(m *testing.M) {
	testEra = os.Getenv("MCPLIVE_TEST_ERA")
	if testEra == "" {
		if !singleRun() {
			os.Exit(runEachEra())
		}
		// Fuzzing and benchmarks run once, in 2025-11-25: the canned
		// servers of the benchmarks answer initialize.
		testEra = "legacy"
	}
	switch testEra {
	case "legacy":
		// Its clients pin 2025-11-25: eraOptions.
	case "modern", "":
		testEra = "modern"
	default:
		fmt.Fprintf(os.Stderr, "MCPLIVE_TEST_ERA=%q: want legacy or modern\n", testEra)
		os.Exit(2)
	}
	flag.Parse()
	skipOtherEra()
	// Under GOOS=js the runtime keeps a goroutine of its own waiting for
	// JS events (runtime.handleEvent): not ours, and never ending.
	leakcheck.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
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

// runEachEra runs the tests once per era and transport: over WebSocket in
// both eras, then over Streamable HTTP in both eras (there the go-sdk
// servers of internal/mcptest answer over HTTP; the scripted and hostile
// servers speak WebSocket in every run). No test is skipped: the tests of
// one era are left out of the other era's runs (eraTests).
func runEachEra() int {
	code := 0
	for _, tr := range []string{"ws", "http"} {
		for _, era := range []string{"legacy", "modern"} {
			fmt.Printf("=== era %s, transport %s (MCPLIVE_TEST_ERA=%s MCPLIVE_TEST_TRANSPORT=%s)\n", era, tr, era, tr)
			cmd := exec.Command(os.Args[0], os.Args[1:]...)
			cmd.Env = append(os.Environ(), "MCPLIVE_TEST_ERA="+era, "MCPLIVE_TEST_TRANSPORT="+tr)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Printf("=== era %s, transport %s: %v\n", era, tr, err)
				code = 1
			}
		}
	}
	return code
}

// testTransport is the transport for url (a server of internal/mcptest,
// whose scheme follows this run's transport).
func testTransport(t testing.TB, url string) mcplive.Transport {
	t.Helper()
	tr, err := mcplive.NewTransport(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// onlyIn fails a test of one era that runs in the other era's run: the
// tests of eraTests are left out of the other era's run by TestMain.
func onlyIn(t *testing.T, era string) {
	t.Helper()
	if testEra != era {
		t.Fatalf("%s is a test of the %s era, run in the %s run: list it in eraTests (main_test.go)", t.Name(), era, testEra)
	}
}

// eraTests are the tests of one era (each starts with onlyIn). TestMain
// leaves them out of the other era's run (-test.skip), so that they run in
// their own era over both transports and never show as skipped.
var eraTests = map[string][]string{
	"legacy": {
		"TestElicitServerRequestWire", "TestHostileInitialize", "TestHostileVersions", "TestHTTPSDKSessionExpired",
		"TestLiveListChangedForKindNotOffered", "TestSessionInitialize", "TestSessionSubscribeResource",
	},
	"modern": {
		"TestHTTPDiscoverAnswersFallBackAlike", "TestModernCallsDuringListenReopen",
		"TestElicitInputRounds", "TestElicitInputRoundsFail", "TestModernListsFollowTheListenStream",
		"TestModernAcknowledgedSubset", "TestModernListenEnds", "TestModernNothingAcknowledged", "TestModernEmptyCursor",
		"TestModernIncompleteResult", "TestModernSDKListsLiveThroughSubscriptions", "TestModernProbeRefusals", "TestModernResourceSubscriptions", "TestModernHeartbeat",
		"TestProbeEmptyDiscoverResultIsLegacy", "TestProbeRetriesAListedModernVersion",
		"TestEraLegacyRememberedOnReconnect", "TestEraSilentProbeNotRepeated", "TestEraReprobedWhenInitializeRefused",
		"TestEraForgottenAfterAFailedOpening", "TestEraSilentProbeWithinAReconnect",
		"TestSeedFreshListNotWalked", "TestSeedBadOrZeroTTLWalked", "TestSeedRevisionHint", "TestSeedInvalidatedByANewListenStream", "TestSeedReadRetriedIsMarked",
		"TestPriorAdoptedAndAskedBeside", "TestPriorFreshNotAsked", "TestPriorCapabilitiesChanged", "TestPriorServerMovedToLegacy", "TestPriorIgnored",
	},
}

// skipOtherEra adds the tests of the other era to -test.skip.
func skipOtherEra() {
	var names []string
	for era, tests := range eraTests {
		if era != testEra {
			names = append(names, tests...)
		}
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	if f := flag.Lookup("test.skip"); f != nil {
		// A -skip of the caller's own is kept: joined when it names top-level
		// tests only; one with subtests (a '/') is left alone, and the other
		// era's tests then fail in onlyIn, saying so.
		if user := f.Value.String(); strings.Contains(user, "/") {
			return
		} else if user != "" {
			pattern = user + "|" + pattern
		}
		_ = f.Value.Set(pattern)
	}
}

// eraOptions returns the options of a client or session of this run, for
// every mcplive.Connect and mcplive.NewSession of these tests: in the legacy
// run, a copy of o with ProtocolVersion pinned to 2025-11-25 (so the client
// opens with initialize, without the server/discover probe or the fallback
// to initialize on a new connection); o itself when the test pins a
// revision of its own, and in the modern run, where the client negotiates
// (modern first).
func eraOptions(o *mcplive.Options) *mcplive.Options {
	if testEra != "legacy" || (o != nil && o.ProtocolVersion != "") {
		return o
	}
	var pinned mcplive.Options
	if o != nil {
		pinned = *o
	}
	pinned.ProtocolVersion = mcplive.ProtocolVersion
	return &pinned
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

// rawItemsRun reports whether this run's live clients keep raw items
// (Options.RawItems, as the wasm binding does): in the WebSocket run of
// 2026-07-28 and the Streamable HTTP run of 2025-11-25, so that each era
// and each transport runs the live tests both ways.
func rawItemsRun() bool {
	return (testEra == "modern") == (mcptest.Transport() == "ws")
}

// openingMethod is a session's first request in this run.
func openingMethod() string {
	if testEra == "modern" {
		return "server/discover"
	}
	return "initialize"
}
