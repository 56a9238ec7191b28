package approve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/oauth2"

	"github.com/flowserve/flowserve/approvals"
)

// SignInPath is where the issuer sends people back after they signed in:
// register it as the redirect URI of the client (the server's public URL
// followed by SignInPath).
const SignInPath = approvals.PathPrefix + "signed-in"

// The cookies of sign-in: one binds the sign-in to the browser that began
// it, the other holds who signed in, for one link.
const (
	signInCookie   = "flowserve_signin"
	approverCookie = "flowserve_approver"
)

// How long a sign-in may take, and how long it lasts.
const (
	signInTime   = 10 * time.Minute
	approverTime = time.Hour
)

// Approver is a person who signed in at the issuer.
type Approver struct {
	Subject string // the ID token's sub
	Name    string // its name, or ""
	Email   string // its email, or ""
	// EmailVerified is the ID token's email_verified: only a verified
	// email matches a question addressed to it.
	EmailVerified bool `json:",omitempty"`
}

// display names the approver for people: the name, else the email, else
// the subject.
func (a *Approver) display() string {
	switch {
	case a.Name != "" && a.Email != "":
		return a.Name + " (" + a.Email + ")"
	case a.Name != "":
		return a.Name
	case a.Email != "":
		return a.Email
	}
	return a.Subject
}

// SignInConfig configures SignIn.
type SignInConfig struct {
	// Issuer is the OpenID Connect issuer people sign in at.
	Issuer string
	// ClientID and ClientSecret are the server's client at the issuer,
	// registered with the redirect URI <public URL> + SignInPath.
	ClientID, ClientSecret string
	// Client makes the requests to the issuer; default http.DefaultClient.
	Client *http.Client
}

// SignIn makes the approval pages ask people to sign in at an OpenID
// Connect issuer (authorization code with PKCE and a nonce) before they
// see the form; their answer is then recorded with their subject rather
// than a name they type. go-oidc discovers the issuer and verifies the ID
// token.
//
// PKCE is always S256. An issuer whose metadata leaves out
// code_challenge_methods_supported (Microsoft Entra ID, Amazon Cognito)
// is assumed to support it; one that lists methods without S256 is
// refused by NewSignIn, and one that refuses S256 when a person signs in
// makes the sign-in fail with a page and a log line that say so.
type SignIn struct {
	issuer   string
	verifier *oidc.IDTokenVerifier
	oauth    oauth2.Config // RedirectURL is set per request
	client   *http.Client
}

// NewSignIn discovers the issuer and returns a SignIn for it.
func NewSignIn(ctx context.Context, cfg SignInConfig) (*SignIn, error) {
	if cfg.ClientID == "" {
		return nil, errors.New("approve: sign-in needs a client id")
	}
	client := cfg.Client
	if client == nil {
		client = http.DefaultClient
	}
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, client), cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("approve: discover %s for sign-in: %w", cfg.Issuer, err)
	}
	if err := checkPKCE(provider, cfg.Issuer); err != nil {
		return nil, err
	}
	return &SignIn{
		issuer:   cfg.Issuer,
		verifier: provider.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: provider.Endpoint(),
			Scopes: []string{oidc.ScopeOpenID, "profile", "email"}},
		client: client,
	}, nil
}

// checkPKCE refuses an issuer whose metadata lists the PKCE methods it
// supports without S256. A metadata without the list says nothing, and
// S256 is assumed: OAuth 2.1 requires it of every issuer, and some that
// support it leave the list out.
func checkPKCE(p *oidc.Provider, issuer string) error {
	var meta struct {
		Methods []string `json:"code_challenge_methods_supported"`
	}
	if err := p.Claims(&meta); err != nil {
		return fmt.Errorf("approve: the metadata of %s: code_challenge_methods_supported is not a list of strings: %w", issuer, err)
	}
	if len(meta.Methods) > 0 && !slices.Contains(meta.Methods, "S256") {
		return fmt.Errorf("approve: %s does not support PKCE with S256 (its metadata lists code_challenge_methods_supported %q), which approval sign-in requires", issuer, meta.Methods)
	}
	return nil
}

// signInState is what the state parameter of a sign-in carries.
type signInState struct {
	Token    string `json:"t"` // the link
	Verifier string `json:"v"` // the PKCE code verifier
	Nonce    string `json:"n"`
	Browser  string `json:"b"` // the digest of the sign-in cookie
	Expires  int64  `json:"e"` // unix seconds
}

