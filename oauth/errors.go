package oauth

import (
	"errors"
	"fmt"
)

// Reason is why a token was refused: one of the constants below. Reasons
// are fixed words, safe to log and to show a client.
type Reason string

// The reasons a token is refused.
const (
	ReasonMalformed   Reason = "malformed"        // not a JWT this server accepts, or not a bearer token
	ReasonSignature   Reason = "bad signature"    // the signature does not verify
	ReasonUnknownKey  Reason = "unknown key"      // signed with a key the issuer does not publish
	ReasonExpired     Reason = "expired"          // exp is past (beyond the clock skew)
	ReasonNotYetValid Reason = "not yet valid"    // nbf or iat is in the future
	ReasonIssuer      Reason = "wrong issuer"     // iss is not the configured issuer
	ReasonAudience    Reason = "wrong audience"   // aud does not name this server
	ReasonNoSubject   Reason = "no subject"       // no sub claim
	ReasonNoExpiry    Reason = "no expiry"        // no exp claim
	ReasonInactive    Reason = "inactive"         // introspection says the token is not active
	ReasonOpaque      Reason = "opaque token"     // not a JWT, and the server cannot introspect
	ReasonTokenType   Reason = "wrong token type" // the JWT's typ is not an access token's (id_token+jwt, ...), or not at+jwt when that is required
)

// ErrInvalidToken is what every *TokenError matches with errors.Is.
var ErrInvalidToken = errors.New("invalid access token")

// ErrUnavailable means the issuer could not be asked (its key set or its
// introspection endpoint did not answer as it should): the token may be
// good, so the request may be tried again.
var ErrUnavailable = errors.New("the authorization server is unavailable")

// TokenError is a refused token.
type TokenError struct {
	Reason Reason
}

// Error says why the token was refused.
func (e *TokenError) Error() string { return "invalid access token: " + string(e.Reason) }

// Is makes every TokenError match ErrInvalidToken.
func (e *TokenError) Is(target error) bool { return target == ErrInvalidToken }

func refused(r Reason) error { return &TokenError{Reason: r} }

// unavailable wraps an error of the issuer's as ErrUnavailable.
func unavailable(what string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrUnavailable, what, err)
}
