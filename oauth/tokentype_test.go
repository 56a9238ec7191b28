package oauth_test

import (
	"context"
	"testing"

	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/oauth"
)

// TestTokenType: a JWT signed by the issuer for this audience is still
// refused when its typ says it is not an access token (an ID token, a
// logout token, a security event, ...); at+jwt is always accepted, JWT
// and no typ only without RequireATJWT.
func TestTokenType(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{Audience: audience})
	tests := []struct {
		typ         string // TokenRequest.Type: "" is the op's own, JWT
		lax, strict bool   // accepted by default, with RequireATJWT
	}{
		{typ: "", lax: true},
		{typ: oauthtest.NoType, lax: true},
		{typ: "JWT", lax: true},
		{typ: "jwt", lax: true},
		{typ: "application/jwt", lax: true},
		{typ: "at+jwt", lax: true, strict: true},
		{typ: "application/at+jwt", lax: true, strict: true},
		{typ: "AT+JWT", lax: true, strict: true},
		{typ: "Application/At+Jwt", lax: true, strict: true},
		{typ: "id_token+jwt"},
		{typ: "application/id_token+jwt"},
		{typ: "logout+jwt"},
		{typ: "secevent+jwt"},
		{typ: "JWT+secevent"},
		{typ: "dpop+jwt"},
		{typ: "token-introspection+jwt"},
		{typ: "at+jwt; charset=utf-8"},
		{typ: "application/x/at+jwt"},
		{typ: "at+jwt "},
	}
	for _, strict := range []bool{false, true} {
		v, err := oauth.NewVerifier(context.Background(), oauth.Config{Issuer: as.Issuer(), Audience: audience, RequireATJWT: strict})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			want := tt.lax
			if strict {
				want = tt.strict
			}
			token := as.Token(t, oauthtest.TokenRequest{Subject: "alice", Scopes: []string{"deploy:read"}, Type: tt.typ})
			p, err := v.Verify(context.Background(), token)
			switch {
			case want && err != nil:
				t.Errorf("typ %q (RequireATJWT %v): %v, want accepted", tt.typ, strict, err)
			case want && p.Subject != "alice":
				t.Errorf("typ %q (RequireATJWT %v): principal %+v", tt.typ, strict, p)
			case !want && reasonOf(err) != oauth.ReasonTokenType:
				t.Errorf("typ %q (RequireATJWT %v): %v, want refused as %q", tt.typ, strict, err, oauth.ReasonTokenType)
			}
		}
	}
}
