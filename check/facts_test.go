package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"testing"

	"github.com/flowserve/flowserve/lang"
)

// restriction is one comparison a domain test applies.
type restriction struct {
	op    string
	vals  []any
	truth bool
}

func TestDomain(t *testing.T) {
	r := func(op string, truth bool, vals ...any) restriction { return restriction{op, vals, truth} }
	tests := []struct {
		name  string
		steps []restriction
		empty bool
	}{
		{"disjoint intervals", []restriction{r(">", true, 1000.0), r("<=", true, 500.0)}, true},
		{"nested intervals", []restriction{r(">", true, 1000.0), r(">", true, 500.0)}, false},
		{"the negation of a bound", []restriction{r(">", true, 1000.0), r(">", false, 1000.0)}, true},
		{"a false bound is the other side", []restriction{r(">", false, 1000.0), r("<", true, 2000.0)}, false},
		{"a point", []restriction{r(">=", true, 5.0), r("<=", true, 5.0)}, false},
		{"a point excluded", []restriction{r(">=", true, 5.0), r("<=", true, 5.0), r("!=", true, 5.0)}, true},
		{"open at a point", []restriction{r(">", true, 5.0), r("<=", true, 5.0)}, true},
		{"a value outside the list", []restriction{r("in", true, "eu", "uk"), r("==", true, "ch")}, true},
		{"a value of the list", []restriction{r("in", true, "eu", "uk"), r("!=", true, "eu")}, false},
		{"every value of the list excluded", []restriction{r("in", true, "eu", "uk"), r("!=", true, "eu"), r("==", false, "uk")}, true},
		{"not in, then one of them", []restriction{r("in", false, "eu", "uk"), r("==", true, "uk")}, true},
		{"true and false", []restriction{r("==", true, true), r("==", true, false)}, true},
		{"not true is not false", []restriction{r("!=", true, true), r("==", true, false)}, false},
		{"null and not null", []restriction{r("==", true, nil), r("!=", true, nil)}, true},
		{"an interval keeps numbers only", []restriction{r("in", true, 1.0, "a"), r(">", true, 5.0)}, true},
		{"a number of the list in the interval", []restriction{r("in", true, 1.0, "a"), r(">", true, 0.0)}, false},
		{"a number and a string", []restriction{r("==", true, 1.0), r("==", true, "1")}, true},
		{"an empty list", []restriction{r("in", true)}, true},
		{"many exclusions leave other values", []restriction{r("!=", true, "a"), r("!=", true, "b")}, false},
	}
	for _, tt := range tests {
		d := anyValue
		for _, s := range tt.steps {
			var vals []constVal
			for _, v := range s.vals {
				k, ok := constOf(v)
				if !ok {
					t.Fatalf("%s: constOf(%v) failed", tt.name, v)
				}
				vals = append(vals, k)
			}
			var ok bool
			if d, ok = d.restrict(s.op, vals, s.truth); !ok {
				t.Fatalf("%s: restrict %s %v refused", tt.name, s.op, s.vals)
			}
		}
		if got := d.empty(); got != tt.empty {
			t.Errorf("%s: empty = %v, want %v (domain %s)", tt.name, got, tt.empty, d)
		}
	}
	if _, ok := anyValue.restrict("<", []constVal{{kind: 's', s: "m"}}, true); ok {
		t.Error("an order of strings was taken as an interval")
	}
}

// assumption is a condition a reasoner test assumes, with its truth.
type assumption struct {
	src   string
	truth bool
}

// testFeasibility returns a feasibility that converts conditions of
// language lang, with confirm and issues ask ids and s a step id.
func testFeasibility(language string) *feasibility {
	return &feasibility{
		rf:    &readFacts{lang: language},
		kinds: map[string]dsl.Kind{"confirm": dsl.KindAsk, "issues": dsl.KindAsk, "s": dsl.KindStep},
		conds: map[condOf]*cond{},
	}
}

// assumeAll assumes each of as in turn and returns how many held before
// the first contradiction (len(as) when none).
func assumeAll(t *testing.T, fs *feasibility, r *reasoner, as []assumption) int {
	t.Helper()
	var f facts
	for i, a := range as {
		lc, ok := lang.CondOf(fs.rf.lang, a.src)
		if !ok {
			t.Fatalf("%q does not parse", a.src)
		}
		if f, ok = r.assume(f, fs.toCond(lc, a.truth)); !ok {
			return i
		}
	}
	return len(as)
}

