package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/check/codes"
)

// unboundReads returns check's maybe-unbound diagnostics of src.
func unboundReads(t *testing.T, src string) []string {
	t.Helper()
	var out []string
	for _, d := range check(t, src) {
		if strings.Contains(d, " "+codes.MaybeUnbound+": ") {
			out = append(out, d)
		}
	}
	return out
}

// correlated is the correlated-branches shape: the first branch asks
// manager when first holds, the second reads it when second does; mid
// is inserted between them.
func correlated(language, first, second, mid string) string {
	return fmt.Sprintf(`description: Correlated branches.
expressions: %s
input:
  type: object
  properties:
    amount: {type: number}
    urgent: {type: boolean}
    region: {type: string}
nodes:
  - id: start
    set: {flag: "{{ input.urgent }}"}
  - branch:
      - if: %q
        then: manager
      - else: file
  - id: manager
    ask: "Who signs off?"
    form:
      email: {type: string}
  - id: file
    set: {filed: true}
%s  - branch:
      - if: %q
        then: big
      - else: small
  - id: big
    return: "{{ manager.action }}"
  - id: small
    return: small
`, language, first, mid, second)
}

func TestMaybeUnboundFeasible(t *testing.T) {
	tests := []struct {
		name, lang, first, second, mid string
		// path is the path the message must name; "" when the read is fine.
		path string
	}{
		{"the same condition", "cel", "input.amount > 1000", "input.amount>1000", "", ""},
		{"the same condition, expr", "expr", "input.amount > 1000", `input["amount"] > 1000`, "", ""},
		{"a narrower second test", "cel", "input.amount > 1000", "input.amount > 2000", "", ""},
		{"disjoint intervals", "cel", "input.amount > 500", "!(input.amount < 600)", "", ""},
		{"&& in the first", "cel", "input.amount > 1000 && input.urgent", "input.urgent && input.amount > 1000", "", ""},
		{"|| in the second", "cel", "input.urgent || input.amount > 1000", "input.amount > 1000 || input.urgent", "", ""},
		{"in, then ==", "cel", "input.region in ['eu', 'uk']", "input.region == 'uk'", "", ""},
		{"has()", "cel", "has(input.region)", "has(input.region) && input.urgent", "", ""},
		{"an unrelated step between", "cel", "input.urgent", "input.urgent", "  - id: s\n    step: text.shout\n    with: {text: hi, marks: 1}\n", ""},
		{"a weaker second test", "cel", "input.amount > 1000", "input.amount > 500", "", "start → #2 → file → #5 → big"},
		{"a weaker second test, expr", "expr", "input.amount > 1000", "input.amount > 500", "", "start → #2 → file → #5 → big"},
		{"another operand", "cel", "input.amount > 1000", "input.urgent", "", "start → #2 → file → #5 → big"},
		{"|| in the first", "cel", "input.urgent || input.amount > 1000", "input.amount > 1000", "", ""},
		{"&& in the first only", "cel", "input.urgent && input.amount > 1000", "input.amount > 1000", "", "start → #2 → file → #5 → big"},
		{"a set name nothing reassigns", "cel", "flag", "flag", "", ""},
		{"a value of the run", "cel", "client.form", "client.form", "", "start → #2 → file → #5 → big"},
		{"now() in expr", "expr", "now() > 5", "now() > 5", "", "start → #2 → file → #5 → big"},
		{"a set of a constant between", "cel", "flag", "flag", "  - set: {flag: false}\n", ""},
		{"a set reassigns the name tested", "cel", "flag", "flag", "  - set: {flag: \"{{ input.amount > 5 }}\"}\n", "start → #2 → file → #5 → #6 → big"},
	}
	for _, tt := range tests {
		src := correlated(tt.lang, tt.first, tt.second, tt.mid)
		got := unboundReads(t, src)
		switch {
		case tt.path == "" && len(got) > 0:
			t.Errorf("%s: reported %v", tt.name, got)
		case tt.path != "" && (len(got) != 1 || !strings.Contains(got[0], "the path "+tt.path+" does not run it")):
			t.Errorf("%s: got %v, want one naming %s", tt.name, got, tt.path)
		}
	}
}

// TestMaybeUnboundLaterCase checks reads in a branch's later cases: each
// is evaluated knowing every earlier case was false.
func TestMaybeUnboundLaterCase(t *testing.T) {
	tests := []struct {
		name, lang, cases string
		want              int
	}{
		{"after !has()", "cel", `- if: "!has(issues.action)"
        then: done
      - if: issues.accepted
        then: done`, 0},
		{"after the same test", "cel", `- if: input.quick
        then: done
      - if: issues.accepted
        then: done`, 0},
		{"after == nil", "expr", `- if: issues == nil
        then: done
      - if: issues.accepted
        then: done`, 0},
		{"after another test", "cel", `- if: input.other
        then: done
      - if: issues.accepted
        then: done`, 1},
		{"in the first case", "cel", `- if: issues.accepted
        then: done`, 1},
	}
	for _, tt := range tests {
		src := fmt.Sprintf(`description: Later cases.
expressions: %s
input:
  type: object
  properties:
    quick: {type: boolean}
    other: {type: boolean}
nodes:
  - branch:
      - if: input.quick
        then: triage
  - id: issues
    ask: "Any issues?"
    form:
      text: {type: string}
  - id: triage
    branch:
      %s
      - else: done
  - id: done
    return: done
`, tt.lang, tt.cases)
		if got := unboundReads(t, src); len(got) != tt.want {
			t.Errorf("%s: got %v, want %d", tt.name, got, tt.want)
		}
	}
}

