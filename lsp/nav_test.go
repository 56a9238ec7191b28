package lsp

import (
	"strings"
	"testing"

	"github.com/flowserve/flowserve/dsl"
)

// navFlow is the flow of the hover, definition and rename cases: the id
// confirm is written as an id, in references (one quoted) and in
// expressions (CEL strings that mention it must stay as they are).
const navFlow = `name: nav
description: Navigates 🎉.
input:
  type: object
  properties:
    who: {type: string, description: Who asks}
nodes:
  - id: confirm
    ask: "Go 🎉 {{ input.who }}?"
    form:
      plan: {type: string, enum: [free, team], description: The plan}
    required: [plan]
    unavailable: "fallback"
  - id: check
    branch:
      - if: confirm.accepted && confirm.content.plan == "confirm"
        then: done
      - else: fallback
  - id: fetch
    step: fs.read
    with: {path: "{{ confirm.content.plan }}"}
    on_error: fallback
  - id: done
    return: "{{ size(confirm.content.plan) }} {{ fetch.text }}"
  - id: fallback
    return: "confirm was not asked"
`

// TestHover hovers over paths, expressions, actions and ids.
func TestHover(t *testing.T) {
	tests := []struct {
		name   string
		marker string // the text to hover over, at its shift-th character
		shift  int
		want   []string // substrings of the hover
	}{
		{"a form field with its choices", "plan ==", 1, []string{"confirm.content.plan: string, one of free, team", "The plan"}},
		{"the answer's content", "content.plan ==", 2, []string{"confirm.content: object with fields plan"}},
		{"an ask id in an expression", "confirm.accepted", 1, []string{"confirm: object with fields", "ask node `confirm`"}},
		{"an input field", "who }}", 0, []string{"input.who: string", "Who asks"}},
		{"a step's output field", "text }}", 1, []string{"fetch.text: string"}},
		{"a function: the whole expression", "size(", 1, []string{"size(confirm.content.plan): integer"}},
		{"an action", "fs.read", 3, []string{"**fs.read** — Reads a text file", "`path` string, required", "**output**", "`text` string"}},
		{"a reference", `fallback"`, 2, []string{"return node `fallback`"}},
		{"an id", "check\n", 0, []string{"branch node `check`"}},
	}
	s := snap(t, "", navFlow)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hoverAt(s, posOf(t, navFlow, tt.marker, 0, tt.shift))
			if h == nil {
				t.Fatal("no hover")
			}
			for _, w := range tt.want {
				if !strings.Contains(h.Contents.Value, w) {
					t.Errorf("hover %q lacks %q", h.Contents.Value, w)
				}
			}
		})
	}
	if h := hoverAt(s, posOf(t, navFlow, "description: Navigates", 0, 3)); h != nil {
		t.Errorf("hover on a plain key: %q", h.Contents.Value)
	}
}

// TestRename renames node ids: every occurrence the parsed file gives,
// and nothing else (strings that hold the id stay).
func TestRename(t *testing.T) {
	tests := []struct {
		name, marker string
		to           string
		want         string // the text after the edits, or the error's start
		err          bool
	}{
		{"from the id", "confirm\n", "approve", strings.NewReplacer(
			"id: confirm", "id: approve", "if: confirm.accepted && confirm.", "if: approve.accepted && approve.",
			"{{ confirm.", "{{ approve.", "size(confirm.", "size(approve.").Replace(navFlow), false},
		{"from an expression", "confirm.accepted", "approve", "", false},
		{"a quoted reference", `fallback"`, "nope", strings.NewReplacer(
			`"fallback"`, `"nope"`, "else: fallback", "else: nope", "on_error: fallback", "on_error: nope", "id: fallback", "id: nope").Replace(navFlow), false},
		{"not a name", "confirm\n", "Bad-Name", "is not a node id", true},
		{"a name in scope", "confirm\n", "input", "is already a name", true},
		{"an id taken", "confirm\n", "check", "a node already has id", true},
		{"no id here", "description", "x", "there is no node id", true},
	}
	s := snap(t, "", navFlow)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edits, err := renameEdits(s, posOf(t, navFlow, tt.marker, 0, 1), tt.to)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := applyEdits(t, navFlow, edits)
			if tt.want != "" && got != tt.want {
				t.Fatalf("renamed:\n%s", got)
			}
			if _, diags := dsl.Parse("f.yaml", []byte(got)); diags.HasErrors() {
				t.Fatalf("the renamed flow does not parse: %v", diags)
			}
		})
	}
}