func TestReasoner(t *testing.T) {
	T := func(src string) assumption { return assumption{src, true} }
	F := func(src string) assumption { return assumption{src, false} }
	tests := []struct {
		name, lang, unbound string
		as                  []assumption
		holds               int // how many hold before the first contradiction
	}{
		{"the same condition both ways", "cel", "", []assumption{T("input.amount > 1000"), F("input.amount>1000")}, 1},
		{"spelled another way", "cel", "", []assumption{T("input['amount'] > 1000"), F("(input.amount) > 1000")}, 1},
		{"a case and a later else", "cel", "", []assumption{F("input.amount <= 1000"), F("input.amount > 1000")}, 1},
		{"disjoint intervals", "cel", "", []assumption{T("input.amount > 1000"), T("input.amount <= 500")}, 1},
		{"a weaker test", "cel", "", []assumption{F("input.amount > 1000"), T("input.amount > 500")}, 2},
		{"&& false, then both parts", "cel", "", []assumption{F("a.x && b.y"), T("b.y && a.x")}, 1},
		{"&& false, then one part", "cel", "", []assumption{F("a.x && b.y"), T("b.y")}, 2},
		{"|| true, then neither part", "cel", "", []assumption{T("a.x || b.y"), T("!a.x"), T("!b.y")}, 2},
		{"|| true, then its negation", "cel", "", []assumption{T("a.x || b.y"), T("!(a.x || b.y)")}, 1},
		{"|| true, then ! of each", "cel", "", []assumption{T("a.x || input.n > 3"), T("!a.x && input.n <= 3")}, 1},
		{"has() both ways", "cel", "", []assumption{T("has(input.coupon)"), T("!has(input.coupon)")}, 1},
		{"in, then a value outside", "cel", "", []assumption{T("input.r in ['eu', 'uk']"), T("input.r == 'ch'")}, 1},
		{"not in, then a value inside", "cel", "", []assumption{F("input.r in ['eu', 'uk']"), T("input.r == 'eu'")}, 1},
		{"in, then each excluded", "cel", "", []assumption{T("input.r in ['eu', 'uk']"), T("input.r != 'eu'"), T("input.r != 'uk'")}, 2},
		{"not accepted, then action accept", "cel", "", []assumption{F("confirm.accepted"), T("confirm.action == 'accept'")}, 1},
		{"accepted, then action decline", "cel", "", []assumption{T("confirm.accepted"), T("confirm.action == 'decline'")}, 1},
		{"accepted == false, then !accepted", "cel", "", []assumption{T("confirm.accepted == false"), T("!confirm.accepted")}, 2},
		{"a step's accepted is a field", "cel", "", []assumption{F("s.accepted"), T("s.action == 'accept'")}, 2},
		{"a call taken whole", "cel", "", []assumption{T("size(input.items) > 3"), T("size( input.items ) <= 3")}, 1},
		{"a comprehension taken whole", "cel", "", []assumption{T("input.items.exists(i, i > 3)"), T("!input.items.exists(i, i > 3)")}, 1},
		{"two operands compared", "cel", "", []assumption{T("input.a < input.b"), F("input.a < input.b")}, 1},
		{"an order of strings", "cel", "", []assumption{T("input.s < 'm'"), F("input.s < 'm'")}, 1},
		{"has() of the unbound name", "cel", "issues", []assumption{T("has(issues.action)")}, 0},
		{"!has() of the unbound name", "cel", "issues", []assumption{F("has(issues.content.text)")}, 1},
		{"has() of an ask is that it ran", "cel", "", []assumption{T("has(confirm.action)"), F("has(confirm.content)")}, 1},
		{"expr: the same condition", "expr", "", []assumption{T("input.amount > 1000"), T("not (input.amount > 1000)")}, 1},
		{"expr: not in", "expr", "", []assumption{T("input.r not in ['eu', 'uk']"), T("input.r == 'uk'")}, 1},
		{"expr: nil is not run", "expr", "", []assumption{T("confirm == nil"), T("confirm != nil")}, 1},
		{"expr: the unbound name is nil", "expr", "issues", []assumption{T("issues != nil")}, 0},
		{"expr: now() tells nothing", "expr", "", []assumption{T("now() > input.t"), F("now() > input.t")}, 2},
	}
	for _, tt := range tests {
		fs := testFeasibility(tt.lang)
		r := &reasoner{unbound: tt.unbound, nilUnbound: tt.lang == "expr", maxFacts: maxFacts}
		if got := assumeAll(t, fs, r, tt.as); got != tt.holds {
			t.Errorf("%s: %d assumptions hold, want %d", tt.name, got, tt.holds)
		}
	}
}

// TestReasonerCap checks that facts past maxFacts are not learnt (so
// they never prune), while those learnt before still do.
func TestReasonerCap(t *testing.T) {
	fs := testFeasibility("cel")
	r := &reasoner{maxFacts: maxFacts}
	var as []assumption
	for i := range maxFacts + 4 {
		as = append(as, assumption{fmt.Sprintf("input.a%d", i), true})
	}
	if got := assumeAll(t, fs, r, append(as, assumption{fmt.Sprintf("input.a%d", maxFacts+3), false})); got != len(as)+1 {
		t.Errorf("a fact past the cap pruned: %d hold", got)
	}
	if got := assumeAll(t, fs, r, append(as, assumption{"input.a0", false})); got != len(as) {
		t.Errorf("a fact within the cap did not prune: %d hold", got)
	}
}

// TestFactsKeep checks that keep drops facts by what they read and by
// their keys, clauses included.
func TestFactsKeep(t *testing.T) {
	fs := testFeasibility("cel")
	r := &reasoner{maxFacts: maxFacts}
	var f facts
	for _, src := range []string{"input.a > 1", "big", "s.ok || input.b", "has(input.c)"} {
		lc, _ := lang.CondOf("cel", src)
		var ok bool
		if f, ok = r.assume(f, fs.toCond(lc, true)); !ok {
			t.Fatalf("%q contradicts", src)
		}
	}
	if f.size() != 4 {
		t.Fatalf("%d facts, want 4", f.size())
	}
	all := func(string) bool { return true }
	if got := f.keep(func(v string) bool { return v != "s" }, all); got.size() != 3 || len(got.clauses) != 0 {
		t.Errorf("dropping what reads s left %d facts, %d clauses", got.size(), len(got.clauses))
	}
	if got := f.keep(all, func(k string) bool { return k != "=input.b" }); got.size() != 3 || len(got.clauses) != 0 {
		t.Errorf("dropping the key input.b left %d facts, %d clauses", got.size(), len(got.clauses))
	}
	if got := f.keep(func(v string) bool { return v != "big" }, all); got.size() != 3 || len(got.lits) != 1 {
		t.Errorf("dropping what reads big left %d facts", got.size())
	}
}
