package oauthtest

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// defaultLifetime is the lifetime of access tokens that do not name one.
const defaultLifetime = time.Hour

// storage keeps the server's clients, users, requests, tokens and keys in
// memory; it implements op.Storage and op.ClientCredentialsStorage.
type storage struct {
	audience string
	noPKCE   bool // Options.NoPKCE

	mu       sync.Mutex
	clients  map[string]*client
	users    map[string]User // by username
	subjects map[string]User // by subject
	authReqs map[string]*authRequest
	codes    map[string]string // code to auth request id
	tokens   map[string]*accessToken
	keys     []*signingKey // the last one signs
	tickets  map[string]TokenRequest
}

var (
	_ op.Storage                        = (*storage)(nil)
	_ op.ClientCredentialsStorage       = (*storage)(nil)
	_ op.CanGetPrivateClaimsFromRequest = (*storage)(nil)
)

// newStorage returns a storage with one signing key.
func newStorage(audience string) (*storage, error) {
	key, err := newSigningKey()
	if err != nil {
		return nil, err
	}
	return &storage{
		audience: audience,
		clients:  map[string]*client{},
		users:    map[string]User{},
		subjects: map[string]User{},
		authReqs: map[string]*authRequest{},
		codes:    map[string]string{},
		tokens:   map[string]*accessToken{},
		keys:     []*signingKey{key},
		tickets:  map[string]TokenRequest{},
	}, nil
}

// addClient registers c, replacing any client with its ID.
func (s *storage) addClient(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[c.id] = c
}

// serviceClient returns the client_credentials client for subject,
// registering it (its ID is the subject) on first use.
func (s *storage) serviceClient(subject string) (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[subject]; ok {
		if c.kind != kindService {
			return nil, fmt.Errorf("subject %q is the ID of a client of another kind", subject)
		}
		return c, nil
	}
	c := &client{id: subject, secret: randomID(), kind: kindService, subject: subject, tokenType: op.AccessTokenTypeJWT}
	s.clients[subject] = c
	return c, nil
}

// addTicket keeps req for the grant that names the returned ticket.
func (s *storage) addTicket(req TokenRequest) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := randomID()
	s.tickets[id] = req
	return id
}

// takeTicket returns and forgets the TokenRequest kept under id.
func (s *storage) takeTicket(id string) (TokenRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.tickets[id]
	delete(s.tickets, id)
	return req, ok
}

// addUser registers u under its username and subject.
func (s *storage) addUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[u.Username] = u
	s.subjects[u.Subject] = u
}

// userBySubject returns the user with the subject, if there is one.
func (s *storage) userBySubject(sub string) (User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.subjects[sub]
	return u, ok
}

// authRequestExists reports whether id names a pending authorization request.
func (s *storage) authRequestExists(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.authReqs[id]
	return ok
}

// login checks the username and password and, if they are right, marks the
// authorization request id as signed in by that user.
func (s *storage) login(id, username, password string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.authReqs[id]
	if !ok {
		return errors.New("unknown authorization request")
	}
	u, ok := s.users[username]
	if !ok || subtle.ConstantTimeCompare([]byte(u.Password), []byte(password)) != 1 {
		return errors.New("invalid username or password")
	}
	req.subject = u.Subject
	req.authTime = time.Now()
	req.done = true
	return nil
}

// rotate adds a new signing key, dropping the others if dropOld.
func (s *storage) rotate(key *signingKey, dropOld bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if dropOld {
		s.keys = nil
	}
	s.keys = append(s.keys, key)
}

// currentKey returns the key that signs new tokens.
func (s *storage) currentKey() *signingKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1]
}

// keyByID returns the published key with the kid.
func (s *storage) keyByID(kid string) (*signingKey, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.keys {
		if k.id == kid {
			return k, true
		}
	}
	return nil, false
}

// CreateAuthRequest implements op.AuthStorage. It requires PKCE with S256,
// as OAuth 2.1 and MCP do (with Options.NoPKCE it refuses S256 instead),
// and takes the audience from the RFC 8707 resource parameters, or the
// server's default.
func (s *storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if slices.Contains(req.Prompt, oidc.PromptNone) {
		return nil, oidc.ErrLoginRequired()
	}
	if s.noPKCE && req.CodeChallengeMethod == oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge_method S256 is not supported")
	}
	if req.CodeChallenge == "" {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge is required (PKCE)")
	}
	if req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256")
	}
	aud := paramsFrom(ctx).resources
	if len(aud) == 0 {
		aud = []string{s.audience}
	}
	a := &authRequest{id: randomID(), req: *req, audience: aud}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authReqs[a.id] = a
	c := *a
	return &c, nil
}