// TestDefinition goes from each kind of occurrence to the id.
func TestDefinition(t *testing.T) {
	tests := []struct {
		name, marker string
		shift        int
		target       string // the id's own marker; "" for no definition
	}{
		{"a then", "done\n      - else", 1, "done\n    return"},
		{"a quoted unavailable", `fallback"`, 0, "fallback\n    return"},
		{"an on_error", "fallback\n  - id: done", 3, "fallback\n    return"},
		{"an expression", "fetch.text", 2, "fetch\n    step"},
		{"the id itself", "check\n", 0, "check\n"},
		{"a string that mentions an id", `"confirm"`, 2, ""},
	}
	s := &Server{docs: map[string]*document{"u": {uri: "u", snap: snap(t, "", navFlow)}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locs, err := s.definition(&TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: "u"},
				Position: posOf(t, navFlow, tt.marker, 0, tt.shift)})
			if err != nil {
				t.Fatal(err)
			}
			if tt.target == "" {
				if len(locs) != 0 {
					t.Fatalf("definition %+v, want none", locs)
				}
				return
			}
			if len(locs) != 1 || locs[0].Range.Start != posOf(t, navFlow, tt.target, 0, 0) {
				t.Fatalf("definition %+v, want %+v", locs, posOf(t, navFlow, tt.target, 0, 0))
			}
		})
	}
}

// TestFixes works out the fixes of did-you-mean diagnostics, and none
// where the file does not hold the misspelt name at the position.
func TestFixes(t *testing.T) {
	src := "nodes:\n  - id: a\n    nxt: b\n    ask: \"é {{ input.pathh }}\"\n    unavailable: \"donee\"\n"
	tests := []struct {
		name string
		d    dsl.Diagnostic
		want string // the fixed text; "" for no fix
	}{
		{"a key", dsl.Diagnostic{Pos: dsl.Pos{Line: 3, Col: 5}, Message: `unknown key "nxt" in an ask node; did you mean "next"?`},
			strings.Replace(src, "nxt", "next", 1)},
		{"a field after non-ASCII text", dsl.Diagnostic{Pos: dsl.Pos{Line: 4, Col: 22}, Message: `undefined field 'pathh' (did you mean "path"?)`},
			strings.Replace(src, "pathh", "path", 1)},
		{"a quoted reference", dsl.Diagnostic{Pos: dsl.Pos{Line: 5, Col: 18}, Message: `no node has id "donee"; did you mean "done"?`},
			strings.Replace(src, "donee", "done", 1)},
		{"no suggestion", dsl.Diagnostic{Pos: dsl.Pos{Line: 3, Col: 5}, Message: `unknown key "nxt" in an ask node`}, ""},
		{"the name is elsewhere", dsl.Diagnostic{Pos: dsl.Pos{Line: 2, Col: 5}, Message: `unknown key "nxt"; did you mean "next"?`}, ""},
	}
	tx := newText([]byte(src))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fixes := diagFixes(tt.d, tx)
			if tt.want == "" {
				if len(fixes) != 0 {
					t.Fatalf("fixes %+v, want none", fixes)
				}
				return
			}
			if len(fixes) != 1 {
				t.Fatalf("fixes %+v, want one", fixes)
			}
			f := fixes[0]
			got := applyEdits(t, src, []TextEdit{{Range: tx.posRange(f.Pos, f.End), NewText: f.NewText}})
			if got != tt.want {
				t.Fatalf("fixed:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
