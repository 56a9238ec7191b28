package lang

import (
	"reflect"
	"testing"
)

func TestComparisons(t *testing.T) {
	path := func(p ...string) []string { return p }
	tests := []struct {
		lang, src string
		want      []Comparison
	}{
		{"cel", "confirm.content.plan == 'enterprize'", []Comparison{{path("confirm", "content", "plan"), "==", "enterprize", 24, 36}}},
		{"cel", `"team" != q.content.plan`, []Comparison{{path("q", "content", "plan"), "!=", "team", 0, 6}}},
		{"cel", "q.content['plan'] == 'a' && input.n == 3", []Comparison{
			{path("q", "content", "plan"), "==", "a", 21, 24},
			{path("input", "n"), "==", int64(3), 39, 40},
		}},
		{"cel", "q.content.size in ['s', 'xl']", []Comparison{
			{path("q", "content", "size"), "in", "s", 19, 22},
			{path("q", "content", "size"), "in", "xl", 24, 28},
		}},
		{"cel", `q.content.n == -3 || q.content.s == "a\"b"`, []Comparison{
			{path("q", "content", "n"), "==", int64(-3), 15, 17},
			{path("q", "content", "s"), "==", `a"b`, 36, 42},
		}},
		{"cel", `q.content.s == r'a\' || q.content.s == """b"c""" || q.content.n == 1e3`, []Comparison{
			{path("q", "content", "s"), "==", `a\`, 15, 20},
			{path("q", "content", "s"), "==", `b"c`, 39, 48},
			{path("q", "content", "n"), "==", 1000.0, 67, 70},
		}},
		{"cel", "'x' in q.content.tags", []Comparison{{path("q", "content", "tags"), "contains", "x", 0, 3}}},
		{"cel", "input.ratio == 0.5 || input.on == true", []Comparison{
			{path("input", "ratio"), "==", 0.5, 15, 18},
			{path("input", "on"), "==", true, 34, 38},
		}},
		// Comprehension variables are not fields of the flow, but the
		// range they iterate is read as written.
		{"cel", "input.items.exists(input, input == 'a')", nil},
		{"cel", "q.content.tags.all(t, t == 'a') && q.content.plan == 'b'", []Comparison{{path("q", "content", "plan"), "==", "b", 53, 56}}},
		{"cel", "size(q.content.plan) == 3 || q.content.plan == input.plan", nil},
		{"cel", "has(q.content.plan) == true", nil},
		{"cel", "q.content.plan ==", nil},
		// Offsets count runes.
		{"cel", "'é' + q.content.plan == 'x' || q.content.plan == 'ü'", []Comparison{{path("q", "content", "plan"), "==", "ü", 49, 52}}},
		{"expr", "confirm.content.plan == 'enterprize'", []Comparison{{path("confirm", "content", "plan"), "==", "enterprize", 24, 36}}},
		{"expr", `q.content["plan"] != "a" and q.content?.n == -2`, []Comparison{
			{path("q", "content", "plan"), "!=", "a", 21, 24},
			{path("q", "content", "n"), "==", int64(-2), 45, 47},
		}},
		{"expr", "q.content.size not in ['s', 'xl']", []Comparison{
			{path("q", "content", "size"), "in", "s", 23, 26},
			{path("q", "content", "size"), "in", "xl", 28, 32},
		}},
		{"expr", "'x' in q.content.tags", []Comparison{{path("q", "content", "tags"), "contains", "x", 0, 3}}},
		{"expr", "let q = {content: {plan: 'a'}}; q.content.plan == 'b'", nil},
		{"expr", "all(q.content.tags, # == 'a')", nil},
		{"expr", "q.content.plan ==", nil},
		{"other", "q == 'a'", nil},
	}
	for _, tc := range tests {
		got := Comparisons(tc.lang, tc.src)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Comparisons(%q, %q)\n got %#v\nwant %#v", tc.lang, tc.src, got, tc.want)
		}
	}
}
