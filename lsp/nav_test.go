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
vars:
  shop: {description: The shop}
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
  - set:
      total: "{{ size(fetch.text) }}"
  - id: done
    return: "{{ size(confirm.content.plan) }} {{ fetch.text }} {{ total }} {{ vars.shop }}"
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
		{"a var with its description", "shop }}", 1, []string{"vars.shop: string", "The shop"}},
		{"a set name", "total }}", 1, []string{"total: integer"}},
		{"a function: the whole expression", "size(confirm", 1, []string{"size(confirm.content.plan): integer"}},
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
		{"an on_error", "fallback\n  - set:", 3, "fallback\n    return"},
		{"an expression", "fetch.text", 2, "fetch\n    step"},
		{"the id itself", "check\n", 0, "check\n"},
		{"a string that mentions an id", `"confirm"`, 2, ""},
		{"a set name", "total }}", 1, "total:"},
		{"a var", "shop }}", 1, "shop: {"},
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

// TestFixes lints flows with did-you-mean mistakes and applies the code
// actions of their diagnostics: each comes out as the flow without the
// mistake.
func TestFixes(t *testing.T) {
	const good = `name: fixes
description: Fixes 🎉.
input:
  type: object
  properties:
    path: {type: string}
nodes:
  - id: ask
    ask: "é {{ input.path }}"
    form: {ok: {type: boolean}}
    next: done
    unavailable: "done"
  - id: done
    return: ok
`
	tests := []struct {
		name, typo string // the mistake, in place of its fix
		fixed      string
	}{
		{"a key", "    nxt: done", "    next: done"},
		{"a field after non-ASCII text", "{{ input.pathh }}", "{{ input.path }}"},
		{"a quoted reference", `unavailable: "donee"`, `unavailable: "done"`},
	}
	s := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(good, tt.fixed, tt.typo, 1)
			if src == good {
				t.Fatalf("the flow has no %q", tt.fixed)
			}
			path := "/nonexistent/flows/fixes.yaml"
			s.docs = map[string]*document{"u": {uri: "u", path: path, src: []byte(src), snap: snap(t, "", src)}}
			acts, err := s.codeAction(&CodeActionParams{TextDocument: TextDocumentIdentifier{URI: "u"},
				Range: Range{End: Position{Line: 99}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(acts) != 1 || acts[0].Kind != "quickfix" || len(acts[0].Diagnostics) != 1 {
				t.Fatalf("code actions %+v, want one quickfix", acts)
			}
			if got := applyEdits(t, src, acts[0].Edit.Changes["u"]); got != good {
				t.Fatalf("fixed:\n%s", got)
			}
		})
	}
}
