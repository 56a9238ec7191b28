package lsp

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
)

// calleeFiles are the flows beside the caller in the call cases, by path
// under a flows directory: a private flow with an output schema, a flow
// named by its file with no output, a prompt (which no call may run)
// and a flow in a subdirectory.
var calleeFiles = map[string]string{
	"confirm.yaml": `name: confirm_action
title: Confirm
description: Asks to confirm an action.
expose: false
input:
  type: object
  properties:
    action: {type: string, description: What to confirm}
    times: {type: integer, default: 1}
  required: [action, times]
output:
  type: object
  properties:
    confirmed: {type: boolean}
    note: {type: string, description: What the user said}
    count: {type: integer}
  required: [confirmed, note, count]
nodes:
  - id: ok
    ask: "Really {{ input.action }}?"
    form:
      yes: {type: boolean}
    required: [yes]
  - return:
      text: done
      structured: {confirmed: "{{ ok.content.yes }}", note: "n", count: 1}
`,
	"receipt.yaml": `description: Shows a receipt.
input:
  type: object
  properties:
    order: {type: string}
nodes:
  - return: "Receipt for {{ input.order }}"
`,
	"greeting.yaml": `name: greeting
kind: prompt
description: A prompt.
nodes:
  - return: hello
`,
	"billing/archive.yaml": `name: archive_items
description: Archives items.
nodes:
  - return: archived
`,
}

// callerFlow calls confirm_action and links to receipt; its mistakes are
// only mistakes against those flows.
const callerFlow = `name: delete_file
description: Deletes a file after a confirmation.
input:
  type: object
  properties:
    path: {type: string}
  required: [path]
nodes:
  - id: confirm
    call: confirm_action
    with:
      action: "delete {{ input.path }}"
      tims: 2
    on_error: kept
  - branch:
      - if: confirm.confirmed && confirm.cont == 2
        then: deleted
      - else: kept
  - id: deleted
    return: "Deleted {{ input.path }} ({{ confirm.note }})"
  - id: archive
    call: archive_item
  - id: kept
    link: receipt
    with: {order: "{{ input.path }}"}
`

// writeFlows writes files under dir and returns dir.
func writeFlows(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadWith returns the diagnostics of project.Load of paths, what
// flowserve lint gives, with the file path holding src (saved or not).
func loadWith(paths []string, opts project.Options, path, src string) dsl.Diagnostics {
	ws := project.NewWorkspace(paths, opts)
	ws.SetOverlay(path, []byte(src))
	_, diags := ws.Load()
	return diags
}

// loadLines returns what flowserve lint (project.Load of dir) says of
// the file path, whose text is src, in the form diagLines gives.
func loadLines(t testing.TB, dir, path, src string) []string {
	t.Helper()
	diags := loadWith([]string{dir}, project.Options{CheckOnly: true}, path, src)
	tx := newText([]byte(src))
	var out []string
	for _, d := range diags {
		if d.Pos.File == path {
			start, end := diagRange(d, tx)
			out = append(out, fmt.Sprintf("%+v %s %s", tx.posRange(start, end), d.Code, d.Message))
		}
	}
	return out
}

// diagLines returns published diagnostics one to a line.
func diagLines(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%+v %s %s", d.Range, d.Code, d.Message))
	}
	return out
}

