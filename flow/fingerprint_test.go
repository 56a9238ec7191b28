package flow

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/dsl"
)

// fingerprintGolden holds the fingerprint of every node of every shipped
// flow. Journal entries and pending questions carry these numbers from one
// round to the next (and from one release to the next), so a change to
// fingerprint fails every run in flight: TestFingerprintGolden makes that
// change fail a test first.
const fingerprintGolden = "testdata/fingerprints/golden.txtar"

// fingerprintFlows are the flows the golden covers, as globs from this
// directory: the example flows, the conformance fixtures, and a flow that
// uses every field fingerprint reads.
var fingerprintFlows = []string{"../flows/*.yaml", "../testdata/conformance/*.yaml", "testdata/fingerprints/*.yaml"}

const fingerprintGoldenComment = `The fingerprint (flow/compile.go) of every node of every flow in flows/,
testdata/conformance/ and flow/testdata/fingerprints/, one section per
file and one line per node: its position (N for the Nth node, N.M for the
Mth question of the all group at N, as Compile walks them), id (- for
none), kind and fingerprint in hex.

States in flight carry these numbers, so a change to the fingerprint
function fails every section, and breaks every run in flight. A changed
line in one section after an edit of that flow is expected: runs in flight
at that node will not resume. Rewrite with
go test ./flow -run TestFingerprintGolden -update
`

// nodeFingerprints returns one line per node of f, the questions of an all
// group after it, as Compile reaches them.
func nodeFingerprints(f *dsl.File) string {
	var b strings.Builder
	var walk func(pos string, n *dsl.Node)
	walk = func(pos string, n *dsl.Node) {
		id := n.ID
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(&b, "%-5s %-24s %-7s %016x\n", pos, id, n.Kind, n.Fingerprint())
		if n.Kind == dsl.KindAll {
			for i, q := range n.All.Questions {
				walk(fmt.Sprintf("%s.%d", pos, i+1), q)
			}
		}
	}
	for i, n := range f.Nodes {
		walk(fmt.Sprint(i+1), n)
	}
	return b.String()
}

// shippedFingerprints returns the golden's sections as they are now, by
// the file's path from the repository root.
func shippedFingerprints(t *testing.T) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, pattern := range fingerprintFlows {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.yaml") { // flowserve test scripts
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, diags := dsl.Parse(file, src)
			if diags.HasErrors() {
				t.Errorf("%s: %v", file, diags.Err())
				continue
			}
			name := filepath.ToSlash(file)
			if rest, ok := strings.CutPrefix(name, "../"); ok {
				name = rest
			} else {
				name = "flow/" + name
			}
			got[name] = nodeFingerprints(f)
		}
	}
	if len(got) < 30 {
		t.Fatalf("found only %d flows", len(got))
	}
	return got
}

func TestFingerprintGolden(t *testing.T) {
	got := shippedFingerprints(t)
	if *update {
		a := &txtar.Archive{Comment: []byte(fingerprintGoldenComment)}
		for _, name := range slices.Sorted(maps.Keys(got)) {
			a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(got[name])})
		}
		if err := os.WriteFile(fingerprintGolden, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	a, err := txtar.ParseFile(fingerprintGolden)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Comment) != fingerprintGoldenComment {
		t.Errorf("%s: the comment differs from fingerprintGoldenComment (run with -update)", fingerprintGolden)
	}
	want := map[string]string{}
	for _, f := range a.Files {
		want[f.Name] = string(f.Data)
	}
	changed := 0
	for _, name := range slices.Sorted(maps.Keys(got)) {
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("%s is not in %s (a new flow: run with -update)", name, fingerprintGolden)
		case got[name] != w:
			changed++
			t.Errorf("%s: fingerprints differ\n%s", name, lineDiff(got[name], w))
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s is in %s but is no longer a flow (run with -update)", name, fingerprintGolden)
		}
	}
	if changed > 0 {
		t.Logf("%d of %d flows have other fingerprints. If flow/compile.go's fingerprint changed, every run in flight "+
			"breaks on the new release; if only the flows listed were edited, runs in flight at the nodes listed will not resume. "+
			"Rewrite with: go test ./flow -run TestFingerprintGolden -update", changed, len(got))
	}
}

