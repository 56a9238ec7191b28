package lang

import (
	"strconv"
	"strings"
	"testing"
)

func TestGuardsOf(t *testing.T) {
	tests := []struct {
		lang, src string
		want      []string // name@offset: conditions
	}{
		{"cel", "has(input.c) ? coupon.code : 'none'", []string{"input@4:", "coupon@15: has(input.c){input}"}},
		{"cel", "input.big ? m.x : n.y", []string{"input@0:", "m@12: input.big == true{input}", "n@18: not(input.big == true{input})"}},
		{"cel", "input.a && m.x", []string{"input@0:", "m@11: input.a == true{input}"}},
		{"cel", "input.a || m.x", []string{"input@0:", "m@11: not(input.a == true{input})"}},
		{"cel", "input.a ? (input.b ? m.x : 1) : 2", []string{"input@0:", "input@11: input.a == true{input}",
			"m@21: input.a == true{input} & input.b == true{input}"}},
		{"cel", "[1].exists(i, i > 0 && m.x)", []string{"m@23:"}},
		{"cel", "input.a && [1].exists(i, m.x)", []string{"input@0:", "m@25: input.a == true{input}"}},
		{"expr", "input.c != nil ? coupon.code : 'none'", []string{"input@0:", "coupon@17: input.c != null{input}"}},
		{"expr", "input.a and m.x", []string{"input@0:", "m@12: input.a == true{input}"}},
		{"expr", "let v = m.x; input.a ? v : 1", []string{"m@8:", "input@13:"}},
		{"expr", "let v = input.a; v ? m.x : 1", []string{"input@8:", "m@21:"}},
	}
	for _, tt := range tests {
		gs, ok := GuardsOf(tt.lang, tt.src)
		if !ok {
			t.Errorf("%s %q: does not parse", tt.lang, tt.src)
			continue
		}
		var got []string
		for _, g := range gs {
			var when []string
			for _, c := range g.When {
				when = append(when, condString(c))
			}
			got = append(got, strings.TrimSpace(g.Name+"@"+itoa(g.Offset)+": "+strings.Join(when, " & ")))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s %q:\n got %q\nwant %q", tt.lang, tt.src, got, tt.want)
		}
	}
	if _, ok := GuardsOf("cel", "a ?"); ok {
		t.Error("a syntax error parsed")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