// TestDiagnosticsAcrossCalls lints a flow that calls others in its
// directory and in a subdirectory of the flows directory: its
// diagnostics are flowserve lint's of the directory, at the same ranges.
// Changes to a callee, open (its text in the editor) or on disk, and
// closing it, lint the caller again.
func TestDiagnosticsAcrossCalls(t *testing.T) {
	dir := writeFlows(t, filepath.Join(t.TempDir(), "flows"), calleeFiles)
	writeFlows(t, dir, map[string]string{"delete.yaml": "name: delete_file\n"}) // the editor's text differs
	c := initialized(t, time.Millisecond)
	path := filepath.Join(dir, "delete.yaml")
	uri := open(t, c, path, callerFlow)
	expect := func(when string, pub PublishDiagnosticsParams, callee string, want ...string) {
		t.Helper()
		files := map[string]string{}
		if callee != "" {
			files = map[string]string{"confirm.yaml": callee}
		}
		lint := loadLines(t, writeFlows(t, dir, files), path, callerFlow)
		got := diagLines(pub.Diagnostics)
		if !slices.Equal(got, lint) {
			t.Fatalf("%s: diagnostics\n%s\nwant lint's\n%s", when, strings.Join(got, "\n"), strings.Join(lint, "\n"))
		}
		for _, w := range want {
			if !strings.Contains(strings.Join(got, "\n"), w) {
				t.Fatalf("%s: no %q among\n%s", when, w, strings.Join(got, "\n"))
			}
		}
	}
	expect("opened", c.waitDiagnostics(uri), "",
		`with.tims is not allowed by flow confirm_action (it takes action, times); did you mean "times"?`,
		`undefined field 'cont' (did you mean "count"?)`,
		`no flow is named "archive_item"; did you mean "archive_items"?`)

	// The callee opened and edited: the caller is linted with its text.
	confirmPath := filepath.Join(dir, "confirm.yaml")
	edited := strings.Replace(calleeFiles["confirm.yaml"], "times:", "tims:", 1)
	curi := open(t, c, confirmPath, calleeFiles["confirm.yaml"])
	c.waitDiagnostics(uri)
	c.notify("textDocument/didChange", map[string]any{"textDocument": VersionedTextDocumentIdentifier{URI: curi, Version: 2},
		"contentChanges": []TextDocumentContentChangeEvent{{Text: edited}}})
	pub := c.waitDiagnostics(uri)
	if hasCode(pub.Diagnostics, "with-unknown") {
		t.Fatalf("after the callee's edit, tims is its input: %+v", pub.Diagnostics)
	}
	if d, ok := findDiagnostic(pub.Diagnostics, "with-missing"); !ok || !strings.Contains(d.Message, "with.times") {
		t.Fatalf("after the callee's edit: %+v, want with.times missing", pub.Diagnostics)
	}
	// Closed: the file on disk stands for it again.
	c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: curi}})
	expect("the callee closed", c.waitDiagnostics(uri), "", "with.tims is not allowed")

	// Changed on disk: the client says so, and the caller is linted again.
	// Without an output schema the call's result is its text.
	noOutput := calleeFiles["confirm.yaml"][:strings.Index(calleeFiles["confirm.yaml"], "output:")] + "nodes:\n  - return: done\n"
	writeFlows(t, dir, map[string]string{"confirm.yaml": noOutput})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": pathURI(confirmPath), "type": 2}}})
	pub = c.waitDiagnostics(uri)
	expect("the callee changed on disk", pub, noOutput)
	if strings.Contains(strings.Join(diagLines(pub.Diagnostics), "\n"), `did you mean "count"`) {
		t.Fatalf("the callee's output is still its old one: %v", diagLines(pub.Diagnostics))
	}
}

