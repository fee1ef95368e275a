package mcplive_test

import (
	"context"
	"errors"
	"log"
	"sync"

	"github.com/mcplive/mcplive"
	"golang.org/x/oauth2"
)

// The Token hook fed by a golang.org/x/oauth2 token source, for a server
// behind MCP authorization: the source caches the access token and
// refreshes it when it expires. After a refusal (401) the hook asks for a
// fresh token at once, and the transport sends the request once more with
// it; a 403 insufficient_scope needs a new authorization with more scopes
// (AuthError.Scope), which is the app's to run.
func ExampleHTTPTransport_oauth2() {
	ctx := context.Background()
	conf := &oauth2.Config{
		ClientID: "my-app",
		Endpoint: oauth2.Endpoint{
			AuthURL:  "https://auth.example.com/authorize",
			TokenURL: "https://auth.example.com/token",
		},
	}
	// From the app's authorization code flow (conf.AuthCodeURL with
	// oauth2.S256ChallengeOption and the resource parameter, then
	// conf.Exchange with oauth2.VerifierOption), or from storage.
	saved := &oauth2.Token{RefreshToken: "…"}

	var mu sync.Mutex
	src := conf.TokenSource(ctx, saved)
	tr := &mcplive.HTTPTransport{
		URL: "https://mcp.example.com/mcp",
		Token: func(ctx context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			t, err := src.Token()
			if err != nil {
				return "", err
			}
			return t.AccessToken, nil
		},
		OnUnauthorized: func(ctx context.Context, e *mcplive.AuthError) error {
			if e.Code == "insufficient_scope" {
				return errors.New("needs a new authorization with scope " + e.Scope)
			}
			mu.Lock()
			defer mu.Unlock()
			t, err := src.Token()
			if err != nil {
				return err
			}
			// Refresh now, not at expiry: the server refused this token.
			src = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: t.RefreshToken})
			return nil
		},
	}
	c, err := mcplive.Connect(ctx, tr.URL, &mcplive.Options{Transport: tr})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
}