// lineDiff lists the lines only in got (+) and only in want (-).
func lineDiff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	var b strings.Builder
	for _, l := range w {
		if l != "" && !slices.Contains(g, l) {
			b.WriteString("- " + l)
		}
	}
	for _, l := range g {
		if l != "" && !slices.Contains(w, l) {
			b.WriteString("+ " + l)
		}
	}
	return b.String()
}

// fingerprintBase is the flow the cases of TestFingerprintEdits edit.
const fingerprintBase = `# A comment.
name: edits
description: The flow the edit cases change.
input:
  type: object
  properties:
    path: {type: string}
nodes:
  - id: size
    step: fs.stat
    with: {path: "{{ input.path }}", follow: true}
    timeout: 5s

  - id: confirm
    ask: "Delete {{ input.path }}?"
    form:
      proceed: {type: boolean, title: Delete it, default: false}
      reason: {type: string, title: Why, minLength: 2}
    required: [proceed]
    validate:
      - rule: input.path != "/"
        message: not the root
    retries: 2
    unavailable: cannot_ask

  - id: signin
    ask: Sign in.
    url: "https://example.com/login?state={{ run.id }}"

  - id: together
    all:
      - id: name
        ask: Your name?
        form:
          name: {type: string}
      - id: where
        roots: {}

  - id: draft
    sample:
      system: Be brief.
      messages:
        - {role: user, text: "Summarize {{ input.path }}"}
      max_tokens: 100
      temperature: 0.5

  - id: done
    return: "Deleted {{ input.path }}"

  - id: cannot_ask
    fail: Cannot ask.
`