// TestLintIsLoad lints every flow of directories of flows that call each
// other, the example flows, the call archives of the other packages'
// tests and the lint goldens, as the server does (lintDoc, with the parses of the other files
// kept from one run to the next), and compares each diagnostic, with its
// end and fixes, with project.Load's of the directory.
func TestLintIsLoad(t *testing.T) {
	dirs := map[string]string{}
	root := t.TempDir()
	five := "name: five\ndescription: Asks five times.\nnodes:\n"
	for i := range 5 {
		five += fmt.Sprintf("  - id: q%d\n    ask: \"%d?\"\n    form: {ok: {type: boolean}}\n", i, i)
	}
	five += "  - return: ok\n"
	own := writeFlows(t, filepath.Join(root, "own", "flows"), calleeFiles)
	writeFlows(t, own, map[string]string{
		"delete.yaml":          callerFlow,
		"same.yaml":            "name: receipt\ndescription: The same name.\nnodes:\n  - return: ok\n",
		"broken.yaml":          "name: broken\ndescription: [\n",
		"partial.yaml":         "name: partial\ndescription: Partial.\nnodes:\n  - id: a\n    call: confirm_action\n    nxt: b\n",
		"cycle.yaml":           "name: cycle\ndescription: Calls itself.\nnodes:\n  - id: again\n    call: cycle\n  - return: \"{{ again }}\"\n",
		"prompt_call.yaml":     "name: prompt_call\ndescription: Calls a prompt.\nnodes:\n  - id: g\n    call: greeting\n  - return: x\n",
		".drafts/ghost.yaml":   "name: ghost\ndescription: Hidden.\nnodes:\n  - return: boo\n",
		"calls_ghost.yaml":     "name: calls_ghost\ndescription: Calls a hidden flow.\nnodes:\n  - id: g\n    call: ghost\n  - return: x\n",
		"billing/refund.yaml":  "name: refund\ndescription: Calls up.\nnodes:\n  - id: c\n    call: confirm_action\n    with: {action: refund, times: \"{{ 1 + 1 }}\"}\n  - return: \"{{ c.count + 1 }}\"\n",
		"resources.yaml":       "resources: [{uri: \"docs://x\", name: x, description: X., text: hi}]\n",
		"bad.resources.yaml":   "resources: [{name: x, text: again}]\n",
		"billing/second.yaml":  "description: Named by its file.\nnodes:\n  - id: r\n    link: refund\n",
		"link_out.yaml":        "name: link_out\ndescription: Links without output.\noutput: {type: object}\nnodes:\n  - id: r\n    link: receipt\n    with: {order: 1}\n",
		"billing/dup_of_x.yml": "name: refund\ndescription: Refund again.\nnodes:\n  - return: again\n",
		"with_bad.yaml":        "name: with_bad\ndescription: Calls badly.\nnodes:\n  - id: c\n    call: confirm_action\n    with: {times: many}\n  - return: \"{{ c.note }}\"\n",
		"five.yaml":            five,
		"twice.yaml":           "name: twice\ndescription: Asks ten times.\nnodes:\n  - id: one\n    call: five\n  - id: two\n    call: five\n  - return: \"{{ one }} {{ two }}\"\n",
	})
	dirs["own"] = own
	examples, err := filepath.Abs("../flows")
	if err != nil {
		t.Fatal(err)
	}
	dirs["examples"] = examples
	dirs["serve calls"], _ = filepath.Abs("../serve/testdata/calls")
	archives, _ := filepath.Glob("../*/testdata/*/*.txtar")
	for _, file := range archives {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".yaml") && !strings.HasSuffix(f.Name, "_test.yaml") {
				files[f.Name] = string(f.Data)
			}
		}
		if len(files) < 2 || !slices.ContainsFunc(slices.Collect(maps.Values(files)), func(s string) bool { return strings.Contains(s, "call:") || strings.Contains(s, "link:") }) {
			continue
		}
		name := strings.TrimPrefix(file, "../")
		dirs[name] = writeFlows(t, filepath.Join(root, strings.ReplaceAll(name, "/", "_")), files)
	}
	// Every lint golden, all_at_once* among them (structural errors and
	// expression errors in one file): the editor shows what lint does.
	goldens, _ := filepath.Glob("../testdata/lint/*.txtar")
	for _, file := range goldens {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range a.Files {
			if project.IsFlowFile(f.Name) {
				files[f.Name] = string(f.Data)
			}
		}
		name := "lint " + strings.TrimSuffix(filepath.Base(file), ".txtar")
		dirs[name] = writeFlows(t, filepath.Join(root, strings.ReplaceAll(name, " ", "_")), files)
	}
	if len(dirs) < 5 || !slices.ContainsFunc(goldens, func(f string) bool { return strings.Contains(f, "all_at_once") }) {
		t.Fatalf("only %d directories of flows, %d lint goldens", len(dirs), len(goldens))
	}
	s := New(Options{})
	seen := map[string]bool{}
	mixed := false // a file with a structural error and an expression error
	for name, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			continue // another package's testdata moved
		}
		_, want := project.Load([]string{dir}, project.Options{CheckOnly: true})
		byFile := map[string]dsl.Diagnostics{}
		for _, d := range want {
			byFile[d.Pos.File] = append(byFile[d.Pos.File], d)
		}
		files, _ := project.Discover([]string{dir})
		for _, path := range slices.Concat(files.Flows, files.Resources) {
			for range 2 { // the second run reads the parses the first kept
				got := s.lintDoc(path, overlay{})
				if (len(got) > 0 || len(byFile[path]) > 0) && !reflect.DeepEqual(got, byFile[path]) {
					t.Errorf("%s: %s:\n%s\nwant project.Load's\n%s", name, path, got, byFile[path])
				}
			}
			fileCodes := map[string]bool{}
			for _, d := range byFile[path] {
				seen[d.Code], fileCodes[d.Code] = true, true
			}
			mixed = mixed || fileCodes[codes.UnknownKey] && fileCodes[codes.BadExpression]
		}
	}
	if !mixed {
		t.Error("no file has both unknown-key and bad-expression")
	}
	for _, code := range []string{codes.UnknownFlow, codes.BadCallee, codes.CallCycle, codes.LinkOutput,
		codes.WithMissing, codes.WithUnknown, codes.WithValue, codes.DuplicateTool, codes.RoundBudget,
		codes.UnknownKey, codes.MisplacedKey, codes.BadExpression, codes.TypeError} {
		if !seen[code] {
			t.Errorf("no directory gives %s", code)
		}
	}
}