// giveUp builds a flow whose one read is infeasible only through a
// decision the search must carry past pairs of branches on pairs
// independent inputs, each tested twice: 2^pairs paths to tell apart.
func giveUp(pairs int) string {
	var b strings.Builder
	b.WriteString("description: Many independent decisions.\nnodes:\n")
	b.WriteString("  - branch:\n      - if: input.big\n        then: manager\n      - else: file\n")
	b.WriteString("  - id: manager\n    ask: \"Who signs off?\"\n    form:\n      email: {type: string}\n")
	b.WriteString("  - id: file\n    set: {filed: true}\n")
	for round := range 2 {
		for i := range pairs {
			fmt.Fprintf(&b, "  - branch:\n      - if: input.a%d\n        then: n%d_%d\n", i, round, i)
			fmt.Fprintf(&b, "  - id: n%d_%d\n    set: {x%d_%d: 1}\n", round, i, round, i)
		}
	}
	b.WriteString("  - branch:\n      - if: input.big\n        then: big\n      - else: small\n")
	b.WriteString("  - id: big\n    return: \"{{ manager.action }}\"\n  - id: small\n    return: small\n")
	return b.String()
}

// TestMaybeUnboundGivesUp checks that a search past its bound reports
// the read (no silent miss), and that a smaller one decides it.
func TestMaybeUnboundGivesUp(t *testing.T) {
	if got := unboundReads(t, giveUp(3)); len(got) != 0 {
		t.Errorf("3 pairs: reported %v", got)
	}
	got := unboundReads(t, giveUp(14))
	if len(got) != 1 || !strings.Contains(got[0], "manager may not have run on every path to here: the path #1 → file →") {
		t.Errorf("14 pairs: got %v, want the read reported", got)
	}
}

// FuzzMaybeUnbound checks that the feasibility search never panics and
// that each maybe-unbound message still says why, on flows derived from
// correlated branches in both languages.
func FuzzMaybeUnbound(f *testing.F) {
	for _, l := range []string{"cel", "expr"} {
		f.Add(correlated(l, "input.amount > 1000 && input.urgent", "!(input.amount <= 1000) || input.region in ['eu']", ""))
		f.Add(correlated(l, "has(input.region)", "flag", "  - set: {flag: 1}\n"))
	}
	f.Add(giveUp(2))
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, src string) {
		file, _ := dsl.Parse("flow.yaml", []byte(src))
		for _, d := range File(file, reg) {
			if d.Code == codes.MaybeUnbound && !strings.Contains(d.Message, "may not have run on every path to here: ") {
				t.Errorf("message without a path: %v", d)
			}
		}
	})
}

// TestMaybeUnboundGuardedInExpression checks reads that ? :, && and ||
// guard inside the expression: a guard the path's decisions contradict
// drops the read, and a guard on a comprehension's variable counts for
// nothing.
func TestMaybeUnboundGuardedInExpression(t *testing.T) {
	tests := []struct {
		lang, read string
		want       int
	}{
		{"cel", "input.big ? manager.action : 'none'", 0},
		{"cel", "input.big && manager.accepted", 0},
		{"cel", "!input.big || manager.accepted", 0},
		{"cel", "input.big ? (input.other ? manager.action : 'a') : 'b'", 0},
		{"cel", "[1].exists(i, input.big && manager.accepted)", 0},
		{"cel", "input.big ? 'x' : manager.action", 1},
		{"cel", "input.other ? manager.action : 'none'", 1},
		{"cel", "input.big || manager.accepted", 1},
		{"cel", "[true].exists(b, b && manager.accepted)", 1},
		{"cel", "(input.big ? manager.action : 'a') + manager.action", 1},
		{"expr", "input.big ? manager.action : 'none'", 0},
		{"expr", "input.big and manager.accepted", 0},
		{"expr", "not input.big or manager.accepted", 0},
		{"expr", "input.big or manager.accepted", 1},
		{"expr", "let b = input.other; b ? manager.action : 'none'", 1},
	}
	for _, tt := range tests {
		src := fmt.Sprintf(`description: Guards inside an expression.
expressions: %s
input:
  type: object
  properties:
    big: {type: boolean}
    other: {type: boolean}
nodes:
  - branch:
      - if: input.big
        then: manager
      - else: done
  - id: manager
    ask: "Who signs off?"
    form:
      email: {type: string}
  - id: done
    return: %q
`, tt.lang, "{{ "+tt.read+" }}")
		if got := unboundReads(t, src); len(got) != tt.want {
			t.Errorf("%s %s: got %v, want %d", tt.lang, tt.read, got, tt.want)
		}
	}
}

// TestMaybeUnboundGuardOnNewValue checks that a guard reading what the
// node itself binds is not decided with the facts of the old value: a
// set's later binding sees the earlier one's new value.
func TestMaybeUnboundGuardOnNewValue(t *testing.T) {
	src := `description: A guard on a name the same set binds anew.
input:
  type: object
  properties:
    big: {type: boolean}
nodes:
  - set: {flag: false}
  - branch:
      - if: flag
        then: manager
      - else: tail
  - id: manager
    ask: "Who signs off?"
    form:
      email: {type: string}
  - id: tail
    set:
      flag: "{{ input.big }}"
      who: "{{ flag ? manager.action : 'none' }}"
  - return: "{{ who }}"
`
	got := unboundReads(t, src)
	if len(got) != 1 || !strings.Contains(got[0], "the path #1 → #2 → tail does not run it") {
		t.Errorf("got %v, want the read in who reported", got)
	}
}
