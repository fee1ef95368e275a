package protect

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DPoP (RFC 9449) on the resource server's side: a request that presents
// its token as "Authorization: DPoP <token>" carries a proof (the DPoP
// header, an ES256 JWT signed by the key in its jwk header) of this
// request's method and URL and of the token's hash; the token's
// introspection then names that key (cnf.jkt), and a token bound to a key
// is refused when presented as a plain bearer.

type jktKey struct{}

// withJKT records the thumbprint of the key whose proof came with the request.
func withJKT(ctx context.Context, jkt string) context.Context {
	return context.WithValue(ctx, jktKey{}, jkt)
}

func jktFrom(ctx context.Context) string {
	s, _ := ctx.Value(jktKey{}).(string)
	return s
}

// seenJTIs keeps the proofs' jti for a while: a proof is used once.
var seenJTIs sync.Map

// checkProof verifies a DPoP proof for method, the resource URL and token,
// and returns its key's RFC 7638 thumbprint.
func checkProof(proof, method, resource, token string) (string, error) {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return "", errors.New("the DPoP proof is not a JWT")
	}
	var hdr struct {
		Typ string `json:"typ"`
		Alg string `json:"alg"`
		JWK struct {
			Kty string `json:"kty"`
			Crv string `json:"crv"`
			X   string `json:"x"`
			Y   string `json:"y"`
			D   string `json:"d"`
		} `json:"jwk"`
	}
	var claims struct {
		JTI   string `json:"jti"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		IAT   int64  `json:"iat"`
		ATH   string `json:"ath"`
		Nonce string `json:"nonce"`
	}
	if err := decodePart(parts[0], &hdr); err != nil {
		return "", err
	}
	if err := decodePart(parts[1], &claims); err != nil {
		return "", err
	}
	if hdr.Typ != "dpop+jwt" || hdr.Alg != "ES256" || hdr.JWK.Kty != "EC" || hdr.JWK.Crv != "P-256" || hdr.JWK.D != "" {
		return "", errors.New("the DPoP proof is not an ES256 dpop+jwt with a public P-256 jwk")
	}
	x, errX := base64.RawURLEncoding.DecodeString(hdr.JWK.X)
	y, errY := base64.RawURLEncoding.DecodeString(hdr.JWK.Y)
	sig, errS := base64.RawURLEncoding.DecodeString(parts[2])
	if errX != nil || errY != nil || errS != nil || len(sig) != 64 {
		return "", errors.New("the DPoP proof's key or signature is malformed")
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", errors.New("the DPoP proof's signature does not verify")
	}
	if claims.HTM != method {
		return "", errors.New("the DPoP proof is for another method")
	}
	if trimURL(claims.HTU) != trimURL(resource) {
		return "", errors.New("the DPoP proof is for another URL")
	}
	if d := time.Since(time.Unix(claims.IAT, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "", errors.New("the DPoP proof's iat is out of range")
	}
	ath := sha256.Sum256([]byte(token))
	if claims.ATH != base64.RawURLEncoding.EncodeToString(ath[:]) {
		return "", errors.New("the DPoP proof's ath is not this token's")
	}
	if claims.JTI == "" {
		return "", errors.New("the DPoP proof has no jti")
	}
	if _, dup := seenJTIs.LoadOrStore(claims.JTI, time.Now()); dup {
		return "", errors.New("the DPoP proof was used already")
	}
	tp := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + hdr.JWK.X + `","y":"` + hdr.JWK.Y + `"}`))
	return base64.RawURLEncoding.EncodeToString(tp[:]), nil
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errors.New("the DPoP proof is not base64url")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errors.New("the DPoP proof is not JSON")
	}
	return nil
}

// trimURL is a URL without its query, fragment and trailing slash, scheme and host lower-cased.
func trimURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.Path, "/")
}