// callSnap returns a snapshot of src at flows/delete.yaml whose scope
// holds the callee files, parsed, and prev as the last text that parsed.
func callSnap(t testing.TB, prev, src string) *snapshot {
	t.Helper()
	var files []*dsl.File
	for name, text := range calleeFiles {
		f, _ := dsl.Parse("/w/flows/"+name, []byte(text))
		files = append(files, f)
	}
	s := snap(t, prev, src)
	s.path = "/w/flows/delete.yaml"
	s.flows = func(self *dsl.File) dsl.FlowTable { return dsl.NewFlowTable(append([]*dsl.File{self}, files...)) }
	return s
}

// TestCallCompletion completes in a flow with call and link nodes: the
// flows after call: and link:, the callee's input in a call's with, its
// output after the call's id, and call ids as targets.
func TestCallCompletion(t *testing.T) {
	tests := []struct {
		name       string
		old, new   string
		want, dont []string
		detail     map[string]string
	}{
		{"flows after call", "    call: confirm_action\n", "    call: |\n",
			[]string{"confirm_action", "receipt", "archive_items"}, []string{"greeting", "delete_file"},
			map[string]string{"confirm_action": "Asks to confirm an action. (expose: false)", "receipt": "Shows a receipt."}},
		{"flows after link, typed in part", "    link: receipt\n", "    link: rec|\n", []string{"receipt"}, nil, nil},
		{"flows after call, quoted", "    call: confirm_action\n", "    call: \"con|\"\n", []string{"confirm_action"}, nil, nil},
		{"a call's with keys, block style", "      tims: 2\n", "      |\n", []string{"times"}, []string{"action", "path"},
			map[string]string{"times": "integer"}},
		{"a call's with keys, the with empty", "    with:\n      action: \"delete {{ input.path }}\"\n      tims: 2\n", "    with:\n      |\n",
			[]string{"action", "times"}, nil, map[string]string{"action": "string, required"}},
		{"a link's with keys, flow style", "    with: {order: \"{{ input.path }}\"}\n", "    with: {|}\n", []string{"order"}, []string{"action"}, nil},
		{"a call's result", `    return: "Deleted {{ input.path }} ({{ confirm.note }})"` + "\n", `    return: "{{ confirm.| }}"` + "\n",
			[]string{"confirmed", "note", "count"}, []string{"accepted", "content"}, map[string]string{"count": "integer"}},
		{"a call's result in a condition", "      - if: confirm.confirmed && confirm.cont == 2\n", "      - if: confirm.|\n",
			[]string{"confirmed", "note", "count"}, nil, nil},
		{"call ids in scope", "      - if: confirm.confirmed && confirm.cont == 2\n", "      - if: co|\n", []string{"confirm"}, nil,
			map[string]string{"confirm": "call confirm: object with fields confirmed, count, note"}},
		{"call ids as on_error targets", "    on_error: kept\n", "    on_error: |\n", []string{"kept", "archive", "confirm", "deleted"}, nil,
			map[string]string{"archive": "call node", "kept": "link node"}},
		{"call ids as next targets", "    call: archive_item\n", "    call: archive_item\n    next: |\n", []string{"confirm", "kept"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(callerFlow, tt.old) {
				t.Fatalf("callerFlow has no %q", tt.old)
			}
			src, pos := cursor(t, strings.Replace(callerFlow, tt.old, tt.new, 1))
			items := complete(callSnap(t, callerFlow, src), pos)
			labels := labelsOf(items)
			for _, w := range tt.want {
				if !slices.Contains(labels, w) {
					t.Errorf("no %q among %v", w, labels)
				}
			}
			for _, d := range tt.dont {
				if slices.Contains(labels, d) {
					t.Errorf("%q offered, among %v", d, labels)
				}
			}
			for label, sub := range tt.detail {
				if i := slices.Index(labels, label); i >= 0 && !strings.Contains(items[i].Detail, sub) {
					t.Errorf("%s: detail %q, want %q in it", label, items[i].Detail, sub)
				}
			}
			for _, it := range items {
				if it.TextEdit == nil || it.TextEdit.Range.End != pos {
					t.Errorf("%s: edit %+v does not end at the cursor %+v", it.Label, it.TextEdit, pos)
				}
			}
		})
	}
	// The flow's own documentation: its file, its input and its result.
	src, pos := cursor(t, strings.Replace(callerFlow, "    call: confirm_action\n", "    call: |\n", 1))
	items := complete(callSnap(t, callerFlow, src), pos)
	i := slices.Index(labelsOf(items), "confirm_action")
	if i < 0 || items[i].Documentation == nil {
		t.Fatalf("items %+v", items)
	}
	for _, w := range []string{"**confirm_action** — Confirm", "flow in `confirm.yaml`", "`expose: false`", "`action` string, required — What to confirm", "`note` string"} {
		if !strings.Contains(items[i].Documentation.Value, w) {
			t.Errorf("documentation %q lacks %q", items[i].Documentation.Value, w)
		}
	}
}

