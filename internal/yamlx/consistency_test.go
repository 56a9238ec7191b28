package yamlx_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flowtest"
	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/resources"
)

// The consistency test places a fragment of YAML, a mapping, at line 4
// column 5 of a flow file (as its input schema), a test file (as a case's
// args), a resource file (as a resource's keys) and a plain file read by
// yamlx itself, and requires the same value and the same problems, at the
// same positions, from each.
const (
	flowHead     = "nodes: [{fail: x}]\n#\ninput:\n"
	testHead     = "tests:\n- name: c\n  args:\n"
	resourceHead = "resources:\n  - uri: test://r\n    text: t\n"
	plainHead    = "#\n#\n#\n"
	fragLine     = 4
)

// fragments are the tricky YAML. resource marks those whose keys are all
// string fields of a resource (name, title, description), so that a
// resource file reads every part of them.
var fragments = []struct {
	name     string
	src      string
	problems int // how many problems yamlx reports
	resource bool
}{
	{"merge keys", "b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nl: {<<: [{a: 1}, {a: 2, b: 2}], c: 3}\nq: {\"<<\": 1}", 0, false},
	{"aliases", "a: &a [1, {k: v}]\nb: *a\nc: &s str\nd: *s", 0, false},
	{"integer forms", "dec: 12\nhex: 0x1F\noct: 0o17\nold: 017\nsep: 1_000\nneg: -0x10\nplus: +5\nbig: 99999999999999999999", 0, false},
	{"floats", "one: 1.0\nexp: 1e3\nhalf: .5\ntagged: !!float 2\nzero: -0.0", 0, false},
	{"tags", "ts: 2026-11-30\nbin: !!binary aGk=\nstr: !!str 3\nb: TRUE\nn: ~", 0, false},
	{"key, tag and number problems", "a: 1\na: 2\n1: one\nm: {<<: [1]}\nn: {<<: x}\nt: !custom x\ni: !!int 99999999999999999999\nu: 18446744073709551615\nf: .inf", 8, false},
	{"an alias inside its anchor", "r: &r [1, {k: *r}]", 1, false},
	{"aliases that expand too much", bomb(5), 1, false},
	{"non-ASCII keys", "é: 1\n\"日本\": x\n日本: y\nm: {ü: 1, ü: 2}", 2, false},
	{"aliased fields", "name: &n Ünïcode\ntitle: *n\ndescription: &d D", 0, true},
	{"merged fields", "<<: [{name: A, title: TA}, {name: B, description: DB}]\ntitle: T", 0, true},
	{"a repeated field", "name: ü\ntitle: é\nname: x\ndescription: d", 1, true},
	{"a merge of a scalar", "name: n\ndescription: d\n<<: 3", 1, true},
	{"an unknown anchor", "name: n\ndescription: *nope", 1, true},
	{"a syntax error", "name: n\ndescription: [d\ntitle: t", 1, true},
}

// bomb returns nested aliases that expand to 10^levels values.
func bomb(levels int) string {
	lines := []string{"l0: &l0 [x, x, x, x, x, x, x, x, x, x]"}
	for i := 1; i <= levels; i++ {
		lines = append(lines, fmt.Sprintf("l%d: &l%d [%s]", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", ")))
	}
	return strings.Join(lines, "\n")
}

// indent indents every line of src by four spaces.
func indent(src string) string {
	return "    " + strings.ReplaceAll(src, "\n", "\n    ") + "\n"
}

// readerCodes are the codes of the problems yamlx reports.
var readerCodes = []string{yamlx.CodeBadYAML, yamlx.CodeBadAlias, yamlx.CodeBadType, yamlx.CodeBadValue, yamlx.CodeDuplicateKey}

// problem is a problem in the form the test compares.
type problem struct {
	line, col     int
	code, message string
}

