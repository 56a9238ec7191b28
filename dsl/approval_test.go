package dsl

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestParseApproval checks the fields Parse fills for an ask with to, and
// Approval and HasApprovals.
func TestParseApproval(t *testing.T) {
	f := mustParse(t, `vars:
  approver: {description: Who approves}
  hook: {description: Where links go}
nodes:
  - id: approval
    ask: "Refund?"
    to: "{{ vars.approver }}"
    notify: {webhook: "{{ vars.hook }}"}
    timeout: 1d12h
    on_timeout: expired
    form: {ok: {type: boolean}}
  - id: plain
    ask: Sure?
    form: {ok: {type: boolean}}
  - id: expired
    fail: too late
`)
	a := f.Nodes[0].Ask
	if !a.Approval() || a.To.Whole() == nil || a.To.Whole().Src != "vars.approver" || a.To.Pos != at(7, 9) {
		t.Errorf("to = %+v", a.To)
	}
	if a.Notify == nil || a.Notify.Pos != at(8, 13) || a.Notify.Webhook == nil || a.Notify.Webhook.Src != "{{ vars.hook }}" || a.Notify.Webhook.Pos != at(8, 23) {
		t.Errorf("notify = %+v", a.Notify)
	}
	if a.Timeout != 36*time.Hour || a.TimeoutPos != at(9, 5) {
		t.Errorf("timeout = %v at %v", a.Timeout, a.TimeoutPos)
	}
	if a.OnTimeout == nil || a.OnTimeout.ID != "expired" || a.OnTimeout.Target != 2 || a.OnTimeout.Pos != at(10, 17) {
		t.Errorf("on_timeout = %+v", a.OnTimeout)
	}
	p := f.Nodes[1].Ask
	if p.Approval() || p.To != nil || p.Notify != nil || p.Timeout != 0 || p.TimeoutPos.IsValid() || p.OnTimeout != nil {
		t.Errorf("plain ask = %+v", p)
	}
	if !f.HasApprovals() {
		t.Error("HasApprovals() = false")
	}
	if (*Ask)(nil).Approval() {
		t.Error("nil Ask is an approval")
	}
	if (*File)(nil).HasApprovals() {
		t.Error("nil File has approvals")
	}
	none := mustParse(t, "nodes:\n  - id: q\n    ask: Sure?\n    form: {ok: {type: boolean}}\n  - id: s\n    sample:\n      messages: [{role: user, text: hi}]\n  - return: ok\n")
	if none.HasApprovals() {
		t.Error("a flow without to has approvals")
	}
}

// TestParseDuration checks durations as flow files write them: Go
// durations, and the unit d.
func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30s", 30 * time.Second, true},
		{"1m30s", 90 * time.Second, true},
		{"0", 0, true},
		{"-1s", -time.Second, true},
		{"1d", 24 * time.Hour, true},
		{"2d", 48 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"12h1d", 36 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{".5d", 12 * time.Hour, true},
		{"1.d", 24 * time.Hour, true},
		{"+1d", 24 * time.Hour, true},
		{"-1d", -24 * time.Hour, true},
		{"-0d", 0, true},
		{"1d30m15s", 24*time.Hour + 30*time.Minute + 15*time.Second, true},
		{"1d1µs", 24*time.Hour + time.Microsecond, true},
		{"106751d", 106751 * 24 * time.Hour, true},
		{"106752d", 0, false}, // more than math.MaxInt64 nanoseconds
		{"106751d23h47m16s854775807ns", math.MaxInt64, true},
		{"106751d23h47m16s854775808ns", 0, false},
		{"d", 0, false},
		{"1dd", 0, false},
		{"1 d", 0, false},
		{"1D", 0, false},
		{"1day", 0, false},
		{"2 days", 0, false},
		{"1d-1h", 0, false},
		{"1d1", 0, false},
		{"+-1d", 0, false},
		{".d", 0, false},
		{"", 0, false},
		{"3x", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		// Without d it is time.ParseDuration exactly.
		if !slices.Contains([]byte(tc.in), 'd') {
			want, werr := time.ParseDuration(tc.in)
			if got != want || (err == nil) != (werr == nil) {
				t.Errorf("ParseDuration(%q) = %v, %v; time.ParseDuration %v, %v", tc.in, got, err, want, werr)
			}
		}
	}
}
