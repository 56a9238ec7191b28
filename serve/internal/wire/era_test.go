package wire

import (
	"testing"

	"github.com/flowserve/flowserve/flow"
)

func TestParseEra(t *testing.T) {
	tests := []struct {
		version string
		era     Era
		label   string
		session bool // an Mcp-Protocol-Version header of it goes to the session handlers
	}{
		{"", EraNone, "other", true},
		{"2024-11-05", EraOther, "other", true},
		{"2025-03-26", EraOther, "other", true},
		{"2025-06-18", Era20250618, "2025-06-18", true},
		{"2025-11-25", Era20251125, "2025-11-25", true},
		{"2026-01-01", EraOther, "other", true},
		{"2026-07-28", Era20260728, "2026-07-28", false},
		{"2027-01-01", Era20260728, "2026-07-28", false},
		{"9", EraNone, "other", false}, // after "2026-07-28" as a string, not as a version
		{"v999.0.0", EraNone, "other", false},
		{"2026-7-28", EraNone, "other", false},
		{"2026-07-28 ", EraNone, "other", false},
	}
	for _, tc := range tests {
		e := ParseEra(tc.version)
		if e != tc.era || e.Label() != tc.label || SessionVersion(tc.version) != tc.session {
			t.Errorf("%q: era %d label %q session %v; want %d %q %v", tc.version, e, e.Label(), SessionVersion(tc.version), tc.era, tc.label, tc.session)
		}
	}
}

// TestDeclaredClient: one rule for every way a client declares what it
// can do.
func TestDeclaredClient(t *testing.T) {
	tests := []struct {
		name string
		d    Declared
		era  Era
		want flow.Client
	}{
		{"nothing", Declared{}, Era20260728, flow.Client{}},
		{"bare elicitation is form mode", Declared{Elicitation: true}, Era20251125, flow.Client{Form: true}},
		{"url only", Declared{Elicitation: true, ElicitURL: true}, Era20260728, flow.Client{URL: true}},
		{"both", Declared{Elicitation: true, ElicitForm: true, ElicitURL: true}, Era20251125, flow.Client{Form: true, URL: true}},
		{"url before its era", Declared{Elicitation: true, ElicitURL: true}, Era20250618, flow.Client{}},
		{"form and url before url's era", Declared{Elicitation: true, ElicitForm: true, ElicitURL: true}, Era20250618, flow.Client{Form: true}},
		{"sampling and roots", Declared{Sampling: true, Roots: true, Name: "c", Version: "1"}, Era20250618,
			flow.Client{Sampling: true, Roots: true, Name: "c", Version: "1"}},
	}
	for _, tc := range tests {
		got := tc.d.Client(tc.era, "")
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
