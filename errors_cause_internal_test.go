package mcplive

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// An HTML error page in an HTTP error: its title or first text, no markup.
func TestBodySnippetHTML(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"<!DOCTYPE html>\n<html><head><meta charset=utf-8>\n<title>502 Bad\n  Gateway</title><style>body{x:y}</style></head><body><h1>502</h1></body></html>", "502 Bad Gateway"},
		{"<html><head><title></title><script>var a = '<b>';</script></head><body><!-- nginx --><h1>Not Found</h1><p>The page &amp; its <b>parts</b> are gone.</p></body></html>", "Not Found The page & its parts are gone."},
		{"<html><body><center><h1>403 Forbidden</h1></center><hr><center>nginx</center></body></html>", "403 Forbidden nginx"},
		{"<pre>Cannot POST /mcp</pre>", "Cannot POST /mcp"},
		{`{"error":"not json-rpc"}`, `{"error":"not json-rpc"}`},
		{"  plain text  ", "plain text"},
		{"<not really html", "<not really html"},
	} {
		if got := bodySnippet([]byte(tc.body)); got != tc.want {
			t.Errorf("bodySnippet(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

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
