package wire

import (
	"time"

	"github.com/flowserve/flowserve/flow"
)

// Era is a protocol era the server serves, ordered by protocol version.
// Versions are compared as eras (or as dates), never as strings: "9"
// sorts after "2026-07-28" as a string.
type Era int

// The eras, oldest first. EraOther is a session version flowserve has no
// rules of its own for (2024-11-05, 2025-03-26, which the SDK negotiates):
// it is served as 2025-06-18 is, and labelled "other".
const (
	EraNone     Era = iota // no protocol version
	EraOther               // a session version before 2025-06-18
	Era20250618            // sessions; form elicitation
	Era20251125            // sessions; URL elicitation too
	Era20260728            // stateless: multi round-trip requests
)

// The protocol versions of the eras that have one of their own.
const (
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// FirstModernVersion is the first protocol version without sessions.
const FirstModernVersion = Version20260728

// ParseEra returns the era of a protocol version: an exact known version,
// any other YYYY-MM-DD date before 2026-07-28 (EraOther, a session
// version), or a later date (the stateless era, whose version checks then
// refuse it as unsupported). Anything else, "" included, is EraNone.
func ParseEra(version string) Era {
	switch version {
	case Version20260728:
		return Era20260728
	case Version20251125:
		return Era20251125
	case Version20250618:
		return Era20250618
	}
	d, err := time.Parse(time.DateOnly, version)
	if err != nil {
		return EraNone
	}
	if d.After(stateless) {
		return Era20260728
	}
	return EraOther
}

// stateless is the date of the first stateless version.
var stateless = mustDate(Version20260728)

func mustDate(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err) // the constants above are dates
	}
	return d
}

// SessionVersion reports whether an Mcp-Protocol-Version header sends a
// request to the session handlers: no header, or a session era's
// version. Any other value (2026-07-28, a later date, one that is no
// version at all) goes to the stateless path, whose checks answer an
// unsupported version with every version the server speaks.
func SessionVersion(header string) bool {
	e := ParseEra(header)
	return header == "" || e != EraNone && !e.Stateless()
}

// Stateless reports whether the era has no sessions (2026-07-28 on).
func (e Era) Stateless() bool { return e >= Era20260728 }

// URLElicitation reports whether clients of the era may declare URL-mode
// elicitation.
func (e Era) URLElicitation() bool { return e >= Era20251125 }

// Label is the era's name in logs and metrics, from a fixed set.
func (e Era) Label() string {
	switch e {
	case Era20260728:
		return Version20260728
	case Era20251125:
		return Version20251125
	case Era20250618:
		return Version20250618
	}
	return "other"
}

// EraLabel maps a protocol version onto the era label of logs and
// metrics, from a fixed set: the version comes from the client.
func EraLabel(version string) string { return ParseEra(version).Label() }

// Declared is what a client declared it can do, however it said it (a
// 2026-07-28 request's _meta, read by the SDK or by the lean path, or a
// session's initialize).
type Declared struct {
	Name, Version         string
	Elicitation           bool // an elicitation capability at all
	ElicitForm, ElicitURL bool // its form and url members
	Sampling, Roots       bool
	Tasks                 bool // the tasks extension (2026-07-28 only)
}

// Client is the one rule turning what a client declared on a protocol
// version into what a flow sees of it: an elicitation capability with
// neither member means form mode, and URL mode needs an era that has it.
func (d Declared) Client(e Era, protocol string) flow.Client {
	c := flow.Client{Name: d.Name, Version: d.Version, Protocol: protocol, Sampling: d.Sampling, Roots: d.Roots,
		Tasks: d.Tasks && e.Stateless()}
	if d.Elicitation {
		c.Form = d.ElicitForm || !d.ElicitURL
		c.URL = d.ElicitURL && e.URLElicitation()
	}
	return c
}
