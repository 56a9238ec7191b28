// Package approve serves the approval page: the HTTP part of an approval
// (package approvals has its lifecycle). The page shows the question of a
// flow's ask with `to:`, which a person other than the caller answers in
// a browser at a signed, expiring link /approve/<token>.
//
// NewHandler serves the links an approvals.Sealer seals: GET shows the
// question as a server-rendered HTML form, without JavaScript, and POST
// takes the answer, protected against cross-site requests by
// http.CrossOriginProtection and by a CSRF field bound to a cookie and to
// the token. With a SignIn, people sign in at an OpenID Connect issuer
// first, and only the one the question is for, never the run's caller,
// may answer. The package knows nothing about tasks: an approvals.Backend
// supplies the page and takes the answer, and makes the link single-use
// by returning approvals.ErrAnswered once the question is answered.
package approve
