package serve

import (
	"testing"

	"github.com/flowserve/flowserve/flow"
)

func TestParseEra(t *testing.T) {
	tests := []struct {
		version string
		era     era
		label   string
		session bool // an Mcp-Protocol-Version header of it goes to the session handlers
	}{
		{"", eraNone, "other", true},
		{"2024-11-05", eraOther, "other", true},
		{"2025-03-26", eraOther, "other", true},
		{"2025-06-18", era20250618, "2025-06-18", true},
		{"2025-11-25", era20251125, "2025-11-25", true},
		{"2026-01-01", eraOther, "other", true},
		{"2026-07-28", era20260728, "2026-07-28", false},
		{"2027-01-01", era20260728, "2026-07-28", false},
		{"9", eraNone, "other", false}, // after "2026-07-28" as a string, not as a version
		{"v999.0.0", eraNone, "other", false},
		{"2026-7-28", eraNone, "other", false},
		{"2026-07-28 ", eraNone, "other", false},
	}
	for _, tc := range tests {
		e := parseEra(tc.version)
		if e != tc.era || e.label() != tc.label || sessionVersion(tc.version) != tc.session {
			t.Errorf("%q: era %d label %q session %v; want %d %q %v", tc.version, e, e.label(), sessionVersion(tc.version), tc.era, tc.label, tc.session)
		}
	}
}

// TestDeclaredClient: one rule for every way a client declares what it
// can do.
func TestDeclaredClient(t *testing.T) {
	tests := []struct {
		name string
		d    declared
		era  era
		want flow.Client
	}{
		{"nothing", declared{}, era20260728, flow.Client{}},
		{"bare elicitation is form mode", declared{elicitation: true}, era20251125, flow.Client{Form: true}},
		{"url only", declared{elicitation: true, elicitURL: true}, era20260728, flow.Client{URL: true}},
		{"both", declared{elicitation: true, elicitForm: true, elicitURL: true}, era20251125, flow.Client{Form: true, URL: true}},
		{"url before its era", declared{elicitation: true, elicitURL: true}, era20250618, flow.Client{}},
		{"form and url before url's era", declared{elicitation: true, elicitForm: true, elicitURL: true}, era20250618, flow.Client{Form: true}},
		{"sampling and roots", declared{sampling: true, roots: true, name: "c", version: "1"}, era20250618,
			flow.Client{Sampling: true, Roots: true, Name: "c", Version: "1"}},
	}
	for _, tc := range tests {
		got := tc.d.client(tc.era, "")
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
