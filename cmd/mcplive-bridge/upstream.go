package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// forwarder carries a page's requests to one remote MCP server that sends
// no CORS headers (-upstream), and to the OAuth endpoints that server's
// metadata names, and nowhere else: the bridge is never an open proxy.
//
// The page names the target in the X-Bridge-Target header (viaBridge does):
// so the server's URL stays the page's identity for it (the OAuth resource,
// the cache keys), and the bridge only carries the bytes.
type forwarder struct {
	upstream *url.URL
	log      *slog.Logger
	proxy    *httputil.ReverseProxy

	mu sync.Mutex
	// allowed holds every URL (scheme://host/path, no query) the page may
	// reach: the upstream, its protected resource metadata, and what the
	// metadata documents fetched through the bridge name.
	allowed map[string]kind
}

// kind is what an allowed URL is, which says what the bridge learns from
// its answer.
type kind int

const (
	kindMCP            kind = iota
	kindResourceMeta        // names authorization servers
	kindAuthServerMeta      // names the token, registration, revocation endpoints
	kindOAuthEndpoint       // token, registration, revocation, JWKS
)

func newForwarder(upstream *url.URL, log *slog.Logger) *forwarder {
	f := &forwarder{upstream: upstream, log: log, allowed: map[string]kind{}}
	f.allow(upstream.String(), kindMCP)
	// RFC 9728 §3.1: the metadata URL is the resource's path after the
	// well-known name; the root form too, which clients also try.
	origin := upstream.Scheme + "://" + upstream.Host
	path := strings.TrimSuffix(upstream.EscapedPath(), "/")
	f.allow(origin+"/.well-known/oauth-protected-resource"+path, kindResourceMeta)
	f.allow(origin+"/.well-known/oauth-protected-resource", kindResourceMeta)
	f.proxy = &httputil.ReverseProxy{
		Rewrite:        f.rewrite,
		FlushInterval:  -1, // SSE streamed through as it comes
		ModifyResponse: f.modifyResponse,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			f.log.Warn("upstream request failed", "url", r.URL.String(), "error", err)
			http.Error(w, "Bad Gateway: mcplive-bridge: "+r.URL.Host+" did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	return f
}

// key is the form in which URLs are compared: scheme://host/path.
func key(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.EscapedPath()
}

func (f *forwarder) allow(raw string, k kind) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.allowed[key(u)]; !ok {
		f.allowed[key(u)] = k
	}
}

func (f *forwarder) kindOf(u *url.URL) (kind, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.allowed[key(u)]
	return k, ok
}

type targetKey struct{}

func (f *forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw := r.Header.Get(targetHeader)
	if raw == "" {
		http.Error(w, "Bad Request: mcplive-bridge: /forward needs the "+targetHeader+" header (the URL to reach; viaBridge sends it)", http.StatusBadRequest)
		return
	}
	target, err := url.Parse(raw)
	if err != nil || target.Host == "" {
		http.Error(w, "Bad Request: mcplive-bridge: "+targetHeader+" is not an absolute URL: "+strconv.Quote(raw), http.StatusBadRequest)
		return
	}
	if _, ok := f.kindOf(target); !ok {
		f.log.Warn("refused: target not configured", "target", raw)
		http.Error(w, "Forbidden: mcplive-bridge: "+target.Scheme+"://"+target.Host+target.Path+" is not the upstream server nor an OAuth endpoint its metadata names; this bridge forwards to "+f.upstream.String()+" (start one with -upstream "+target.Scheme+"://"+target.Host+target.Path+" to reach that server)", http.StatusForbidden)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

func (f *forwarder) rewrite(pr *httputil.ProxyRequest) {
	target, _ := url.Parse(pr.In.Header.Get(targetHeader))
	pr.Out.URL = target
	pr.Out.Host = target.Host
	h := pr.Out.Header
	h.Del(targetHeader)
	h.Del(tokenHeader)
	// The upstream sees a server-to-server request: no browser headers
	// (it would check an Origin it never allowed), no cookies of the
	// bridge's origin.
	for _, name := range []string{"Origin", "Referer", "Cookie", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest"} {
		h.Del(name)
	}
}

// modifyResponse replaces the upstream's CORS headers with the guard's
// (already set on the writer) and learns the OAuth endpoints from the
// metadata documents it carries.
func (f *forwarder) modifyResponse(resp *http.Response) error {
	for name := range resp.Header {
		if strings.HasPrefix(strings.ToLower(name), "access-control-") {
			resp.Header.Del(name)
		}
	}
	// A 401's challenge may name the resource metadata elsewhere.
	for _, c := range resp.Header.Values("WWW-Authenticate") {
		if i := strings.Index(c, `resource_metadata="`); i >= 0 {
			rest := c[i+len(`resource_metadata="`):]
			if j := strings.IndexByte(rest, '"'); j > 0 {
				if u, err := resp.Request.URL.Parse(rest[:j]); err == nil && u.Host == f.upstream.Host {
					f.allow(u.String(), kindResourceMeta)
				}
			}
		}
	}
	k, _ := f.kindOf(resp.Request.URL)
	if resp.StatusCode != http.StatusOK || (k != kindResourceMeta && k != kindAuthServerMeta) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var meta struct {
		AuthorizationServers []string `json:"authorization_servers"`
		TokenEndpoint        string   `json:"token_endpoint"`
		RegistrationEndpoint string   `json:"registration_endpoint"`
		RevocationEndpoint   string   `json:"revocation_endpoint"`
		JWKSURI              string   `json:"jwks_uri"`
	}
	if json.Unmarshal(body, &meta) != nil {
		return nil
	}
	if k == kindResourceMeta {
		for _, issuer := range meta.AuthorizationServers {
			u, err := url.Parse(issuer)
			if err != nil {
				continue
			}
			origin := u.Scheme + "://" + u.Host
			p := strings.TrimSuffix(u.EscapedPath(), "/")
			// RFC 8414 §3.1 and OpenID Connect Discovery, both orders.
			f.allow(origin+"/.well-known/oauth-authorization-server"+p, kindAuthServerMeta)
			f.allow(origin+"/.well-known/openid-configuration"+p, kindAuthServerMeta)
			f.allow(origin+p+"/.well-known/openid-configuration", kindAuthServerMeta)
		}
		return nil
	}
	for _, e := range []string{meta.TokenEndpoint, meta.RegistrationEndpoint, meta.RevocationEndpoint, meta.JWKSURI} {
		if e != "" {
			f.allow(e, kindOAuthEndpoint)
		}
	}
	return nil
}
