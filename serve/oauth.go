package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve/internal/guard"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// OAuth makes HTTPHandler an OAuth 2.1 resource server (DESIGN §14): every
// request to the endpoint needs an access token the Verifier accepts, a
// call of a flow that requires scopes needs a token that grants them,
// and the protected resource metadata (RFC 9728) is served at
// oauth.MetadataPath.
type OAuth struct {
	// Verifier checks the tokens.
	Verifier TokenVerifier
	// Issuer is the authorization server's issuer URL, for the metadata.
	Issuer string
	// Resource is the server's resource URL, the metadata's resource; ""
	// means Options.PublicURL, or the scheme and host a request came in
	// on, followed by EndpointPath.
	Resource string
	// HideTools leaves out of tools/list and prompts/list the flows whose
	// scopes the caller's token does not grant.
	HideTools bool
}

// TokenVerifier checks an access token: *oauth.Verifier. Errors are
// *oauth.TokenError for a token it refuses, or wrap oauth.ErrUnavailable.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*oauth.Principal, error)
}

// principalKey is the context key of the caller the guard found.
type principalKey struct{}

// authenticated returns the OAuth caller of a request's context, or nil.
func authenticated(ctx context.Context) *oauth.Principal {
	p, _ := ctx.Value(principalKey{}).(*oauth.Principal)
	return p
}

// resource returns the resource URL of the server as r reached it.
func (s *Server) resource(o *OAuth, r *http.Request) string {
	if o.Resource != "" {
		return o.Resource
	}
	base := s.opts.PublicURL
	if base == "" {
		base = requestBase(r)
	}
	return strings.TrimRight(base, "/") + EndpointPath
}

// checkOAuth authenticates a request to the endpoint: a missing or
// refused token gets 401 with a challenge naming the metadata, an issuer
// that cannot be asked 503, and a call of a flow whose scopes the token
// lacks 403 insufficient_scope, naming every scope the flow needs. It
// returns the request, with the caller in its context, when it may go on.
func (s *Server) checkOAuth(w http.ResponseWriter, r *http.Request, o *OAuth, maxBody int64) (*http.Request, bool) {
	meta := oauth.MetadataURL(s.resource(o, r))
	token, ok := guard.BearerToken(r.Header)
	if !ok {
		s.metrics.Rejected.WithLabelValues(metrics.RejectUnauthorized).Inc()
		ch := oauth.Challenge{ResourceMetadata: meta}
		if p, _, _ := s.calledProgram(r, maxBody); p != nil {
			ch.Scopes = p.Scopes()
		}
		writeChallenge(w, http.StatusUnauthorized, ch, "Unauthorized: this server needs an OAuth access token (Authorization: Bearer)")
		return nil, false
	}
	p, err := o.Verifier.Verify(r.Context(), token)
	var te *oauth.TokenError
	switch {
	case errors.As(err, &te):
		s.metrics.Rejected.WithLabelValues(metrics.RejectUnauthorized).Inc()
		s.log.Info("access token refused", "reason", string(te.Reason), "remote", r.RemoteAddr)
		writeChallenge(w, http.StatusUnauthorized, oauth.Challenge{ResourceMetadata: meta, Error: oauth.ErrorInvalidToken,
			Description: "the access token is " + describe(te.Reason)}, "Unauthorized: the access token is not valid: "+string(te.Reason))
		return nil, false
	case err != nil:
		if r.Context().Err() == nil {
			s.log.Warn("access token not checked: the authorization server is unavailable", "err", err)
		}
		w.Header().Set("Retry-After", "5")
		http.Error(w, "Service Unavailable: the access token cannot be checked now; try again", http.StatusServiceUnavailable)
		return nil, false
	}
	prog, rpcErr, id := s.calledProgram(r, maxBody)
	if rpcErr != nil {
		wire.WriteError(w, http.StatusBadRequest, id, rpcErr)
		return nil, false
	}
	if prog != nil {
		if missing := p.Missing(prog.Scopes()); len(missing) > 0 {
			s.metrics.Rejected.WithLabelValues(metrics.RejectScope).Inc()
			s.log.Info("call refused: the token lacks scopes", flowKind(prog), prog.Name(), "sub", p.Subject, "missing", strings.Join(missing, " "))
			writeChallenge(w, http.StatusForbidden, oauth.Challenge{ResourceMetadata: meta, Scopes: prog.Scopes(),
				Error: oauth.ErrorInsufficientScope, Description: "the " + prog.Name() + " " + flowKind(prog) + " needs the scopes " + strings.Join(prog.Scopes(), " ")},
				fmt.Sprintf("Forbidden: the %s %s needs the scopes %s; the access token lacks %s", prog.Name(), flowKind(prog),
					strings.Join(prog.Scopes(), " "), strings.Join(missing, " ")))
			return nil, false
		}
	}
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, p)), true
}

// describe words a refusal's reason for error_description.
func describe(r oauth.Reason) string {
	switch r {
	case oauth.ReasonExpired, oauth.ReasonInactive:
		return string(r)
	case oauth.ReasonIssuer:
		return "from another issuer"
	case oauth.ReasonAudience:
		return "for another audience"
	}
	return "not valid (" + string(r) + ")"
}

// writeChallenge answers a refused request with a WWW-Authenticate
// challenge.
func writeChallenge(w http.ResponseWriter, status int, ch oauth.Challenge, msg string) {
	w.Header().Set("WWW-Authenticate", ch.String())
	http.Error(w, msg, status)
}