// TestFingerprintEdits shows what fingerprint promises: a node's
// fingerprint follows its kind, its id and what it asks or runs (the
// message, form and URL of an ask, the action and inputs of a step, the
// request of a sample), as written in templates' source text; it does not
// follow layout, comments, key order, the node's place or successors, how
// answers are checked, or anything of pure nodes but their kind and id.
func TestFingerprintEdits(t *testing.T) {
	type edit struct{ old, new string }
	for _, tc := range []struct {
		name    string
		node    string // the id of the node compared; "old→new" when the edits rename it
		edits   []edit
		changes bool
	}{
		// Layout and the rest of the flow.
		{"a comment added", "confirm", []edit{{"  - id: confirm\n", "  # Ask first.\n  - id: confirm # the question\n"}}, false},
		{"the flow's description", "confirm", []edit{{"The flow the edit cases change.", "Another description."}}, false},
		{"the message quoted otherwise", "signin", []edit{{"ask: Sign in.", `ask: "Sign in."`}}, false},
		{"form properties reordered", "confirm", []edit{
			{"      proceed: {type: boolean, title: Delete it, default: false}\n", ""},
			{"      reason: {type: string, title: Why, minLength: 2}\n", "      reason: {type: string, title: Why, minLength: 2}\n      proceed: {type: boolean, title: Delete it, default: false}\n"},
		}, false},
		{"a property's keys reordered", "confirm", []edit{{"{type: boolean, title: Delete it, default: false}", "{default: false, title: Delete it, type: boolean}"}}, false},
		{"a property in block style", "confirm", []edit{{"proceed: {type: boolean, title: Delete it, default: false}",
			"proceed:\n        type: boolean\n        title: Delete it\n        default: false"}}, false},
		{"with keys reordered", "size", []edit{{`{path: "{{ input.path }}", follow: true}`, `{follow: true, path: "{{ input.path }}"}`}}, false},
		{"a node inserted before it", "confirm", []edit{{"  - id: confirm\n", "  - set: {x: 1}\n\n  - id: confirm\n"}}, false},
		{"another node's message", "confirm", []edit{{"ask: Sign in.", "ask: Sign in again."}}, false},

		// What the node does besides asking or running.
		{"next added", "confirm", []edit{{"    retries: 2\n", "    retries: 2\n    next: done\n"}}, false},
		{"validate rules", "confirm", []edit{{`rule: input.path != "/"`, `rule: input.path != "/etc"`}}, false},
		{"retries", "confirm", []edit{{"retries: 2", "retries: 5"}}, false},
		{"unavailable", "confirm", []edit{{"    unavailable: cannot_ask\n", ""}}, false},
		{"a step's timeout", "size", []edit{{"timeout: 5s", "timeout: 9s"}}, false},
		{"a group's questions", "together", []edit{{"      - id: where\n", "      - id: age\n        ask: Age?\n        form:\n          age: {type: integer}\n      - id: where\n"}}, false},
		{"a question added beside it", "name", []edit{{"      - id: where\n", "      - id: age\n        ask: Age?\n        form:\n          age: {type: integer}\n      - id: where\n"}}, false},
		{"a return's text", "done", []edit{{`return: "Deleted {{ input.path }}"`, `return: "Gone: {{ input.path }}"`}}, false},
		{"a fail's message", "cannot_ask", []edit{{"fail: Cannot ask.", "fail: Cannot ask you."}}, false},

		// What the node asks or runs.
		{"the id", "confirm→confirm2", []edit{{"id: confirm", "id: confirm2"}}, true},
		{"the kind", "where", []edit{{"      - id: where\n        roots: {}\n", "      - id: where\n        ask: Where?\n        form:\n          where: {type: string}\n"}}, true},
		{"the message", "confirm", []edit{{`ask: "Delete {{ input.path }}?"`, `ask: "Really delete {{ input.path }}?"`}}, true},
		{"a template's spacing", "confirm", []edit{{`ask: "Delete {{ input.path }}?"`, `ask: "Delete {{input.path}}?"`}}, true},
		{"a property's title", "confirm", []edit{{"title: Why", "title: Reason"}}, true},
		{"a property's default", "confirm", []edit{{"default: false", "default: true"}}, true},
		{"a property's constraint", "confirm", []edit{{"minLength: 2", "minLength: 3"}}, true},
		{"a property added", "confirm", []edit{{"    required: [proceed]\n", "      note: {type: string}\n    required: [proceed]\n"}}, true},
		{"required", "confirm", []edit{{"required: [proceed]", "required: [proceed, reason]"}}, true},
		{"the URL", "signin", []edit{{"https://example.com/login", "https://example.org/login"}}, true},
		{"a URL ask's message", "signin", []edit{{"ask: Sign in.", "ask: Sign in, please."}}, true},
		{"the action", "size", []edit{{"step: fs.stat", "step: fs.lstat"}}, true},
		{"a with value", "size", []edit{{"follow: true", "follow: false"}}, true},
		{"a with value's type", "size", []edit{{"follow: true", `follow: "true"`}}, true},
		{"a with key added", "size", []edit{{"follow: true}", "follow: true, depth: 1}"}}, true},
		{"a sample's system prompt", "draft", []edit{{"system: Be brief.", "system: Be very brief."}}, true},
		{"a sample's message", "draft", []edit{{`text: "Summarize {{ input.path }}"`, `text: "Sum up {{ input.path }}"`}}, true},
		{"a sample's max_tokens", "draft", []edit{{"max_tokens: 100", "max_tokens: 200"}}, true},
		{"a sample's temperature", "draft", []edit{{"temperature: 0.5", "temperature: 0.7"}}, true},
		{"a sample's stop", "draft", []edit{{"temperature: 0.5\n", "temperature: 0.5\n      stop: [END]\n"}}, true},
		{"a sample's model", "draft", []edit{{"temperature: 0.5\n", "temperature: 0.5\n      model: {hints: [claude]}\n"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fingerprintBase
			for _, e := range tc.edits {
				if n := strings.Count(src, e.old); n != 1 {
					t.Fatalf("%q occurs %d times in the base flow, want once", e.old, n)
				}
				src = strings.Replace(src, e.old, e.new, 1)
			}
			old, renamed, ok := strings.Cut(tc.node, "→")
			if !ok {
				renamed = old
			}
			before := parsedNode(t, fingerprintBase, old).Fingerprint()
			after := parsedNode(t, src, renamed).Fingerprint()
			if changed := before != after; changed != tc.changes {
				t.Errorf("fingerprint of %s %016x → %016x: changed %v, want %v", tc.node, before, after, changed, tc.changes)
			}
		})
	}
}

// parsedNode parses src and returns its node (or all-group question) id.
func parsedNode(t *testing.T, src, id string) *dsl.Node {
	t.Helper()
	f, diags := dsl.Parse("edits.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("%v\n%s", diags.Err(), src)
	}
	var found *dsl.Node
	var walk func(ns []*dsl.Node)
	walk = func(ns []*dsl.Node) {
		for _, n := range ns {
			if n.ID == id {
				found = n
			}
			if n.Kind == dsl.KindAll {
				walk(n.All.Questions)
			}
		}
	}
	walk(f.Nodes)
	if found == nil {
		t.Fatalf("no node %s", id)
	}
	return found
}
