package lang

import "testing"

func TestBoundAndStep(t *testing.T) {
	bounds := []struct {
		lang, src string
		want      Bound
		ok        bool
	}{
		{"cel", "i < 3", Bound{"i", "<", 3}, true},
		{"cel", "3 >= i", Bound{"i", "<=", 3}, true},
		{"cel", "i < n", Bound{}, false},
		{"cel", "i.x < 3", Bound{}, false},
		{"expr", "tries <= 5", Bound{"tries", "<=", 5}, true},
		{"expr", "5 > tries", Bound{"tries", "<", 5}, true},
		{"cel", "i + 1", Bound{}, false},
	}
	for _, tt := range bounds {
		got, ok := BoundOf(tt.lang, tt.src)
		if got != tt.want || ok != tt.ok {
			t.Errorf("BoundOf(%s, %q) = %+v, %v; want %+v, %v", tt.lang, tt.src, got, ok, tt.want, tt.ok)
		}
	}
	steps := []struct {
		lang, src string
		name      string
		step      int64
		ok        bool
	}{
		{"cel", "i + 1", "i", 1, true},
		{"cel", "2 + i", "i", 2, true},
		{"cel", "i - 1", "i", -1, true},
		{"expr", "i + 1", "i", 1, true},
		{"cel", "1 - i", "", 0, false},
		{"cel", "i * 2", "", 0, false},
	}
	for _, tt := range steps {
		name, step, ok := StepOf(tt.lang, tt.src)
		if name != tt.name || step != tt.step || ok != tt.ok {
			t.Errorf("StepOf(%s, %q) = %q, %d, %v", tt.lang, tt.src, name, step, ok)
		}
	}
}

func TestBoundsOf(t *testing.T) {
	and, or := BoundsOf("cel", "tries < 3 && !details.accepted")
	if len(and) != 1 || and[0] != (Bound{"tries", "<", 3}) || or != nil {
		t.Errorf("cel and: %v %v", and, or)
	}
	and, or = BoundsOf("cel", "n > 1 || x.startsWith('<')")
	if and != nil || len(or) != 1 || or[0] != (Bound{"n", ">", 1}) {
		t.Errorf("cel or: %v %v", and, or)
	}
	and, or = BoundsOf("expr", "i < 3")
	if len(and) != 1 || len(or) != 1 {
		t.Errorf("expr single: %v %v", and, or)
	}
}