// calledProgram returns the flow a POST calls (tools/call or
// prompts/get, one message or any of a batch) when it requires scopes, or
// nil; or the error refusing a body whose members repeat (wire.ReadTargets),
// which no path dispatches, and the id to answer it with. It reads the body as go-sdk and the lean path
// do (wire.ReadTargets) and leaves it to be read again; it reads none when no
// served flow requires scopes. Dispatch checks the scopes of the program
// it runs again (scopeRefusal), so a body read otherwise there still
// cannot run a flow the token does not grant.
func (s *Server) calledProgram(r *http.Request, maxBody int64) (*flow.Program, *jsonrpc.Error, json.RawMessage) {
	if r.Method != http.MethodPost || !s.scoped.Load() {
		return nil, nil, nil
	}
	body, ok := wire.PeekBody(r, maxBody)
	if !ok {
		return nil, nil, nil
	}
	targets, rpcErr := wire.ReadTargets(body)
	if rpcErr != nil {
		return nil, rpcErr, wire.RequestID(bytes.TrimSpace(body))
	}
	var worst *flow.Program
	for _, c := range targets {
		var p *flow.Program
		switch c.Method {
		case "tools/call":
			p = s.servedOrRemoved(c.Name, false)
		case "prompts/get":
			p = s.servedOrRemoved(c.Name, true)
		}
		if p != nil && len(p.Scopes()) > 0 && (worst == nil || len(p.Scopes()) > len(worst.Scopes())) {
			worst = p
		}
	}
	return worst, nil, nil
}

// scopeRefusal returns the error refusing a call of p by caller, whose
// token lacks a scope p requires, or nil. Dispatch checks it on the
// program it is about to run, read from the request it dispatches; the
// HTTP guard (checkOAuth) has answered such a call 403 before, unless
// it read the request otherwise.
func scopeRefusal(caller *oauth.Principal, p *flow.Program) *jsonrpc.Error {
	if caller == nil {
		return nil
	}
	missing := caller.Missing(p.Scopes())
	if len(missing) == 0 {
		return nil
	}
	return &jsonrpc.Error{Code: wire.CodeInvalidRequest, Message: fmt.Sprintf("Forbidden: the %s %s needs the scopes %s; the access token lacks %s",
		p.Name(), flowKind(p), strings.Join(p.Scopes(), " "), strings.Join(missing, " "))}
}

// servedOrRemoved returns the program a call of the tool (or prompt)
// with the given name runs on: the one served, or one a reload removed
// that runs in flight may still use; nil when there is none.
func (s *Server) servedOrRemoved(name string, prompt bool) *flow.Program {
	get := s.program
	if prompt {
		get = s.prompt
	}
	if p, ok := get(name); ok {
		return p
	}
	return s.removedProgram(name, prompt)
}

// metadataHandler serves the protected resource metadata document.
func (s *Server) metadataHandler(o *OAuth) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(oauth.Metadata(s.resource(o, r), o.Issuer, s.allScopes())).ServeHTTP(w, r)
	})
}

// allScopes returns every scope a served flow requires, sorted.
func (s *Server) allScopes() []string {
	var out []string
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range slices.Concat(slices.Collect(maps.Values(s.tools)), slices.Collect(maps.Values(s.prompts))) {
		for _, sc := range p.Scopes() {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	slices.Sort(out)
	return out
}

// bindPrincipals wraps h so that the go-sdk sees each request's OAuth
// caller as its token's user: a session opened by one subject then
// refuses requests of another (403 "session user mismatch"), and handlers
// find the caller in the request's TokenInfo. The guard has checked the
// token already.
func bindPrincipals(h http.Handler) http.Handler {
	return auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p := authenticated(r.Context())
		if p == nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: p.Subject, Scopes: p.Scopes, Expiration: p.Expiry,
			Extra: map[string]any{tokenInfoPrincipal: p}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// tokenInfoPrincipal is the key of the caller in TokenInfo.Extra.
const tokenInfoPrincipal = "flowserve.principal"

// sdkPrincipal returns the OAuth caller of an SDK request, or nil.
func sdkPrincipal(req mcp.Request) *oauth.Principal {
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	p, _ := extra.TokenInfo.Extra[tokenInfoPrincipal].(*oauth.Principal)
	return p
}

// identityOf is what a round's expressions see of an OAuth caller.
func identityOf(p *oauth.Principal) *flow.Identity {
	if p == nil {
		return nil
	}
	return &flow.Identity{Subject: p.Subject, Scopes: p.Scopes, Claims: p.Claims}
}

// permitted reports whether the caller may see (and call) p: always,
// unless the server checks OAuth tokens and the caller's token lacks
// some scope p requires.
func permitted(caller *oauth.Principal, p *flow.Program) bool {
	return caller == nil || len(caller.Missing(p.Scopes())) == 0
}

// hideUnpermitted is a receiving middleware that, when OAuth.HideTools is
// set, leaves out of tools/list and prompts/list the flows whose scopes
// the caller's token lacks.
func (s *Server) hideUnpermitted(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || !s.hideTools.Load() {
			return res, err
		}
		caller := sdkPrincipal(req)
		if caller == nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			r.Tools = slices.DeleteFunc(slices.Clone(r.Tools), func(t *mcp.Tool) bool {
				p, ok := s.program(t.Name)
				return ok && !permitted(caller, p)
			})
		case *mcp.ListPromptsResult:
			r.Prompts = slices.DeleteFunc(slices.Clone(r.Prompts), func(pr *mcp.Prompt) bool {
				p, ok := s.prompt(pr.Name)
				return ok && !permitted(caller, p)
			})
		}
		return res, err
	}
}
