package serve

import (
	"time"

	"github.com/flowserve/flowserve/flow"
)

// era is a protocol era the server serves, ordered by protocol version.
// Versions are compared as eras (or as dates), never as strings: "9"
// sorts after "2026-07-28" as a string.
type era int

// The eras, oldest first. eraOther is a session version flowserve has no
// rules of its own for (2024-11-05, 2025-03-26, which the SDK negotiates):
// it is served as 2025-06-18 is, and labelled "other".
const (
	eraNone     era = iota // no protocol version
	eraOther               // a session version before 2025-06-18
	era20250618            // sessions; form elicitation
	era20251125            // sessions; URL elicitation too
	era20260728            // stateless: multi round-trip requests
)

// The protocol versions of the eras that have one of their own.
const (
	version20250618 = "2025-06-18"
	version20251125 = "2025-11-25"
	version20260728 = "2026-07-28"
)

// firstModernVersion is the first protocol version without sessions.
const firstModernVersion = version20260728

// parseEra returns the era of a protocol version: an exact known version,
// any other YYYY-MM-DD date before 2026-07-28 (eraOther, a session
// version), or a later date (the stateless era, whose version checks then
// refuse it as unsupported). Anything else, "" included, is eraNone.
func parseEra(version string) era {
	switch version {
	case version20260728:
		return era20260728
	case version20251125:
		return era20251125
	case version20250618:
		return era20250618
	}
	d, err := time.Parse(time.DateOnly, version)
	if err != nil {
		return eraNone
	}
	if d.After(stateless) {
		return era20260728
	}
	return eraOther
}

// stateless is the date of the first stateless version.
var stateless = mustDate(version20260728)

func mustDate(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err) // the constants above are dates
	}
	return d
}

// sessionVersion reports whether an Mcp-Protocol-Version header sends a
// request to the session handlers: no header, or a session era's
// version. Any other value (2026-07-28, a later date, one that is no
// version at all) goes to the stateless path, whose checks answer an
// unsupported version with every version the server speaks.
func sessionVersion(header string) bool {
	e := parseEra(header)
	return header == "" || e != eraNone && !e.stateless()
}

// stateless reports whether the era has no sessions (2026-07-28 on).
func (e era) stateless() bool { return e >= era20260728 }

// urlElicitation reports whether clients of the era may declare URL-mode
// elicitation.
func (e era) urlElicitation() bool { return e >= era20251125 }

// label is the era's name in logs and metrics, from a fixed set.
func (e era) label() string {
	switch e {
	case era20260728:
		return version20260728
	case era20251125:
		return version20251125
	case era20250618:
		return version20250618
	}
	return "other"
}

// declared is what a client declared it can do, however it said it (a
// 2026-07-28 request's _meta, read by the SDK or by the lean path, or a
// session's initialize).
type declared struct {
	name, version         string
	elicitation           bool // an elicitation capability at all
	elicitForm, elicitURL bool // its form and url members
	sampling, roots       bool
	tasks                 bool // the tasks extension (2026-07-28 only)
}

// client is the one rule turning what a client declared on a protocol
// version into what a flow sees of it: an elicitation capability with
// neither member means form mode, and URL mode needs an era that has it.
func (d declared) client(e era, protocol string) flow.Client {
	c := flow.Client{Name: d.name, Version: d.version, Protocol: protocol, Sampling: d.sampling, Roots: d.roots,
		Tasks: d.tasks && e.stateless()}
	if d.elicitation {
		c.Form = d.elicitForm || !d.elicitURL
		c.URL = d.elicitURL && e.urlElicitation()
	}
	return c
}
