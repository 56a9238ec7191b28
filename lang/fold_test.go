package lang

import (
	"reflect"
	"testing"
)

// TestConstant checks which expressions are constants, and their values,
// in both languages: those that read no variable and evaluate; not those
// that read one, call what the environment does not have (a clock), fail
// or do not parse.
func TestConstant(t *testing.T) {
	tests := []struct {
		lang, src string
		want      any
		ok        bool
	}{
		{"cel", "0", int64(0), true},
		{"", "1 + 1", int64(2), true},
		{"cel", "-1", int64(-1), true},
		{"cel", "(2 - 5) * 2", int64(-6), true},
		{"cel", "size([1, 2, 3])", int64(3), true},
		{"cel", "[1, 2].map(x, x * 2)[1]", int64(4), true},
		{"cel", "'a' + 'b'", "ab", true},
		{"cel", "1.5", 1.5, true},
		{"cel", "true ? 3 : 4", int64(3), true},
		{"expr", "0", int64(0), true},
		{"expr", "1 + 1", int64(2), true},
		{"expr", "-1", int64(-1), true},
		{"expr", "len([1, 2, 3])", int64(3), true},
		{"expr", "let x = 2; x * 3", int64(6), true},
		{"expr", "map([1, 2], # * 2)[1]", int64(4), true},
		{"expr", "'a' + 'b'", "ab", true},

		// Not constants.
		{"cel", "tries + 1", nil, false},
		{"cel", "input.start", nil, false},
		{"cel", "has(input.start) ? input.start : 0", nil, false},
		{"cel", "now()", nil, false},
		{"cel", "1 / 0", nil, false},
		{"cel", "1 +", nil, false},
		{"expr", "tries + 1", nil, false},
		{"expr", "input.start ?? 0", nil, false},
		{"expr", "now()", nil, false},
		{"expr", "1 % 0", nil, false},
		{"expr", "1 +", nil, false},
		{"js", "1", nil, false},
	}
	for _, tc := range tests {
		got, ok := Constant(tc.lang, tc.src)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Constant(%q, %q) = %#v, %v; want %#v, %v", tc.lang, tc.src, got, ok, tc.want, tc.ok)
		}
	}
}