// TestCallRename renames a call id: its on_error references and the
// expressions of a call's with are occurrences too.
func TestCallRename(t *testing.T) {
	const src = `name: r
description: Renames.
nodes:
  - id: first
    call: confirm_action
    with: {action: x, times: 1}
    on_error: failed
  - id: second
    call: confirm_action
    with: {action: "{{ first.note }}", times: "{{ first.count }}"}
    on_error: failed
  - id: failed
    return: "{{ second.note }}"
`
	s := callSnap(t, "", src)
	edits, err := renameEdits(s, posOf(t, src, "first\n", 0, 1), "one")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := applyEdits(t, src, edits), strings.ReplaceAll(src, "first", "one"); got != want {
		t.Fatalf("renamed:\n%s", got)
	}
	edits, err = renameEdits(s, posOf(t, src, "failed\n  - id: second", 0, 1), "oops")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := applyEdits(t, src, edits), strings.ReplaceAll(src, "failed", "oops"); got != want {
		t.Fatalf("renamed:\n%s", got)
	}
}

// TestCallNavigation asks a server, over the protocol, for the
// definition of and hover on the flows a document calls and links to,
// and for their results' fields: the callees are files beside it on
// disk, one of them opened and changed in the editor.
func TestCallNavigation(t *testing.T) {
	dir := writeFlows(t, filepath.Join(t.TempDir(), "flows"), calleeFiles)
	c := initialized(t, time.Millisecond)
	uri := open(t, c, filepath.Join(dir, "delete.yaml"), callerFlow)
	c.waitDiagnostics(uri)
	at := func(marker string, shift int) TextDocumentPositionParams {
		return TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Position: posOf(t, callerFlow, marker, 0, shift)}
	}
	definition := func(marker string, shift int) []Location {
		t.Helper()
		var locs []Location
		if msg := c.call("textDocument/definition", at(marker, shift), &locs); msg != "" {
			t.Fatal(msg)
		}
		return locs
	}
	confirm := calleeFiles["confirm.yaml"]
	name := posOf(t, confirm, "confirm_action", 0, 0)
	want := []Location{{URI: pathURI(filepath.Join(dir, "confirm.yaml")), Range: Range{Start: name, End: Position{Line: name.Line, Character: name.Character + len("confirm_action")}}}}
	if got := definition("confirm_action\n", 3); !reflect.DeepEqual(got, want) {
		t.Fatalf("definition of a call's flow %+v, want %+v", got, want)
	}
	want = []Location{{URI: pathURI(filepath.Join(dir, "receipt.yaml"))}}
	if got := definition("receipt\n", len("receipt")); !reflect.DeepEqual(got, want) {
		t.Fatalf("definition of a link's flow named by its file %+v, want %+v", got, want)
	}
	if got := definition("archive_item\n", 0); len(got) != 0 {
		t.Fatalf("definition of an unknown flow %+v", got)
	}

	hover := func(marker string, shift int) string {
		t.Helper()
		var h *Hover
		if msg := c.call("textDocument/hover", at(marker, shift), &h); msg != "" || h == nil {
			t.Fatalf("hover at %q: %s %+v", marker, msg, h)
		}
		return h.Contents.Value
	}
	for _, tt := range []struct {
		marker string
		shift  int
		want   []string
	}{
		{"confirm_action\n", 0, []string{"**confirm_action** — Confirm", "Asks to confirm an action.", "`action` string, required", "**output** (the call's id)", "`confirmed` boolean"}},
		{"receipt\n", 2, []string{"**receipt**", "Shows a receipt.", "`order` string", "a string, the text of its result"}},
		{"archive_item\n", 2, []string{"no flow is named `archive_item`"}},
		{"note }}", 1, []string{"confirm.note: string", "What the user said"}},
		{"confirm.note }}", 1, []string{"confirm: object with fields confirmed, count, note", "call node `confirm` (line 9): confirm_action"}},
	} {
		got := hover(tt.marker, tt.shift)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("hover at %q: %q lacks %q", tt.marker, got, w)
			}
		}
	}

	// The callee open, its output changed and not saved: the caller's
	// completion and definition follow its text.
	edited := strings.Replace(confirm, "    count: {type: integer}\n", "    count: {type: integer}\n    reason: {type: string}\n", 1)
	edited = "# edited\n" + edited
	curi := open(t, c, filepath.Join(dir, "confirm.yaml"), edited)
	c.waitDiagnostics(curi)
	var list CompletionList
	c.call("textDocument/completion", CompletionParams{TextDocumentPositionParams: at("note }}", 0)}, &list)
	if labels := labelsOf(list.Items); !slices.Contains(labels, "reason") || !slices.Contains(labels, "note") {
		t.Fatalf("completion of the call's result after the callee's edit: %v", labels)
	}
	name = posOf(t, edited, "confirm_action", 0, 0)
	want = []Location{{URI: curi, Range: Range{Start: name, End: Position{Line: name.Line, Character: name.Character + len("confirm_action")}}}}
	if got := definition("confirm_action\n", 3); !reflect.DeepEqual(got, want) {
		t.Fatalf("definition into the open callee %+v, want %+v", got, want)
	}
}

