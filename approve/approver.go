package approve

import (
	"net/mail"
	"strings"

	"github.com/flowserve/flowserve/approvals"
)

// Who may answer, with sign-in (Options.SignIn): the person signed in
// must be the one the question is addressed to (Page.To), and must not
// be the caller whose run asks (Page.Caller): nobody approves their own
// request. To names one principal:
//
//   - "user:<sub>": the person whose subject at the issuer is sub;
//   - an email address ("ann@example.com", or "Ann <ann@example.com>"):
//     the person whose ID token carries that email, verified
//     (email_verified true), compared ignoring case;
//   - anything else: a subject at the issuer, compared exactly.
//
// A To that names nobody matches nobody: the check fails closed.

// refusal returns why a, signed in, may not answer p's question, for the
// page, or "" when they may.
func refusal(p *approvals.Page, a *Approver) string {
	switch {
	case a == nil:
		return "You are not signed in."
	case p.Caller != "" && a.Subject == p.Caller:
		return "You made this request, so someone else must answer it."
	case !addressedTo(strings.TrimSpace(p.To), a):
		return "This question is for " + p.To + ", not for the account you signed in with."
	}
	return ""
}

// addressedTo reports whether to names a.
func addressedTo(to string, a *Approver) bool {
	if sub, ok := strings.CutPrefix(to, "user:"); ok {
		return sub != "" && a.Subject == sub
	}
	if strings.Contains(to, "@") {
		addr, err := mail.ParseAddress(to)
		return err == nil && a.EmailVerified && a.Email != "" && strings.EqualFold(addr.Address, a.Email)
	}
	return to != "" && a.Subject == to
}