// sorted returns ps in position order, without repeats, as "line:col
// code: message".
func sorted(ps []problem) []string {
	slices.SortFunc(ps, func(a, b problem) int {
		if a.line != b.line {
			return a.line - b.line
		}
		if a.col != b.col {
			return a.col - b.col
		}
		return strings.Compare(a.code+a.message, b.code+b.message)
	})
	var out []string
	for _, p := range slices.Compact(ps) {
		out = append(out, fmt.Sprintf("%d:%d %s: %s", p.line, p.col, p.code, p.message))
	}
	return out
}

// fragmentDiags returns the diagnostics inside the fragment with the
// reader's codes.
func fragmentDiags(ds dsl.Diagnostics) []string {
	var out []problem
	for _, d := range ds {
		if d.Pos.Line >= fragLine && slices.Contains(readerCodes, d.Code) {
			out = append(out, problem{d.Pos.Line, d.Pos.Col, d.Code, d.Message})
		}
	}
	return sorted(out)
}

// reference reads a fragment with yamlx alone.
func reference(t *testing.T, frag string) (any, []string) {
	t.Helper()
	var problems []problem
	r := yamlx.Reader{Report: func(p yamlx.Problem) {
		problems = append(problems, problem{p.Pos.Line, p.Pos.Col, p.Code, p.Message})
	}}
	root, _ := r.Read([]byte(plainHead+indent(frag)), "a file")
	var v any
	if root != nil {
		v, _ = r.Value(root)
	}
	return v, sorted(problems)
}

// TestConsistency reads each fragment as dsl, flowtest and resources do
// and as yamlx does alone.
func TestConsistency(t *testing.T) {
	for _, fr := range fragments {
		t.Run(fr.name, func(t *testing.T) {
			want, problems := reference(t, fr.src)
			if len(problems) != fr.problems {
				t.Fatalf("yamlx reports %d problems, want %d:\n%s", len(problems), fr.problems, strings.Join(problems, "\n"))
			}
			same := func(who string, got []string) {
				t.Helper()
				if !slices.Equal(got, problems) {
					t.Errorf("%s reports\n%s\nyamlx\n%s", who, strings.Join(got, "\n"), strings.Join(problems, "\n"))
				}
			}

			f, ds := dsl.Parse("f.yaml", []byte(flowHead+indent(fr.src)))
			same("dsl", fragmentDiags(ds))
			if len(problems) == 0 && (f == nil || f.Input == nil || !reflect.DeepEqual(f.Input.Value, want)) {
				t.Errorf("dsl reads %#v, yamlx %#v", f.Input, want)
			}

			tf, ds := flowtest.Parse("f_test.yaml", []byte(testHead+indent(fr.src)))
			same("flowtest", fragmentDiags(ds))
			if len(problems) == 0 {
				wantJSON, _ := json.Marshal(want)
				if tf == nil || len(tf.Cases) != 1 || string(tf.Cases[0].Args) != string(wantJSON) {
					t.Errorf("flowtest reads %+v, yamlx %s", tf, wantJSON)
				}
			}

			if fr.resource {
				sameResource(t, fr.src, want, problems)
			}
		})
	}
}

// sameResource reads a fragment as a resource's keys.
func sameResource(t *testing.T, frag string, want any, problems []string) {
	t.Helper()
	rs, ds := resources.Parse("resources.yaml", []byte(resourceHead+indent(frag)))
	if got := fragmentDiags(ds); !slices.Equal(got, problems) {
		t.Errorf("resources reports\n%s\nyamlx\n%s", strings.Join(got, "\n"), strings.Join(problems, "\n"))
	}
	if len(problems) > 0 {
		return
	}
	m, _ := want.(map[string]any)
	if len(rs) != 1 {
		t.Fatalf("resources reads %d resources: %v", len(rs), ds)
	}
	got := map[string]any{"name": rs[0].Name, "title": rs[0].Title, "description": rs[0].Description}
	for k := range got {
		if _, ok := m[k]; !ok && got[k] == "" {
			delete(got, k)
		}
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("resources reads %v, yamlx %v", got, m)
	}
}
