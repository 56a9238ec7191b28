package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

var builtins = []string{
	"fs.list", "fs.read", "fs.remove", "fs.stat", "fs.write", "http.request",
	"log.info", "random.int", "time.now", "uuid.new",
}

func TestActionsText(t *testing.T) {
	out, errOut, code := run(t, "actions")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, name := range builtins {
		if !strings.Contains(out, "\n"+name+"\n") && !strings.HasPrefix(out, name+"\n") {
			t.Errorf("text listing lacks %s", name)
		}
	}
	if !strings.Contains(out, "url          (string, required)") {
		t.Errorf("http.request's url field is not listed as a required string:\n%s", out)
	}
	// Issue 14: the listing dropped the descriptions, where the guidance
	// is. Each is there in full, wrapped.
	words := strings.Join(strings.Fields(out), " ")
	for _, a := range actions.Default().Actions() {
		if a.Description == "" {
			continue
		}
		if !strings.Contains(words, strings.Join(strings.Fields(a.Description), " ")) {
			t.Errorf("the listing lacks the description of %s: %q", a.Name, a.Description)
		}
	}
}

// TestActionShow: flowserve actions NAME shows one action in full.
func TestActionShow(t *testing.T) {
	tests := []struct {
		name string
		has  []string // in order
	}{
		{"fs.list", []string{
			"fs.list\n  Lists a directory's entries, sorted by name.\n\n  Symbolic links are listed as they are",
			"\ninput: object, no other keys\n",
			`  path  string, default ".", at least 1 character` + "\n      A path relative to the fs root",
			"\noutput: object, no other keys\n",
			"  entries  list of objects, required\n      The directory's entries, sorted by name.\n",
			"  entries[].bytes  integer, required\n",
			"  entries[].name  string, required\n      The entry's name.\n",
		}},
		{"http.request", []string{
			"  `\"Idempotency-Key\": \"{{ run.id }}\"`).\n", // a code span is not broken
			"  headers  map of strings\n",
			"  json  any JSON value\n",
			`  method  one of "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", default "GET"` + "\n",
			"  url  string, required, at least 1 character\n",
			"output: object, no other keys\n  headers  map of strings, required\n",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, "actions", tc.name)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, errOut)
			}
			rest := out
			for _, h := range tc.has {
				i := strings.Index(rest, h)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", h, out)
				}
				rest = rest[i+len(h):]
			}
		})
	}
	// With --format json, the one action as the listing has it.
	out, _, code := run(t, "actions", "fs.list", "--format", "json")
	var a actionJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil || code != 0 || a.Name != "fs.list" || a.Input["type"] != "object" {
		t.Errorf("exit %d, %+v (%v):\n%s", code, a, err, out)
	}
}

// TestSchemaSummary: the one-line description of a field's schema.
func TestSchemaSummary(t *testing.T) {
	tests := []struct {
		schema   map[string]any
		required bool
		want     string
	}{
		{map[string]any{}, false, "any JSON value"},
		{map[string]any{"type": "string"}, true, "string, required"},
		{map[string]any{"type": []any{"string", "null"}}, false, "string or null"},
		{map[string]any{"type": "string", "minLength": int64(1), "maxLength": int64(80)}, false, "string, 1 to 80 characters"},
		{map[string]any{"type": "string", "maxLength": int64(1)}, false, "string, at most 1 character"},
		{map[string]any{"type": "string", "format": "email", "pattern": "^a"}, false, "string, format email, matching ^a"},
		{map[string]any{"type": "integer", "minimum": int64(0), "default": int64(3)}, false, "integer, default 3, at least 0"},
		{map[string]any{"type": "number", "exclusiveMinimum": int64(0), "exclusiveMaximum": 1.5}, false, "number, more than 0, less than 1.5"},
		{map[string]any{"type": "string", "enum": []any{"a", "b"}}, false, `one of "a", "b"`},
		{map[string]any{"const": "x"}, false, `always "x"`},
		{map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, false, "string or integer"},
		{map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": int64(1), "uniqueItems": true}, false, "list of strings, at least 1 item, no duplicates"},
		{map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}, false, "map of strings"},
		{map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}, false, "object, no other keys"},
	}
	for _, tc := range tests {
		if got := schemaSummary(tc.schema, tc.required); got != tc.want {
			t.Errorf("schemaSummary(%v) = %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// TestWriteWrapped: descriptions are wrapped by paragraph, code spans
// whole, lists and code as they are.
func TestWriteWrapped(t *testing.T) {
	long := strings.Repeat("word ", 20)
	tests := []struct {
		name, text, want string
	}{
		{"short", "One line.", "  One line.\n"},
		{"wrapped", long, "  " + strings.TrimSpace(strings.Repeat("word ", 15)) + "\n  " + strings.TrimSpace(strings.Repeat("word ", 5)) + "\n"},
		{"paragraphs", "One.\n\nTwo\nlines.", "  One.\n\n  Two lines.\n"},
		{"a code span is one word", strings.Repeat("x", 70) + " `a b c d e f g`", "  " + strings.Repeat("x", 70) + "\n  `a b c d e f g`\n"},
		{"a list as it is", "Items:\n- one\n- two", "  Items:\n  - one\n  - two\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeWrapped(&b, tc.text, "  ")
			if b.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}

func TestActionsJSON(t *testing.T) {
	out, errOut, code := run(t, "actions", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var list []actionJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	got := map[string]actionJSON{}
	for _, a := range list {
		got[a.Name] = a
	}
	for _, name := range builtins {
		a, ok := got[name]
		if !ok {
			t.Errorf("JSON listing lacks %s", name)
			continue
		}
		if a.Summary == "" || a.Input["type"] != "object" || a.Output == nil {
			t.Errorf("%s: incomplete entry %+v", name, a)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: flowserve"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"actions", "--format", "yaml"}, 2, "--format must be text or json"},
		{[]string{"actions", "fs.read", "extra"}, 2, `unexpected argument "extra" (name one action)`},
		{[]string{"actions", "fs.raed"}, 2, `flowserve actions: no action "fs.raed"; did you mean "fs.read"?`},
		{[]string{"actions", "--format", "json", "fs.raed"}, 2, `did you mean "fs.read"?`},
		{[]string{"actions", "zzz.qqq"}, 2, `no action "zzz.qqq" (the actions are fs.list, fs.read, `},
		{[]string{"actions", "-h"}, 0, "usage: flowserve actions [--format text|json] [NAME]"},
		{[]string{"actions", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"help"}, 0, "usage: flowserve"},
	}
	for _, tc := range tests {
		out, errOut, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%q: exit %d, output %q; want exit %d containing %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}
