package oauthtest

import (
	"slices"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
)

// TestMetadataRewrite: Options.Metadata rewrites the document at every
// well-known URL.
func TestMetadataRewrite(t *testing.T) {
	t.Parallel()
	s := New(t, Options{Path: "/t", Metadata: func(doc map[string]any) {
		delete(doc, "code_challenge_methods_supported")
		doc["x_test"] = "rewritten"
	}})
	for _, u := range []string{s.MetadataURL(), s.Issuer() + "/.well-known/openid-configuration", s.URL() + "/.well-known/openid-configuration/t"} {
		var doc map[string]any
		getJSON(t, u, &doc)
		if _, ok := doc["code_challenge_methods_supported"]; ok || doc["x_test"] != "rewritten" || doc["issuer"] != s.Issuer() {
			t.Errorf("%s: %v", u, doc)
		}
	}
}

// TestNoPKCE: an issuer without PKCE lists no methods and refuses S256.
func TestNoPKCE(t *testing.T) {
	t.Parallel()
	s := New(t, Options{NoPKCE: true})
	var doc map[string]any
	getJSON(t, s.MetadataURL(), &doc)
	if m, ok := doc["code_challenge_methods_supported"].([]any); ok && len(m) > 0 {
		t.Errorf("code_challenge_methods_supported = %v", m)
	}
	bob := User{Username: "bob", Password: "builder"}
	s.AddUser(bob)
	const redirect = "http://127.0.0.1:1/cb"
	cfg, verifier := codeFlow(s, s.PublicClient(redirect), "", redirect)
	back, err := s.TryLogin(cfg.AuthCodeURL("x", oauth2.S256ChallengeOption(verifier)), bob)
	if err != nil || back.Query().Get("error") != "invalid_request" || !strings.Contains(back.Query().Get("error_description"), "code_challenge_method") {
		t.Errorf("S256 at an issuer without PKCE: %v, %v", back, err)
	}
}

// TestTokenTypeHeader: TokenRequest.Type sets the JWT's typ, or leaves it
// out, keeping its claims and key.
func TestTokenTypeHeader(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	for _, typ := range []string{"", "at+jwt", "id_token+jwt", NoType} {
		token := s.Token(t, TokenRequest{Subject: "alice", Scopes: []string{"a"}, Type: typ})
		jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
		if err != nil {
			t.Fatal(err)
		}
		got, present := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType]
		want := map[string]string{"": "JWT", NoType: ""}[typ]
		if want == "" && typ != NoType {
			want = typ
		}
		if typ == NoType && present || typ != NoType && got != want {
			t.Errorf("Type %q: typ %v (present %v), want %q", typ, got, present, want)
		}
		std, extra, kid := verifyJWT(t, s, token)
		if std.Subject != "alice" || extra.Scope != "a" || kid != s.KeyID() || !slices.Contains(std.Audience, DefaultAudience) {
			t.Errorf("Type %q: claims %+v %+v, kid %q", typ, std, extra, kid)
		}
	}
}
