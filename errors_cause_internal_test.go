package mcplive

import "testing"

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
