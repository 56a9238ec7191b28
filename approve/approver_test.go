package approve

import (
	"strings"
	"testing"

	"github.com/flowserve/flowserve/approvals"
)

func TestRefusal(t *testing.T) {
	ana := &Approver{Subject: "user-ana", Email: "ana@example.com", EmailVerified: true}
	unverified := &Approver{Subject: "user-eve", Email: "boss@example.com"}
	tests := []struct {
		name, to, caller string
		who              *Approver
		want             string // "" when they may answer, else a part of the reason
	}{
		{"named by email", "ana@example.com", "", ana, ""},
		{"named by email in another case", "ANA@Example.COM", "", ana, ""},
		{"named by an address with a name", "Ana Lima <ana@example.com>", "", ana, ""},
		{"named by user:sub", "user:user-ana", "", ana, ""},
		{"named by a bare sub", "user-ana", "", ana, ""},
		{"spaces around to", "  ana@example.com ", "", ana, ""},
		{"another caller", "ana@example.com", "user-bob", ana, ""},
		{"the caller", "ana@example.com", "user-ana", ana, "You made this request"},
		{"the caller named by sub", "user:user-ana", "user-ana", ana, "You made this request"},
		{"another email", "boss@example.com", "", ana, "This question is for boss@example.com"},
		{"an unverified email", "boss@example.com", "", unverified, "This question is for"},
		{"another sub", "user:user-boss", "", ana, "This question is for"},
		{"a sub that is a prefix", "user:user-an", "", ana, "This question is for"},
		{"an empty user:", "user:", "", &Approver{Subject: ""}, "This question is for"},
		{"a name that is no principal", "the finance team", "", ana, "This question is for"},
		{"nobody named", "", "", ana, "This question is for"},
		{"not signed in", "ana@example.com", "", nil, "not signed in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusal(&approvals.Page{To: tt.to, Caller: tt.caller}, tt.who)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("refusal = %q, want %q", got, tt.want)
			}
		})
	}
}
