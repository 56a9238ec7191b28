package explain

import (
	"slices"
	"strings"
	"testing"
)

// TestFilesParse reads every explanation: its title is its code, it has
// the sections Why, Example and Fix in that order, its code blocks are
// closed, and an example with files has a fix with files. No line is
// longer than 80 characters outside code blocks, so that lint --explain
// reads well in a terminal.
func TestFilesParse(t *testing.T) {
	codes := Codes()
	if len(codes) < 80 {
		t.Fatalf("only %d explanations", len(codes))
	}
	for _, code := range codes {
		e, ok := Lookup(code)
		if !ok {
			t.Errorf("%s: Lookup finds nothing", code)
			continue
		}
		if _, err := parse(code, e.Text); err != nil {
			t.Error(err)
		}
		var heads []string
		inCode := false
		for i, line := range strings.Split(e.Text, "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			}
			if h, ok := strings.CutPrefix(line, "## "); ok && !inCode {
				heads = append(heads, h)
			}
			if !inCode && len([]rune(line)) > 80 {
				t.Errorf("%s.md:%d: a line longer than 80 characters", code, i+1)
			}
		}
		if !slices.Equal(heads, []string{"Why", "Example", "Fix"}) {
			t.Errorf("%s.md: sections %v, want Why, Example, Fix", code, heads)
		}
		rule := strings.TrimSpace(strings.SplitN(strings.SplitN(e.Text, "\n## ", 2)[0], "\n", 2)[1])
		if rule == "" {
			t.Errorf("%s.md: no rule before ## Why", code)
		}
	}
}

// TestParse reads explanations with their files named and not, and
// refuses broken ones.
func TestParse(t *testing.T) {
	const good = "# c\n\nThe rule.\n\n## Why\n\nBecause.\n\n## Example\n\n```yaml\na: 1\n```\n\n```yaml other.yaml\nb: 2\n```\n\n```sh\nflowserve lint\n```\n\n## Fix\n\n```text notes.txt\nhi\n```\n"
	e, err := parse("c", good)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{"flow.yaml", "a: 1\n"}, {"other.yaml", "b: 2\n"}}
	if !slices.Equal(e.Example, want) || !slices.Equal(e.Fix, []File{{"notes.txt", "hi\n"}}) {
		t.Errorf("example %v, fix %v", e.Example, e.Fix)
	}
	for name, text := range map[string]string{
		"title":           strings.Replace(good, "# c", "# d", 1),
		"no why":          strings.Replace(good, "## Why", "## Because", 1),
		"unclosed":        strings.TrimSuffix(good, "```\n"),
		"example, no fix": strings.Replace(good, "```text notes.txt", "```sh", 1),
	} {
		if _, err := parse("c", text); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestLookupAndClose looks codes up, and finds the codes close to ones
// that are not.
func TestLookupAndClose(t *testing.T) {
	for _, bad := range []string{"", "nope", "../explain", "codes/unknown-key", "unknown-key.md"} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) found an explanation", bad)
		}
	}
	if e, ok := Lookup("unknown-key"); !ok || e.Code != "unknown-key" || !strings.HasPrefix(e.Text, "# unknown-key\n") {
		t.Errorf("Lookup(unknown-key) = %+v, %v", e, ok)
	}
	tests := []struct {
		code  string
		first string   // the best guess
		also  []string // among the guesses too
	}{
		{"unknown-kye", "unknown-key", nil},
		{"maybe-unbund", "maybe-unbound", nil},
		{"unbound", "", []string{"maybe-unbound", "unbounded-loop"}},
		{"Unknown-Key", "unknown-key", nil},
		{"with", "", []string{"with-missing", "with-unknown", "with-value"}},
		{"zzzzzzzz", "", nil},
	}
	for _, tc := range tests {
		got := Close(tc.code)
		if len(got) > 5 {
			t.Errorf("Close(%q) = %v: more than five", tc.code, got)
		}
		if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
			t.Errorf("Close(%q) = %v, want %s first", tc.code, got, tc.first)
		}
		for _, c := range tc.also {
			if !slices.Contains(got, c) {
				t.Errorf("Close(%q) = %v, want %s among them", tc.code, got, c)
			}
		}
		if tc.first == "" && tc.also == nil && len(got) > 0 {
			t.Errorf("Close(%q) = %v, want none", tc.code, got)
		}
	}
}
