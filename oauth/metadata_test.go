package oauth_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/oauth"
)

// TestDiscoverWithoutPKCE: a resource server starts with an issuer whose
// metadata does not list code_challenge_methods_supported (Microsoft
// Entra ID, Amazon Cognito), lists only plain, or lists S256; and
// verifies its tokens.
func TestDiscoverWithoutPKCE(t *testing.T) {
	tests := []struct {
		name string
		opts oauthtest.Options
	}{
		{"S256 listed", oauthtest.Options{}},
		{"field left out", oauthtest.Options{Metadata: func(doc map[string]any) { delete(doc, "code_challenge_methods_supported") }}},
		{"field left out, issuer with a path", oauthtest.Options{Path: "/tenant", Metadata: func(doc map[string]any) { delete(doc, "code_challenge_methods_supported") }}},
		{"empty list", oauthtest.Options{Metadata: func(doc map[string]any) { doc["code_challenge_methods_supported"] = []string{} }}},
		{"plain only", oauthtest.Options{Metadata: func(doc map[string]any) { doc["code_challenge_methods_supported"] = []string{"plain"} }}},
		{"an issuer without PKCE", oauthtest.Options{NoPKCE: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Audience = audience
			as := oauthtest.New(t, tt.opts)
			v := newVerifier(t, as, true, nil)
			if v.Metadata().JWKSURI != as.JWKSURI() || v.Metadata().IntrospectionEndpoint != as.IntrospectionEndpoint() {
				t.Errorf("metadata %+v", v.Metadata())
			}
			if _, err := v.Verify(context.Background(), as.Token(t, oauthtest.TokenRequest{Subject: "alice"})); err != nil {
				t.Errorf("Verify a JWT: %v", err)
			}
			if _, err := v.Verify(context.Background(), as.Token(t, oauthtest.TokenRequest{Subject: "alice", Opaque: true})); err != nil {
				t.Errorf("Verify an opaque token: %v", err)
			}
			// RFC 8414's document is read first, and is enough.
			if n := as.Requests("/.well-known/openid-configuration" + tt.opts.Path); n != 0 {
				t.Errorf("%d requests for OpenID Connect discovery, want 0", n)
			}
		})
	}
}

// TestDiscoverOrder: where RFC 8414's document is missing, OpenID Connect
// discovery is read: with the issuer's path inserted, then appended.
func TestDiscoverOrder(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{Audience: audience, Path: "/tenant",
		Metadata: func(doc map[string]any) { delete(doc, "code_challenge_methods_supported") }})
	for _, missing := range [][]string{
		{"/.well-known/oauth-authorization-server/tenant"},
		{"/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant"},
	} {
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			for _, p := range missing {
				if r.URL.Path == p {
					return &http.Response{StatusCode: http.StatusNotFound, Body: http.NoBody, Request: r}, nil
				}
			}
			return http.DefaultTransport.RoundTrip(r)
		})}
		before := as.Requests("/tenant/.well-known/openid-configuration")
		v, err := oauth.NewVerifier(context.Background(), oauth.Config{Issuer: as.Issuer(), Audience: audience, Client: client})
		if err != nil {
			t.Fatalf("without %v: %v", missing, err)
		}
		if v.Metadata().JWKSURI != as.JWKSURI() {
			t.Errorf("without %v: jwks_uri %q", missing, v.Metadata().JWKSURI)
		}
		appended := as.Requests("/tenant/.well-known/openid-configuration") - before
		if want := len(missing) - 1; appended != want {
			t.Errorf("without %v: %d requests for the appended OpenID Connect path, want %d", missing, appended, want)
		}
	}
}

// TestDiscoverRefuses: metadata that is not the issuer's, not JSON, or
// names unsafe URLs is refused as before, PKCE or not.
func TestDiscoverRefuses(t *testing.T) {
	set := func(key, value string) func(map[string]any) {
		return func(doc map[string]any) {
			delete(doc, "code_challenge_methods_supported")
			doc[key] = value
		}
	}
	tests := []struct {
		name     string
		metadata func(map[string]any)
		answer   func(w http.ResponseWriter) // replaces the RFC 8414 document when set
		want     string
	}{
		{name: "another issuer", metadata: set("issuer", "https://other.test"), want: `metadata issuer "https://other.test" does not match issuer URL`},
		{name: "script jwks_uri", metadata: set("jwks_uri", "javascript:alert(1)"), want: `jwks_uri: URL has disallowed scheme "javascript"`},
		{name: "plain http introspection", metadata: set("introspection_endpoint", "http://idp.test/introspect"), want: "introspection_endpoint: URL \"http://idp.test/introspect\" does not use HTTPS"},
		{name: "server error", answer: func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }, want: "bad status 502"},
		{name: "not JSON", answer: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>")
		}, want: `bad content type "text/html"`},
		{name: "broken JSON", answer: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"issuer":`)
		}, want: "is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.New(t, oauthtest.Options{Audience: audience, Metadata: tt.metadata})
			client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if tt.answer != nil && r.URL.Path == "/.well-known/oauth-authorization-server" {
					w := httptest.NewRecorder()
					tt.answer(w)
					return w.Result(), nil
				}
				return http.DefaultTransport.RoundTrip(r)
			})}
			_, err := oauth.NewVerifier(context.Background(), oauth.Config{Issuer: as.Issuer(), Audience: audience, Client: client})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "discover the metadata of "+as.Issuer()) {
				t.Fatalf("NewVerifier: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestDiscoverNoDowngrade: a redirect of the metadata from https to http
// is refused.
func TestDiscoverNoDowngrade(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the metadata was fetched over http: %s", r.URL)
	}))
	defer plain.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
	}))
	defer tls.Close()
	_, err := oauth.NewVerifier(context.Background(), oauth.Config{Issuer: tls.URL, Audience: audience, Client: tls.Client()})
	if err == nil || !strings.Contains(err.Error(), "security downgrade") {
		t.Fatalf("NewVerifier: %v, want a refused downgrade", err)
	}
}
