package dsl

import (
	"strings"
	"testing"

	"github.com/flowserve/flowserve/check/codes"
)

func TestParseSettings(t *testing.T) {
	src := `vars:
  api_base: {description: Base URL of the deploy API}
  region:
secrets:
  deploy_token: {description: Bearer token}
nodes:
  - return: "{{ vars.api_base }}"
`
	f, ds := Parse("flow.yaml", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	type want struct {
		name      string
		line, col int
		desc      string
	}
	check := func(what string, got []*Setting, ws []want) {
		t.Helper()
		if len(got) != len(ws) {
			t.Fatalf("%s: %d settings, want %d", what, len(got), len(ws))
		}
		for i, w := range ws {
			g := got[i]
			if g.Name != w.name || g.Pos.Line != w.line || g.Pos.Col != w.col || g.Description.Value != w.desc {
				t.Errorf("%s[%d] = %s at %d:%d (%q), want %s at %d:%d (%q)", what, i, g.Name, g.Pos.Line, g.Pos.Col,
					g.Description.Value, w.name, w.line, w.col, w.desc)
			}
		}
	}
	check("vars", f.Vars, []want{{"api_base", 2, 3, "Base URL of the deploy API"}, {"region", 3, 3, ""}})
	check("secrets", f.Secrets, []want{{"deploy_token", 5, 3, "Bearer token"}})
	if f.Secrets[0].Description.Pos.Line != 5 || f.Secrets[0].Description.Pos.Col != 31 {
		t.Errorf("description at %v, want 5:31", f.Secrets[0].Description.Pos)
	}
}

// secretFlow is a flow that declares a secret (or not) and reads it in a
// return.
func secretFlow(declare bool, lang, expr string) string {
	var b strings.Builder
	if lang != "" {
		b.WriteString("expressions: " + lang + "\n")
	}
	if declare {
		b.WriteString("secrets:\n  token: {description: t}\n")
	}
	b.WriteString("nodes:\n  - id: s\n    step: http.request\n    with: {url: \"{{ secrets.token }}\"}\n")
	b.WriteString("  - return: \"" + expr + "\"\n")
	return b.String()
}

func TestCheckSecrets(t *testing.T) {
	tests := []struct {
		name    string
		declare bool
		lang    string
		expr    string
		want    string // the diagnostic's position and what it names; "" for none
	}{
		{"read in a return", true, "", "{{ secrets.token }}", "7:17 secrets.token"},
		{"read in expr", true, "expr", "{{ secrets.token }}", "8:17 secrets.token"},
		{"read as a whole", true, "", "x {{ secrets }}", "7:19 secrets"},
		{"read by index", true, "", "{{ 'a' + secrets['token'] }}", "7:23 secrets"},
		{"only in with", true, "", "done", ""},
		{"a string that spells it", true, "", "{{ 'secrets.token' }}", ""},
		{"a comprehension variable", true, "", "{{ [1].map(secrets, secrets + 1) }}", ""},
		// Undeclared, the read is Compile's type error (undeclared
		// reference), not this one.
		{"nothing declared", false, "", "{{ secrets.token }}", ""},
		// An expression that does not compile is Compile's to report.
		{"does not compile", true, "", "{{ secrets.token + nope }}", ""},
		{"unknown language", true, "lisp", "{{ secrets.token }}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := Parse("flow.yaml", []byte(secretFlow(tc.declare, tc.lang, tc.expr)))
			var got []string
			for _, d := range ds {
				if d.Code == codes.SecretOutsideWith {
					name, _, _ := strings.Cut(d.Message, " ")
					got = append(got, d.Pos.String()[len("flow.yaml:"):]+" "+name)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("reported %v", got)
			case tc.want != "" && (len(got) != 1 || got[0] != tc.want):
				t.Errorf("got %v, want [%s]", got, tc.want)
			}
		})
	}
}

func TestSelection(t *testing.T) {
	for _, tc := range []struct {
		src  string
		off  int
		want string
	}{
		{"secrets.token", 0, "secrets.token"},
		{"a + secrets.token.x + 1", 4, "secrets.token.x"},
		{"secrets['token']", 0, "secrets"},
		{"secrets.", 0, "secrets"},
		{"x", 5, "secrets"},
	} {
		if got := selection(tc.src, tc.off); got != tc.want {
			t.Errorf("selection(%q, %d) = %q, want %q", tc.src, tc.off, got, tc.want)
		}
	}
}