// AuthRequestByID implements op.AuthStorage; it returns a copy.
func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.authReqs[id]
	if !ok {
		return nil, errors.New("authorization request not found")
	}
	c := *a
	return &c, nil
}

// AuthRequestByCode implements op.AuthStorage.
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errors.New("invalid or used authorization code")
	}
	return s.AuthRequestByID(ctx, id)
}

// SaveAuthCode implements op.AuthStorage.
func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest implements op.AuthStorage; the request's code dies with it.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.authReqs, id)
	maps.DeleteFunc(s.codes, func(_, reqID string) bool { return reqID == id })
	return nil
}

// CreateAccessToken implements op.AuthStorage for client_credentials and
// authorization code grants.
func (s *storage) CreateAccessToken(_ context.Context, request op.TokenRequest) (string, time.Time, error) {
	now := time.Now()
	t := &accessToken{
		id:       randomID(),
		subject:  request.GetSubject(),
		audience: request.GetAudience(),
		scopes:   request.GetScopes(),
		issued:   now,
		expires:  now.Add(defaultLifetime),
	}
	switch r := request.(type) {
	case *ccRequest:
		t.clientID = r.clientID
		t.expires = now.Add(r.lifetime)
		t.claims = r.claims
	case *authRequest:
		t.clientID = r.GetClientID()
		if u, ok := s.userBySubject(r.subject); ok {
			t.username = u.Username
			if u.Email != "" && slices.Contains(r.GetScopes(), oidc.ScopeEmail) {
				t.claims = map[string]any{"email": u.Email}
			}
		}
	default:
		return "", time.Time{}, fmt.Errorf("unsupported token request %T", request)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[t.id] = t
	return t.id, t.expires, nil
}

// CreateAccessAndRefreshTokens implements op.AuthStorage; refresh tokens are not supported.
func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, oidc.ErrUnsupportedGrantType().WithDescription("refresh tokens are not supported")
}

// TokenRequestByRefreshToken implements op.AuthStorage; refresh tokens are not supported.
func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, oidc.ErrInvalidGrant().WithDescription("refresh tokens are not supported")
}

// TerminateSession implements op.AuthStorage: it forgets the user's tokens for the client.
func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.tokens, func(_ string, t *accessToken) bool {
		return t.subject == userID && t.clientID == clientID
	})
	return nil
}

// GetRefreshTokenInfo implements op.AuthStorage; there are no refresh tokens.
func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

// RevokeToken implements op.AuthStorage for access tokens issued to the client.
func (s *storage) RevokeToken(_ context.Context, tokenID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenID]
	if !ok {
		return nil
	}
	if t.clientID != clientID {
		return oidc.ErrInvalidClient().WithDescription("token was not issued to this client")
	}
	delete(s.tokens, tokenID)
	return nil
}

// revoke forgets the token with the ID, so that it introspects inactive.
func (s *storage) revoke(tokenID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, tokenID)
}

// SigningKey implements op.AuthStorage.
func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	return s.currentKey(), nil
}

// SignatureAlgorithms implements op.AuthStorage.
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet implements op.AuthStorage: every published key.
func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]op.Key, len(s.keys))
	for i, k := range s.keys {
		keys[i] = publicKey{k}
	}
	return keys, nil
}

// GetClientByClientID implements op.OPStorage; it returns a copy.
func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, fmt.Errorf("client %q not found", id)
	}
	cc := *c
	return &cc, nil
}

// authenticate returns a copy of the client if the secret is its own.
func (s *storage) authenticate(id, secret string) (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.public || subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return nil, errors.New("wrong client id or secret")
	}
	cc := *c
	return &cc, nil
}

// AuthorizeClientIDSecret implements op.OPStorage.
func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	_, err := s.authenticate(id, secret)
	return err
}

// SetUserinfoFromScopes implements op.OPStorage: the ID token's user claims.
func (s *storage) SetUserinfoFromScopes(_ context.Context, info *oidc.UserInfo, userID, _ string, scopes []string) error {
	s.userinfo(info, userID, scopes)
	return nil
}

// userinfo fills info with the claims of the user sub that the scopes grant.
func (s *storage) userinfo(info *oidc.UserInfo, sub string, scopes []string) {
	info.Subject = sub
	u, ok := s.userBySubject(sub)
	if !ok {
		return
	}
	if slices.Contains(scopes, oidc.ScopeEmail) && u.Email != "" {
		info.Email = u.Email
		info.EmailVerified = true
	}
	if slices.Contains(scopes, oidc.ScopeProfile) {
		info.Name = u.Name
		info.PreferredUsername = u.Username
	}
}

