// Package oauth makes flowserve an OAuth 2.1 resource server, as the MCP
// authorization spec asks of a remote server (docs/operations.md, "Authorization").
//
// A Verifier checks the access tokens callers send:
//
//   - a JWT (RFC 9068) is verified against the issuer's JSON Web Key Set,
//     found from the issuer's metadata (RFC 8414, or OpenID Connect
//     discovery) and cached; a token signed with a key the cache does not
//     hold makes it fetch the set again (at most once every
//     MinKeyRefresh), so keys can rotate. Its iss must be the issuer, its
//     aud must name the audience (RFC 8707: the server's own URL unless
//     configured), and exp, nbf and iat are checked with a small clock
//     skew. Only asymmetric signatures are accepted (RS, PS, ES and
//     EdDSA), never none or HMAC. Its typ header must say it is an
//     access token: at+jwt (RFC 9068), JWT or none by default, only
//     at+jwt with Config.RequireATJWT; an ID token (id_token+jwt), a
//     logout token or any other typ is refused;
//   - any other token is introspected (RFC 7662) when the Verifier has
//     introspection credentials, and refused otherwise. An active token
//     must name the audience and, when it says, the issuer. Answers are
//     cached for a short time, never past the token's expiry.
//
// The token itself is never kept (a digest keys the introspection cache),
// logged or passed on. Errors are *TokenError (the token is refused: HTTP
// 401) or wrap ErrUnavailable (the issuer could not be asked: HTTP 503);
// neither repeats the token or what the issuer said about it beyond a
// fixed reason.
//
// Challenge formats the WWW-Authenticate header of a refusal (RFC 6750,
// RFC 9728 §5.1), and Metadata the protected resource metadata document
// (RFC 9728) served at /.well-known/oauth-protected-resource.
//
// Libraries: go-jose (github.com/go-jose/go-jose/v4) parses and verifies
// the JWS and validates the registered claims with a leeway; the key set
// cache is this package's, because go-oidc's RemoteKeySet fetches the set
// again on every token whose signature does not verify, with no limit,
// and its verifier is for ID tokens (audience = client id, no leeway on
// exp). The issuer's metadata is discovered by this package too, as
// go-sdk's auth.GetAuthServerMetadata does but without requiring
// code_challenge_methods_supported, which a resource server does not use
// and which issuers such as Microsoft Entra ID and Amazon Cognito leave
// out.
package oauth
