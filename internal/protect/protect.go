// Package protect puts an MCP endpoint behind MCP authorization, as a
// resource server (RFC 9728, RFC 8707, RFC 7662): it checks each request's
// bearer token by introspection at the authorization server (active, its
// audience is this resource, its scopes), answers 401 with a
// WWW-Authenticate challenge naming the protected resource metadata, 403
// insufficient_scope (with the scopes to ask for) for the tools that need
// more, serves that metadata, and answers CORS for the pages allowed to
// call it. It is the server side of the tests and the demo of mcplive's
// authorization (js/src/oauth), in front of a go-sdk server; native only
// (never in the wasm).
package protect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Config says what the endpoint accepts.
type Config struct {
	// Resource is the endpoint's URL, the resource indicator tokens must
	// carry as their audience (e.g. http://127.0.0.1:8080/mcp).
	Resource string
	// Issuer is the authorization server (named in the metadata).
	Issuer string
	// IntrospectionURL, ClientID and ClientSecret: where and as whom tokens
	// are introspected (RFC 7662, client_secret_basic).
	IntrospectionURL       string
	ClientID, ClientSecret string
	// Scope is what every request needs (e.g. "tools:read"); AdminScope what
	// calling an admin tool needs on top (e.g. "tools:admin").
	Scope, AdminScope string
	// AdminTool reports whether calling the named tool needs AdminScope.
	AdminTool func(name string) bool
	// AllowOrigin reports whether a page of origin may call the endpoint
	// (CORS); nil allows none.
	AllowOrigin func(origin string) bool
	// HTTPClient makes the introspection requests (default: 5 s timeout).
	HTTPClient *http.Client
}

// Protector wraps handlers with the checks of one Config.
type Protector struct {
	cfg         Config
	metadataURL string
	client      *http.Client
	// Introspections counts the introspection requests made.
	Introspections atomic.Int64
	// DPoPRequests counts the requests whose DPoP proof was valid.
	DPoPRequests atomic.Int64
}

// New checks cfg and returns its Protector.
func New(cfg Config) (*Protector, error) {
	u, err := url.Parse(cfg.Resource)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("protect: resource %q is not an absolute URL", cfg.Resource)
	}
	if cfg.Issuer == "" || cfg.IntrospectionURL == "" || cfg.ClientID == "" {
		return nil, errors.New("protect: issuer, introspection URL and client id are required")
	}
	c := cfg.HTTPClient
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	return &Protector{cfg: cfg, metadataURL: u.Scheme + "://" + u.Host + MetadataPath(u.Path), client: c}, nil
}

// MetadataPath is where the protected resource metadata of an endpoint at
// path is served (RFC 9728 §3.1: the well-known prefix before the path).
func MetadataPath(path string) string {
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(path, "/")
}

// MetadataURL is the protected resource metadata's URL.
func (p *Protector) MetadataURL() string { return p.metadataURL }

// Metadata serves the protected resource metadata (with CORS for any origin: it is public).
func (p *Protector) Metadata() http.Handler {
	scopes := []string{p.cfg.Scope}
	if p.cfg.AdminScope != "" {
		scopes = append(scopes, p.cfg.AdminScope)
	}
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               p.cfg.Resource,
		AuthorizationServers:   []string{p.cfg.Issuer},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcplive protected MCP server",
	})
}

// Wrap returns h behind CORS and the token checks.
func (p *Protector) Wrap(h http.Handler) http.Handler {
	var scopes []string
	if p.cfg.Scope != "" {
		scopes = []string{p.cfg.Scope}
	}
	bearer := auth.RequireBearerToken(p.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: p.metadataURL, Scopes: scopes})
	inner := bearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.cfg.AdminScope != "" && p.cfg.AdminTool != nil && r.Method == http.MethodPost {
			if name, ok := calledTool(r); ok && p.cfg.AdminTool(name) {
				ti := auth.TokenInfoFromContext(r.Context())
				if ti == nil || !slices.Contains(ti.Scopes, p.cfg.AdminScope) {
					want := strings.TrimSpace(p.cfg.Scope + " " + p.cfg.AdminScope)
					w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q, error_description="the tool %s needs the scope %s"`, want, p.metadataURL, name, p.cfg.AdminScope))
					http.Error(w, "insufficient scope", http.StatusForbidden)
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && p.cfg.AllowOrigin != nil && p.cfg.AllowOrigin(origin) {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Add("Vary", "Origin")
			w.Header().Set("Access-Control-Expose-Headers", "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, DPoP-Nonce")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
				if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
					w.Header().Set("Access-Control-Allow-Headers", rh)
				}
				w.Header().Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		// A DPoP-bound token (RFC 9449): the proof is checked here, the
		// token then introspected as a bearer's, its cnf.jkt compared with
		// the proof's key (verify).
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP "); ok {
			jkt, err := checkProof(r.Header.Get("DPoP"), r.Method, p.cfg.Resource, tok)
			if err != nil {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP error="invalid_dpop_proof", error_description=%q, resource_metadata=%q`, err.Error(), p.metadataURL))
				http.Error(w, "invalid DPoP proof", http.StatusUnauthorized)
				return
			}
			p.DPoPRequests.Add(1)
			r = r.WithContext(withJKT(r.Context(), jkt))
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		inner.ServeHTTP(w, r)
	})
}

// calledTool reads a tools/call request's tool name, leaving the body for the next handler.
func calledTool(r *http.Request) (string, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", false
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return "", false
	}
	return msg.Params.Name, true
}

// verify introspects token (RFC 7662) and checks that it is active and meant for this resource.
func (p *Protector) verify(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	p.Introspections.Add(1)
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.IntrospectionURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(p.cfg.ClientID), url.QueryEscape(p.cfg.ClientSecret))
	res, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("introspection: HTTP %d", res.StatusCode)
	}
	var in struct {
		Active bool            `json:"active"`
		Aud    json.RawMessage `json:"aud"`
		Scope  string          `json:"scope"`
		Exp    int64           `json:"exp"`
		Sub    string          `json:"sub"`
		Cnf    struct {
			JKT string `json:"jkt"`
		} `json:"cnf"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&in); err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	if !in.Active {
		return nil, fmt.Errorf("%w: the token is not active", auth.ErrInvalidToken)
	}
	var auds []string
	if json.Unmarshal(in.Aud, &auds) != nil {
		var one string
		json.Unmarshal(in.Aud, &one)
		auds = []string{one}
	}
	if !slices.Contains(auds, p.cfg.Resource) {
		return nil, fmt.Errorf("%w: the token is meant for %v, not %s", auth.ErrInvalidToken, auds, p.cfg.Resource)
	}
	presented := ""
	if r != nil {
		presented = jktFrom(r.Context())
	}
	if in.Cnf.JKT != presented {
		// Bound to a key and sent as a bearer (or with another key's proof), or a bearer token sent with a proof.
		return nil, fmt.Errorf("%w: the token's key binding (cnf.jkt %q) does not match the request's DPoP proof (%q)", auth.ErrInvalidToken, in.Cnf.JKT, presented)
	}
	ti := &auth.TokenInfo{Scopes: strings.Fields(in.Scope), UserID: in.Sub}
	if in.Exp > 0 {
		ti.Expiration = time.Unix(in.Exp, 0)
	}
	return ti, nil
}
