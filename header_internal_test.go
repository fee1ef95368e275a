package mcplive

import (
	"testing"
)

// TestShownURL: errors and log lines show URLs without userinfo and query
// (a token may travel in either); the URL the requests go to is unchanged.
func TestShownURL(t *testing.T) {
	for in, want := range map[string]string{
		"ws://h:1/mcp?access_token=SECRET":    "ws://h:1/mcp?…",
		"https://u:SECRET@h/mcp":              "https://h/mcp",
		"https://u:SECRET@h":                  "https://h",
		"https://h/mcp#SECRET":                "https://h/mcp?…",
		"https://h/mcp":                       "https://h/mcp",
		"http://u@h:8/p/q?x=SECRET&y=1#f":     "http://h:8/p/q?…",
		"https://h/path@notuser?token=SECRET": "https://h/path@notuser?…",
	} {
		if got := shownURL(in); got != want {
			t.Errorf("shownURL(%q) = %q, want %q", in, got, want)
		}
	}
}