// approverSeal is what the approver cookie carries.
type approverSeal struct {
	Approver
	Link    [sha256.Size]byte `json:"l"` // the digest of the link it is for
	Expires int64             `json:"e"`
}

// begin sends the browser to the issuer to sign in for token's page.
func (h *handler) begin(w http.ResponseWriter, r *http.Request, token string) {
	browser := randomText()
	st := signInState{Token: token, Verifier: oauth2.GenerateVerifier(), Nonce: randomText(),
		Browser: digestText(browser), Expires: h.now().Add(signInTime).Unix()}
	state, err := h.k.sealJSON(st)
	if err != nil {
		h.log.Error("approval sign-in failed", "err", err)
		h.write(w, http.StatusInternalServerError, noticeFailed)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: browser, Path: approvals.PathPrefix, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, MaxAge: int(signInTime / time.Second)})
	cfg := h.signIn.oauth
	cfg.RedirectURL = h.base(r) + SignInPath
	http.Redirect(w, r, cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(st.Verifier), oidc.Nonce(st.Nonce)), http.StatusSeeOther)
}

// signedIn takes the person back from the issuer: it checks the state
// against the browser's cookie, exchanges the code, verifies the ID token
// and its nonce, keeps who signed in in a cookie for the link, and sends
// the browser to the link's page.
func (h *handler) signedIn(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var st signInState
	cookie, cerr := r.Cookie(signInCookie)
	switch {
	case r.Method != http.MethodGet:
		w.Header().Set("Allow", "GET")
		h.write(w, http.StatusMethodNotAllowed, noticeMethod)
		return
	case h.k.openJSON(q.Get("state"), &st) != nil || !h.now().Before(time.Unix(st.Expires, 0)):
		h.write(w, http.StatusBadRequest, noticeSignInFailed)
		return
	case cerr != nil || subtle.ConstantTimeCompare([]byte(digestText(cookie.Value)), []byte(st.Browser)) != 1:
		h.log.Info("approval sign-in refused", "reason", "not the browser that began it")
		h.write(w, http.StatusForbidden, noticeSignInFailed)
		return
	case q.Get("error") != "":
		h.issuerRefused(w, q.Get("error"), q.Get("error_description"))
		return
	}
	a, err := h.exchange(r, q.Get("code"), &st)
	if re, ok := errors.AsType[*oauth2.RetrieveError](err); ok && pkceRefused(re.ErrorCode, re.ErrorDescription) {
		h.issuerRefused(w, re.ErrorCode, re.ErrorDescription)
		return
	}
	if err != nil {
		h.log.Info("approval sign-in failed", "err", err)
		h.write(w, http.StatusForbidden, noticeSignInFailed)
		return
	}
	value, err := h.k.sealJSON(approverSeal{Approver: *a, Link: sha256.Sum256([]byte(st.Token)), Expires: h.now().Add(approverTime).Unix()})
	if err != nil {
		h.write(w, http.StatusInternalServerError, noticeFailed)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: "", Path: approvals.PathPrefix, MaxAge: -1})
	http.SetCookie(w, &http.Cookie{Name: approverCookie, Value: value, Path: approvals.PathPrefix, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, MaxAge: int(approverTime / time.Second)})
	h.log.Info("approver signed in", "sub", a.Subject)
	http.Redirect(w, r, approvals.Path(st.Token), http.StatusSeeOther)
}

// issuerRefused answers a sign-in the issuer refused with an OAuth error:
// when the error says it refused PKCE with S256, the page and the log say
// so, for the operator to choose an issuer or client settings that
// support it.
func (h *handler) issuerRefused(w http.ResponseWriter, code, description string) {
	description = clip(description, 300)
	if pkceRefused(code, description) {
		h.log.Error("approval sign-in failed: the issuer refused PKCE with S256 (code_challenge_method=S256), which approval sign-in requires; enable S256 PKCE for the client at the issuer",
			"issuer", h.signIn.issuer, "error", clip(code, 100), "error_description", description)
		h.write(w, http.StatusBadGateway, noticePKCERefused)
		return
	}
	h.log.Info("approval sign-in refused by the issuer", "issuer", h.signIn.issuer, "error", clip(code, 100), "error_description", description)
	h.write(w, http.StatusForbidden, noticeSignInFailed)
}

