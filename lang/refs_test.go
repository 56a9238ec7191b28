package lang

import (
	"reflect"
	"testing"
)

func TestReadsOf(t *testing.T) {
	tests := []struct {
		lang, src string
		refs      []Ref
		tests     []string
	}{
		{"cel", "confirm.content.ok", []Ref{{Name: "confirm", Offset: 0}}, nil},
		{"cel", "has(confirm.content)", []Ref{{Name: "confirm", Offset: 4, Guarded: true}}, []string{"confirm"}},
		{"cel", "has(confirm.content) && confirm.content.ok", []Ref{{Name: "confirm", Offset: 4, Guarded: true}, {Name: "confirm", Offset: 24, Guarded: true}}, []string{"confirm"}},
		{"cel", "has(a.x) ? a.x : b", []Ref{{Name: "a", Offset: 4, Guarded: true}, {Name: "a", Offset: 11, Guarded: true}, {Name: "b", Offset: 17}}, nil},
		{"cel", "a.x || has(b.y)", []Ref{{Name: "a", Offset: 0}, {Name: "b", Offset: 11, Guarded: true}}, nil},
		{"cel", "items.exists(i, i > n)", []Ref{{Name: "items", Offset: 0}, {Name: "n", Offset: 20}}, nil},
		{"cel", "input.?hook.orValue('')", []Ref{{Name: "input", Offset: 0}}, nil},
		{"expr", "confirm != nil && confirm.content.ok", []Ref{{Name: "confirm", Offset: 0, Guarded: true}, {Name: "confirm", Offset: 18, Guarded: true}}, []string{"confirm"}},
		{"expr", "confirm?.content?.ok ?? false", []Ref{{Name: "confirm", Offset: 0, Guarded: true}}, nil},
		{"expr", "let x = a; x + b", []Ref{{Name: "a", Offset: 8}, {Name: "b", Offset: 15}}, nil},
		{"expr", "all(items, {# > n})", []Ref{{Name: "items", Offset: 4}, {Name: "n", Offset: 16}}, nil},
	}
	for _, tt := range tests {
		got, ok := ReadsOf(tt.lang, tt.src)
		if !ok {
			t.Errorf("%s %q does not parse", tt.lang, tt.src)
			continue
		}
		if !reflect.DeepEqual(got.Refs, tt.refs) || !reflect.DeepEqual(got.Tests, tt.tests) || got.Untests != nil {
			t.Errorf("%s %q:\n got %+v %v\nwant %+v %v", tt.lang, tt.src, got.Refs, got.Tests, tt.refs, tt.tests)
		}
	}
	for src, want := range map[string][]string{"!has(a.x)": {"a"}, "!has(a.x) || !has(b.y)": {"a", "b"}, "!has(a.x) && c": nil} {
		if got, _ := ReadsOf("cel", src); !reflect.DeepEqual(got.Untests, want) {
			t.Errorf("untests of %q: %v, want %v", src, got.Untests, want)
		}
	}
	if got, _ := ReadsOf("expr", "a == nil || nil == b"); !reflect.DeepEqual(got.Untests, []string{"a", "b"}) {
		t.Errorf("expr untests: %v", got.Untests)
	}
	if _, ok := ReadsOf("cel", "a +"); ok {
		t.Error("a syntax error parsed")
	}
}
