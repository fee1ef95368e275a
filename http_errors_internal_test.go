package mcplive

import (
	"maps"
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

func TestHTTPParseAuthParams(t *testing.T) {
	for h, want := range map[string]map[string]string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`: {"resource_metadata": "https://x/.well-known/oauth-protected-resource"},
		`Bearer realm="mcp", error=invalid_token, error_description="the \"token\" expired"`: {
			"realm": "mcp", "error": "invalid_token", "error_description": `the "token" expired`},
		`Basic realm="a", Bearer scope="tools:read tools:call", Error="insufficient_scope"`: {
			"scope": "tools:read tools:call", "error": "insufficient_scope"},
		// Another scheme first, with params of the same names: Bearer's win.
		`DPoP error="use_dpop_nonce", scope=x, Bearer resource_metadata="https://x/prm", error=insufficient_scope, scope="a b"`: {
			"resource_metadata": "https://x/prm", "error": "insufficient_scope", "scope": "a b"},
		`Basic dXNlcjpwYXNz, Bearer error=invalid_token`: {"error": "invalid_token"},
		`Bearer realm=a, Bearer error=second`:            {"realm": "a"},
		// No Bearer challenge: every challenge's params, the first wins.
		`DPoP error=a, Negotiate, Custom error=b, resource_metadata=r`: {"error": "a", "resource_metadata": "r"},
		`Bearer`:                 {},
		`Bearer abc123==`:        {},
		`Bearer x="unterminated`: {"x": "unterminated"},
		`=,=,"=`:                 {},
	} {
		if got := parseAuthParams(h); !maps.Equal(got, want) {
			t.Errorf("parseAuthParams(%q) = %v, want %v", h, got, want)
		}
	}
}
