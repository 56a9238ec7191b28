package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve"
)

// OAuthSecretEnv is the environment variable that holds the OAuth client
// secret when --oauth-client-secret-file is not given.
const OAuthSecretEnv = "FLOWSERVE_OAUTH_CLIENT_SECRET"

// oauthFlags are serve's flags that make it an OAuth 2.1 resource server.
type oauthFlags struct {
	issuer, audience string
	clientID         string
	clientSecretFile string
	introspectionURL string
	hideTools        bool
	requireATJWT     bool
	approvalSignIn   bool
	clockSkew        time.Duration
}

// register defines the flags in fs.
func (o *oauthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.issuer, "oauth-issuer", "", "accept OAuth access tokens of this issuer (its URL; its metadata is discovered from it) instead of --tokens")
	fs.StringVar(&o.audience, "oauth-audience", "", "what tokens' aud must name (default: --public-url followed by /mcp, this server's resource URL)")
	fs.StringVar(&o.clientID, "oauth-client-id", "", "this server's client id at the issuer, to introspect opaque tokens (RFC 7662)")
	fs.StringVar(&o.clientSecretFile, "oauth-client-secret-file", "", "file holding the client secret of --oauth-client-id (default: $"+OAuthSecretEnv+")")
	fs.StringVar(&o.introspectionURL, "oauth-introspection-url", "", "introspection endpoint (default: the one the issuer's metadata names)")
	fs.BoolVar(&o.hideTools, "oauth-hide-tools", false, "leave out of tools/list and prompts/list the flows whose scopes the caller's token lacks")
	fs.BoolVar(&o.requireATJWT, "oauth-require-at-jwt", false, "accept only JWT access tokens whose typ is at+jwt (RFC 9068); by default JWT and no typ are accepted too, and other types (id_token+jwt, ...) never")
	fs.BoolVar(&o.approvalSignIn, "approval-sign-in", false, "make the people who answer approvals sign in at the issuer first (needs --oauth-client-id, a client whose redirect URI is --public-url followed by "+approve.SignInPath+"); answered_by is then their subject")
	fs.DurationVar(&o.clockSkew, "oauth-clock-skew", oauth.DefaultClockSkew, "how far a token's exp, nbf and iat may be off")
}

// valid says what is wrong with the flags, or "".
func (o *oauthFlags) valid(tokens string, stdio bool, set map[string]bool) string {
	if o.issuer == "" {
		for _, name := range []string{"oauth-audience", "oauth-client-id", "oauth-client-secret-file", "oauth-introspection-url", "oauth-hide-tools", "oauth-require-at-jwt", "oauth-clock-skew", "approval-sign-in"} {
			if set[name] {
				return "--" + name + " needs --oauth-issuer"
			}
		}
		return ""
	}
	switch {
	case tokens != "":
		return "--tokens and --oauth-issuer cannot be used together: a server checks either its tokens file or OAuth access tokens"
	case stdio:
		return "--oauth-issuer is for HTTP: on stdio the client is the local process that started the server"
	case o.clockSkew < 0:
		return "--oauth-clock-skew must not be negative"
	case o.clientID == "" && (o.clientSecretFile != "" || o.introspectionURL != ""):
		return "--oauth-client-secret-file and --oauth-introspection-url need --oauth-client-id"
	case o.approvalSignIn && o.clientID == "":
		return "--approval-sign-in needs --oauth-client-id: the client people sign in with"
	}
	return ""
}

// options discovers the issuer and returns the HTTP handler's OAuth
// options, or nil when OAuth is off. publicURL is --public-url.
func (o *oauthFlags) options(ctx context.Context, publicURL string, logger *slog.Logger) (*serve.OAuth, error) {
	if o.issuer == "" {
		return nil, nil
	}
	resource := ""
	if publicURL != "" {
		resource = strings.TrimRight(publicURL, "/") + serve.EndpointPath
	}
	audience := o.audience
	if audience == "" {
		audience = resource
	}
	if audience == "" {
		return nil, errors.New("--oauth-issuer needs --oauth-audience or --public-url: tokens must be issued for this server, and it cannot tell its own URL")
	}
	cfg := oauth.Config{Issuer: o.issuer, Audience: audience, ClockSkew: o.clockSkew, RequireATJWT: o.requireATJWT}
	if o.clientID != "" {
		secret, err := o.secret()
		if err != nil {
			return nil, err
		}
		cfg.Introspection = &oauth.Introspection{Endpoint: o.introspectionURL, ClientID: o.clientID, ClientSecret: secret}
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := oauth.NewVerifier(dctx, cfg)
	if err != nil {
		return nil, err
	}
	logger.Info("OAuth access tokens required", "issuer", o.issuer, "audience", audience, "introspection", cfg.Introspection != nil,
		"require_at_jwt", o.requireATJWT)
	return &serve.OAuth{Verifier: v, Issuer: o.issuer, Resource: resource, HideTools: o.hideTools}, nil
}

// secret reads the client secret from its file or the environment.
func (o *oauthFlags) secret() (string, error) {
	if o.clientSecretFile != "" {
		b, err := os.ReadFile(o.clientSecretFile)
		if err != nil {
			return "", fmt.Errorf("read the OAuth client secret: %w", err)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			return s, nil
		}
		return "", fmt.Errorf("the OAuth client secret file %s is empty", o.clientSecretFile)
	}
	if s := strings.TrimSpace(os.Getenv(OAuthSecretEnv)); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("--oauth-client-id needs its secret: --oauth-client-secret-file FILE or $%s", OAuthSecretEnv)
}

// signIn returns the approval pages' sign-in, or nil when it is off.
func (o *oauthFlags) signIn(ctx context.Context) (*approve.SignIn, error) {
	if !o.approvalSignIn {
		return nil, nil
	}
	secret, err := o.secret()
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return approve.NewSignIn(dctx, approve.SignInConfig{Issuer: o.issuer, ClientID: o.clientID, ClientSecret: secret})
}
