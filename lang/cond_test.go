package lang

import (
	"fmt"
	"strings"
	"testing"
)

// condString spells c for tests: and(...), or(...), not(...), key op
// values, has(key), atom(key), with reads in braces.
func condString(c Cond) string {
	var kids []string
	for _, a := range c.Args {
		kids = append(kids, condString(a))
	}
	reads := "{" + strings.Join(c.Reads, ",") + "}"
	if c.Volatile {
		reads += "!"
	}
	switch c.Kind {
	case CondAnd:
		return "and(" + strings.Join(kids, ", ") + ")"
	case CondOr:
		return "or(" + strings.Join(kids, ", ") + ")"
	case CondNot:
		return "not(" + strings.Join(kids, ", ") + ")"
	case CondCompare:
		var vals []string
		for _, v := range c.Values {
			vals = append(vals, reflectString(v))
		}
		return c.Key + " " + c.Op + " " + strings.Join(vals, "|") + reads
	case CondHas:
		return "has(" + c.Key + ")" + reads
	case CondAtom:
		return "atom(" + c.Key + ")" + reads
	}
	return "?"
}

func reflectString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "'" + v + "'"
	}
	return fmt.Sprint(v)
}

func TestCondOf(t *testing.T) {
	tests := []struct {
		lang, src, want string
	}{
		{"cel", "input.amount > 1000", "input.amount > 1000{input}"},
		{"cel", "1000 < input.amount", "input.amount > 1000{input}"},
		{"cel", "input['amount'] >= -5", "input.amount >= -5{input}"},
		{"cel", "input['first-name'] == 'x'", `input["first-name"] == 'x'{input}`},
		{"cel", "input.urgent", "input.urgent == true{input}"},
		{"cel", "!input.urgent", "not(input.urgent == true{input})"},
		{"cel", "a.x && (b.y || c.z) && d.w", "and(a.x == true{a}, or(b.y == true{b}, c.z == true{c}), d.w == true{d})"},
		{"cel", "input.plan in ['a', 'b']", "input.plan in 'a'|'b'{input}"},
		{"cel", "input.plan in input.plans", "atom(input.plan in input.plans){input}"},
		{"cel", "has(issues.action)", "has(issues.action){issues}"},
		{"cel", "!has(input.coupon)", "not(has(input.coupon){input})"},
		{"cel", "size(input.items) > 3", "size(input.items) > 3{input}"},
		{"cel", "input.items.exists(i, i > 3)", "atom(input.items.exists(i, i > 3)){input}"},
		{"cel", "x == null", "x == null{x}"},
		{"cel", "a.b == c.d", "atom(a.b == c.d){a,c}"},
		{"cel", "2.5 <= input.rate", "input.rate >= 2.5{input}"},
		{"expr", "input.amount > 1000", "input.amount > 1000{input}"},
		{"expr", `input["amount"] <= 500`, "input.amount <= 500{input}"},
		{"expr", "not input.urgent", "not(input.urgent == true{input})"},
		{"expr", "a.x and (b.y or !c.z)", "and(a.x == true{a}, or(b.y == true{b}, not(c.z == true{c})))"},
		{"expr", "input.plan not in ['a', 'b']", "not(input.plan in 'a'|'b'{input})"},
		{"expr", "confirm != nil", "confirm != null{confirm}"},
		{"expr", "-3 < input.n", "input.n > -3{input}"},
		{"expr", "now() > input.when", "atom(now() > input.when){input}!"},
		{"expr", "len(input.items) > 3", "len(input.items) > 3{input}"},
		{"expr", "a?.b == 1", "a?.b == 1{a}"},
	}
	for _, tt := range tests {
		c, ok := CondOf(tt.lang, tt.src)
		if !ok {
			t.Errorf("%s %q: does not parse", tt.lang, tt.src)
			continue
		}
		if got := condString(c); got != tt.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tt.lang, tt.src, got, tt.want)
		}
	}
	for _, bad := range []struct{ lang, src string }{{"cel", "a &&"}, {"expr", "a and"}, {"lua", "a"}} {
		if _, ok := CondOf(bad.lang, bad.src); ok {
			t.Errorf("%s %q: parsed", bad.lang, bad.src)
		}
	}
}

// TestCondOfSameKey checks that spellings of one test share their key.
func TestCondOfSameKey(t *testing.T) {
	pairs := []struct{ lang, a, b string }{
		{"cel", "input.amount>1000", "( input.amount )  >  1000"},
		{"cel", "input['amount'] > 1000", "input.amount > 1000"},
		{"cel", "size(input.items)>3", "size( input.items ) > 3"},
		{"expr", "input.amount>1000", "(input.amount) > 1000"},
		{"expr", "len(input.items)>3", "len( input.items ) > 3"},
	}
	for _, p := range pairs {
		a, _ := CondOf(p.lang, p.a)
		b, _ := CondOf(p.lang, p.b)
		if a.Key == "" || a.Key != b.Key {
			t.Errorf("%s: %q and %q: keys %q and %q", p.lang, p.a, p.b, a.Key, b.Key)
		}
	}
}

// FuzzCondOf checks that CondOf never panics, and that a Cond's parts are
// well formed: a Not has one operand, an And or Or two or more, a Has a
// path, a comparison with == or != one value.
func FuzzCondOf(f *testing.F) {
	for _, s := range []string{"input.amount > 1000", "!has(x.y) || a.b in [1, 'a', null]", "a.x and not (b < -2.5)",
		"input['a-b'] == 'x'", "now() > x", "x?.y ?? 1", "[1,2].exists(i, i > a)", "1 == 2"} {
		f.Add("cel", s)
		f.Add("expr", s)
	}
	var wellFormed func(t *testing.T, c Cond)
	wellFormed = func(t *testing.T, c Cond) {
		switch c.Kind {
		case CondNot:
			if len(c.Args) != 1 {
				t.Fatalf("not with %d operands", len(c.Args))
			}
		case CondAnd, CondOr:
			if len(c.Args) < 2 {
				t.Fatalf("and/or with %d operands", len(c.Args))
			}
		case CondHas:
			if len(c.Path) == 0 {
				t.Fatal("has without a path")
			}
		case CondCompare:
			if (c.Op == "==" || c.Op == "!=") && len(c.Values) != 1 {
				t.Fatalf("%s with %d values", c.Op, len(c.Values))
			}
		}
		for _, a := range c.Args {
			wellFormed(t, a)
		}
	}
	f.Fuzz(func(t *testing.T, language, src string) {
		if c, ok := CondOf(language, src); ok {
			wellFormed(t, c)
		}
	})
}
