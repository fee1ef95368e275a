package mcplive_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcplive/mcplive"
)

// An HTTP error with an HTML page quotes its title, not its markup.
func TestHTTPErrorQuotesTheHTMLTitle(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The upstream server is down.</p></body></html>")
	}))
	defer srv.Close()
	o := &mcplive.Options{}
	o.Reconnect.Disabled = true
	c, err := mcplive.Connect(testCtx(t), srv.URL+"/mcp", eraOptions(o))
	if err == nil {
		c.Close()
		t.Fatal("connected to an error page")
	}
	var herr *mcplive.HTTPError
	if !errors.As(err, &herr) || herr.Body != "502 Bad Gateway" {
		t.Fatalf("error %q: want an HTTPError with the body %q", err, "502 Bad Gateway")
	}
	if strings.Contains(err.Error(), "<") {
		t.Errorf("error %q quotes markup", err)
	}
}
