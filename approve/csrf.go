package approve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"

	"github.com/flowserve/flowserve/approvals"
)

// csrfCookie is the name of the cookie the forms' CSRF fields are bound to.
const csrfCookie = "flowserve_csrf"

// csrfCookieValue returns the value of the request's CSRF cookie, or ""
// when it has none or one this package did not make.
func csrfCookieValue(r *http.Request) string {
	c, err := r.Cookie(csrfCookie)
	if err != nil {
		return ""
	}
	if b, err := encoding.DecodeString(c.Value); err != nil || len(b) != 32 {
		return ""
	}
	return c.Value
}

// ensureCSRFCookie returns the request's CSRF cookie value, setting a new
// cookie on w when the request has none.
func ensureCSRFCookie(w http.ResponseWriter, r *http.Request) string {
	if v := csrfCookieValue(r); v != "" {
		return v
	}
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	v := encoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name:     csrfCookie,
		Value:    v,
		Path:     approvals.PathPrefix,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
	return v
}

// csrfField returns the value of the CSRF field of the form of token for
// the cookie value cookie.
func (k *keys) csrfField(cookie, token string) string {
	m := hmac.New(sha256.New, k.csrf)
	m.Write([]byte(cookie))
	m.Write([]byte{0})
	m.Write([]byte(token))
	return encoding.EncodeToString(m.Sum(nil))
}

// csrfOK reports whether the request's CSRF field matches its cookie for
// token.
func (k *keys) csrfOK(r *http.Request, token string) bool {
	cookie := csrfCookieValue(r)
	field := r.PostForm.Get("csrf")
	if cookie == "" || field == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(field), []byte(k.csrfField(cookie, token))) == 1
}
