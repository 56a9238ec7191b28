package approvals

import (
	"strconv"
	"strings"
)

// Key returns the key of the nth asking of the ask node in a run, e.g.
// "approval-3": a link answers the asking of its key only, so that a
// link sent for one asking never answers the next one (a loop that asks
// again, a question asked again after a timeout). n numbers the askings
// so that no key comes twice in one run; it starts at 1.
func Key(node string, n int) string { return node + "-" + strconv.Itoa(n) }

// PathPrefix is the path under which approval pages are served: a page's
// path is PathPrefix followed by its link's token.
const PathPrefix = "/approve/"

// Path returns the path of a token's page: "/approve/" + token.
func Path(token string) string { return PathPrefix + token }

// Link returns a link to the page of t's question on the server at base
// (its URL as people reach it, e.g. "https://mcp.example.com"): base, the
// page's path and a token minted afresh. Every link of one ticket works
// until its expiry, and any one of them answers the question once.
func (s *Sealer) Link(base string, t Ticket) (string, error) {
	token, err := s.Seal(t)
	if err != nil {
		return "", err
	}
	return base + Path(token), nil
}

// Redact returns link with all but the first characters of its token cut,
// for logs: enough to tell links apart, too little to answer with. A
// text that is not a link gives "[redacted]".
func Redact(link string) string {
	i := strings.LastIndex(link, PathPrefix)
	if i < 0 {
		return "[redacted]"
	}
	token := link[i+len(PathPrefix):]
	return link[:i] + Path(token[:min(len(token), 6)]) + "…[redacted]"
}

// ToCaller reports whether the link of an approval whose ask notifies
// webhook ("" for none) may be given to the run's caller, for them to
// pass on. The link is a credential: when the ask has a channel of its
// own, the link goes only there, since in the caller's hands it would let
// them answer their own request; only an ask with no other channel hands
// it to the caller.
func ToCaller(webhook string) bool { return webhook == "" }