// TestScopeOf checks which files a document is linted with: the flows
// directory above it with its subdirectories, hidden ones left out; its
// own directory when none is named flows; itself alone for an untitled
// document; nothing for a test file.
func TestScopeOf(t *testing.T) {
	root := t.TempDir()
	writeFlows(t, root, map[string]string{
		"flows/a.yaml": "", "flows/sub/b.yaml": "", "flows/.hidden/c.yaml": "", "flows/a_test.yaml": "",
		"flows/resources.yaml": "", "flows/notes.txt": "", "other/d.yaml": "", "other/deeper/e.yml": "",
	})
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	unsaved := filepath.Join(root, "flows", "sub", "new.yaml")
	texts := overlay{unsaved: nil}
	for _, tt := range []struct {
		doc          string
		flows, decls []string
	}{
		{"flows/sub/b.yaml", []string{"flows/a.yaml", "flows/sub/b.yaml", "flows/sub/new.yaml"}, []string{"flows/resources.yaml"}},
		{"flows/.hidden/c.yaml", []string{"flows/.hidden/c.yaml", "flows/a.yaml", "flows/sub/b.yaml", "flows/sub/new.yaml"}, []string{"flows/resources.yaml"}},
		{"flows/resources.yaml", []string{"flows/a.yaml", "flows/sub/b.yaml", "flows/sub/new.yaml"}, []string{"flows/resources.yaml"}},
		{"other/d.yaml", []string{"other/d.yaml", "other/deeper/e.yml"}, nil},
		{"flows/a_test.yaml", nil, nil},
	} {
		var files project.Files
		if paths := scopeOf(filepath.Join(root, tt.doc), texts); paths != nil {
			ws := project.NewWorkspace(paths, project.Options{})
			ws.SetOverlay(unsaved, nil)
			files, _ = ws.Files(0)
		}
		if got := rel(files.Flows); !slices.Equal(got, tt.flows) {
			t.Errorf("%s: flows %v, want %v", tt.doc, got, tt.flows)
		}
		if got := rel(files.Resources); !slices.Equal(got, tt.decls) {
			t.Errorf("%s: declarations %v, want %v", tt.doc, got, tt.decls)
		}
	}
	if paths := scopeOf("untitled:Untitled-1", nil); !slices.Equal(paths, []string{"untitled:Untitled-1"}) {
		t.Errorf("an untitled document's scope %v", paths)
	}
}