// pkceRefused reports whether an OAuth error says the issuer refused
// PKCE: invalid_request (at the authorization endpoint, RFC 7636 §4.4.1)
// or invalid_grant (at the token endpoint) with a description that names
// the code challenge, its method or the verifier.
func pkceRefused(code, description string) bool {
	if code != "invalid_request" && code != "invalid_grant" {
		return false
	}
	d := strings.ToLower(description)
	for _, word := range []string{"code_challenge", "code challenge", "code_verifier", "code verifier", "pkce", "s256", "transform"} {
		if strings.Contains(d, word) {
			return true
		}
	}
	return false
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// exchange trades the code for tokens and returns who the ID token names.
func (h *handler) exchange(r *http.Request, code string, st *signInState) (*Approver, error) {
	ctx := oidc.ClientContext(r.Context(), h.signIn.client)
	cfg := h.signIn.oauth
	cfg.RedirectURL = h.base(r) + SignInPath
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(st.Verifier))
	if err != nil {
		return nil, fmt.Errorf("exchange the code: %w", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return nil, errors.New("the issuer sent no ID token")
	}
	id, err := h.signIn.verifier.Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("verify the ID token: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(st.Nonce)) != 1 {
		return nil, errors.New("the ID token's nonce is not the sign-in's")
	}
	var claims struct {
		Name          string `json:"name"`
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"` // a boolean, or (some issuers) "true"
	}
	if err := id.Claims(&claims); err != nil {
		return nil, fmt.Errorf("read the ID token's claims: %w", err)
	}
	verified := claims.EmailVerified == true || claims.EmailVerified == "true"
	return &Approver{Subject: id.Subject, Name: claims.Name, Email: claims.Email, EmailVerified: verified}, nil
}

// approver returns who signed in for token in this browser, or nil.
func (h *handler) approver(r *http.Request, token string) *Approver {
	c, err := r.Cookie(approverCookie)
	if err != nil {
		return nil
	}
	var a approverSeal
	if h.k.openJSON(c.Value, &a) != nil || !h.now().Before(time.Unix(a.Expires, 0)) ||
		a.Link != sha256.Sum256([]byte(token)) || a.Subject == "" {
		return nil
	}
	return &a.Approver
}

// base returns the server's URL as the person reached it.
func (h *handler) base(r *http.Request) string {
	if h.publicURL != "" {
		return strings.TrimRight(h.publicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// noticeSignInFailed is the page of a sign-in that did not succeed;
// noticePKCERefused the page of one the issuer refused for its PKCE.
var (
	noticeSignInFailed = view{Heading: "Signing in did not succeed", Lines: []string{"Open the link you were sent again to sign in."}}
	noticePKCERefused  = view{Heading: "Signing in did not succeed", Lines: []string{
		"The sign-in service refused the secure sign-in this server uses (PKCE with S256).",
		"Opening the link again will not help: tell the operator of this server, who can enable it at the sign-in service.",
	}}
)

// sealJSON seals v, as JSON, with the sign-in key.
func (k *keys) sealJSON(v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	out := make([]byte, chacha20poly1305.NonceSizeX, chacha20poly1305.NonceSizeX+len(plain)+k.signIn.Overhead())
	if _, err := io.ReadFull(k.rand, out); err != nil {
		return "", fmt.Errorf("approve: making a nonce: %w", err)
	}
	return encoding.EncodeToString(k.signIn.Seal(out, out, plain, nil)), nil
}

// openJSON opens what sealJSON sealed into v.
func (k *keys) openJSON(sealed string, v any) error {
	raw, err := encoding.DecodeString(sealed)
	if err != nil || len(raw) < chacha20poly1305.NonceSizeX+k.signIn.Overhead() || len(raw) > 8<<10 {
		return approvals.ErrBadToken
	}
	plain, err := k.signIn.Open(nil, raw[:chacha20poly1305.NonceSizeX], raw[chacha20poly1305.NonceSizeX:], nil)
	if err != nil || json.Unmarshal(plain, v) != nil {
		return approvals.ErrBadToken
	}
	return nil
}

// randomText returns 32 random bytes in base64url.
func randomText() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return encoding.EncodeToString(b)
}

// digestText returns the SHA-256 of s in base64url.
func digestText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return encoding.EncodeToString(sum[:])
}
