// Package approve serves the approval page: the question of a flow's ask
// with `to:`, which a person other than the caller answers
// in a browser at a signed, expiring link /approve/<token>.
//
// A Sealer seals a Ticket (the task, the question's key and the link's
// expiry) into the link's token, encrypted and authenticated with a key
// derived from the server's secret. NewHandler serves the link: GET shows
// the question as a server-rendered HTML form, without JavaScript, and
// POST takes the answer, protected against cross-site requests by
// http.CrossOriginProtection and by a CSRF field bound to a cookie and
// to the token. The package knows nothing about tasks: a Backend supplies
// the page and takes the answer, and makes the link single-use by
// returning ErrAnswered once the question is answered.
package approve
