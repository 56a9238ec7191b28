package approvals

import (
	"strings"
	"testing"
	"time"
)

func TestKey(t *testing.T) {
	tests := []struct {
		node string
		n    int
		want string
	}{
		{"approval", 1, "approval-1"},
		{"approval", 12, "approval-12"},
		{"second-step", 3, "second-step-3"},
	}
	for _, tt := range tests {
		if got := Key(tt.node, tt.n); got != tt.want {
			t.Errorf("Key(%q, %d) = %q, want %q", tt.node, tt.n, got, tt.want)
		}
	}
}

func TestPath(t *testing.T) {
	if got := Path("abc"); got != "/approve/abc" {
		t.Errorf("Path = %q", got)
	}
	if !strings.HasPrefix(Path("x"), PathPrefix) {
		t.Errorf("Path(x) = %q does not start with PathPrefix %q", Path("x"), PathPrefix)
	}
}

// TestLink: a link is the base, the page's path and a token of the
// ticket, minted afresh each time; every one opens to the same ticket.
func TestLink(t *testing.T) {
	s := newTestSealer(t, testSecret, false)
	const base = "https://mcp.example.com"
	first, err := s.Link(base, testTicket)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Link(base, testTicket)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Error("two links of one ticket are the same: they are to be minted afresh")
	}
	for _, link := range []string{first, second} {
		token, ok := strings.CutPrefix(link, base+PathPrefix)
		if !ok {
			t.Fatalf("link %q does not start with %q", link, base+PathPrefix)
		}
		if got, err := s.Open(token); err != nil || got != testTicket {
			t.Errorf("Open(token of %q) = %+v, %v; want %+v", link, got, err, testTicket)
		}
	}
	if _, err := s.Link(base, Ticket{Task: testTicket.Task, Key: "k"}); err == nil {
		t.Error("Link of a ticket without an expiry: want an error")
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ link, want string }{
		{"https://mcp.example.com/approve/AQABAgMEBQYHCAkK", "https://mcp.example.com/approve/AQABAg…[redacted]"},
		{"http://127.0.0.1:8080/approve/AQ", "http://127.0.0.1:8080/approve/AQ…[redacted]"},
		{"", "[redacted]"},
		{"not a link", "[redacted]"},
	}
	for _, tt := range tests {
		if got := Redact(tt.link); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.link, got, tt.want)
		}
	}
	s := newTestSealer(t, testSecret, false)
	link, err := s.Link("https://mcp.example.com", Ticket{Task: "t", Key: "k", Expires: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimPrefix(link, "https://mcp.example.com"+PathPrefix)
	if got := Redact(link); strings.Contains(got, token) || !strings.Contains(got, token[:6]) {
		t.Errorf("Redact(%q) = %q: want the token's first 6 characters only", link, got)
	}
}

// TestToCaller: the link goes to the caller only when the ask has no
// webhook of its own.
func TestToCaller(t *testing.T) {
	if !ToCaller("") {
		t.Error("an ask without a webhook: the caller must get the link")
	}
	if ToCaller("https://hooks.example.com/T0/B0/secret") {
		t.Error("an ask with a webhook: the caller must not get the link")
	}
}