// token returns the unexpired token with the ID.
func (s *storage) token(id string) (*accessToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[id]
	if !ok {
		return nil, errors.New("token not found")
	}
	if !time.Now().Before(t.expires) {
		return nil, errors.New("token expired")
	}
	return t, nil
}

// SetUserinfoFromToken implements op.OPStorage for the userinfo endpoint.
func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, _, _ string) error {
	t, err := s.token(tokenID)
	if err != nil {
		return err
	}
	s.userinfo(info, t.subject, t.scopes)
	return nil
}

// SetIntrospectionFromToken implements op.OPStorage. Only the introspector
// client may introspect; for others, and for unknown or expired tokens, the
// answer is {"active":false}.
func (s *storage) SetIntrospectionFromToken(ctx context.Context, resp *oidc.IntrospectionResponse, tokenID, _, clientID string) error {
	s.mu.Lock()
	c, ok := s.clients[clientID]
	s.mu.Unlock()
	if !ok || c.kind != kindIntrospector {
		return fmt.Errorf("client %q may not introspect", clientID)
	}
	t, err := s.token(tokenID)
	if err != nil {
		return err
	}
	info := new(oidc.UserInfo)
	s.userinfo(info, t.subject, t.scopes)
	resp.SetUserInfo(info)
	if resp.Claims == nil {
		resp.Claims = map[string]any{}
	}
	maps.Copy(resp.Claims, t.claims)
	resp.Scope = t.scopes
	resp.ClientID = t.clientID
	resp.TokenType = oidc.BearerToken
	resp.Expiration = oidc.FromTime(t.expires)
	resp.IssuedAt = oidc.FromTime(t.issued)
	resp.NotBefore = oidc.FromTime(t.issued)
	resp.Subject = t.subject
	resp.Audience = t.audience
	resp.Issuer = op.IssuerFromContext(ctx)
	resp.JWTID = t.id
	resp.Username = t.username
	return nil
}

// GetPrivateClaimsFromScopes implements op.OPStorage; GetPrivateClaimsFromRequest is used instead.
func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

// GetPrivateClaimsFromRequest implements op.CanGetPrivateClaimsFromRequest:
// the claims of a JWT access token beyond the registered ones, that is the
// TokenRequest's Claims (or the user's email) and the granted scopes as
// "scope", space-separated.
func (s *storage) GetPrivateClaimsFromRequest(_ context.Context, request op.TokenRequest, _ []string) (map[string]any, error) {
	claims := map[string]any{}
	switch r := request.(type) {
	case *ccRequest:
		maps.Copy(claims, r.claims)
	case *authRequest:
		if u, ok := s.userBySubject(r.subject); ok && u.Email != "" && slices.Contains(r.GetScopes(), oidc.ScopeEmail) {
			claims["email"] = u.Email
		}
	}
	if scopes := request.GetScopes(); len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	} else {
		delete(claims, "scope")
	}
	return claims, nil
}

// GetKeyByIDAndClientID implements op.OPStorage; JWT client assertions are not supported.
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("jwt client assertions are not supported")
}

// ValidateJWTProfileScopes implements op.OPStorage; the JWT profile grant is not supported.
func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("the jwt profile grant is not supported")
}

// Health implements op.Storage.
func (s *storage) Health(context.Context) error { return nil }

// ClientCredentials implements op.ClientCredentialsStorage. The client it
// returns issues opaque access tokens if the grant's ticket asks for them.
func (s *storage) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	c, err := s.authenticate(id, secret)
	if err != nil {
		return nil, err
	}
	if c.kind != kindService {
		return nil, errors.New("client may not use client_credentials")
	}
	if t := paramsFrom(ctx).ticket; t != nil && t.Opaque {
		c.tokenType = op.AccessTokenTypeBearer
	}
	return c, nil
}

// ClientCredentialsTokenRequest implements op.ClientCredentialsStorage. The
// token's sub is the client's subject, its aud the RFC 8707 resource
// parameters (or the server's default), its scopes the requested ones, and
// its lifetime and extra claims those of the grant's ticket.
func (s *storage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	c, ok := s.clients[id]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("client %q not found", id)
	}
	p := paramsFrom(ctx)
	r := &ccRequest{
		clientID: id,
		subject:  c.subject,
		audience: p.resources,
		scopes:   slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == "" }),
		lifetime: defaultLifetime,
	}
	if len(r.audience) == 0 {
		r.audience = []string{s.audience}
	}
	if t := p.ticket; t != nil {
		if t.Subject != c.subject {
			return nil, oidc.ErrInvalidRequest().WithDescription("ticket is for another subject")
		}
		if t.Lifetime != 0 {
			r.lifetime = t.Lifetime
		}
		r.claims = t.Claims
	}
	return r, nil
}
