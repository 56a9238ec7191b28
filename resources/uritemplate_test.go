package resources

import (
	"maps"
	"strings"
	"testing"
)

func TestParseURITemplate(t *testing.T) {
	tests := []struct {
		tmpl   string
		vars   []string
		err    string // substring of the error; "" for none
		offset int
	}{
		{tmpl: "test://template/{id}/data", vars: []string{"id"}},
		{tmpl: "test://a/{x}-{y}", vars: []string{"x", "y"}},
		{tmpl: "test://a/%20{x}", vars: []string{"x"}},
		{tmpl: "urn:isbn:{isbn}", vars: []string{"isbn"}},
		{tmpl: "test://no/vars"},
		{tmpl: "{x}/a", err: "must be absolute"},
		{tmpl: "test://a/{", err: "without a closing }", offset: 9},
		{tmpl: "test://a/}", err: "without an opening {", offset: 9},
		{tmpl: "test://a/{#x}", err: `operator "#"`, offset: 9},
		{tmpl: "test://a/{x*}", err: "modifier", offset: 9},
		{tmpl: "test://a/{x}{y}", err: "nothing between them", offset: 12},
		{tmpl: "test://a/é/{x}", err: "percent-encode", offset: 9},
		{tmpl: "test://a/<x>", err: "percent-encode", offset: 9},
		{tmpl: "test://a/%2", err: "percent-encoded octet", offset: 9},
	}
	for _, tc := range tests {
		t.Run(tc.tmpl, func(t *testing.T) {
			got, err := parseURITemplate(tc.tmpl)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.msg, tc.err) || err.offset != tc.offset {
					t.Fatalf("err = %+v; want %q at %d", err, tc.err, tc.offset)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %+v", err)
			}
			if strings.Join(got.vars, ",") != strings.Join(tc.vars, ",") {
				t.Errorf("vars = %v; want %v", got.vars, tc.vars)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		tmpl, uri string
		want      map[string]string // nil: no match
	}{
		{"test://template/{id}/data", "test://template/123/data", map[string]string{"id": "123"}},
		{"test://template/{id}/data", "test://template/a%20b/data", map[string]string{"id": "a b"}},
		{"test://template/{id}/data", "test://template/a~b.c_d-e/data", map[string]string{"id": "a~b.c_d-e"}},
		{"test://a/{x}-{y}", "test://a/1-2", map[string]string{"x": "1", "y": "2"}},
		{"test://template/{id}/data", "test://template/1/2/data", nil},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://template/x/data/", nil},
		{"test://template/{id}/data", "TEST://template/x/data", nil},
		{"test://template/{id}/data", "test://template/%c3%28/data", nil},
		{"test://a.b/{x}", "test://aXb/1", nil},
	}
	for _, tc := range tests {
		tmpl, err := parseURITemplate(tc.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tmpl.Match(tc.uri)
		if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
			t.Errorf("%s.Match(%q) = %v, %v; want %v", tc.tmpl, tc.uri, got, ok, tc.want)
		}
	}
}

func TestParseText(t *testing.T) {
	tests := []struct {
		text   string
		vars   map[string]string
		want   string
		err    string
		offset int
	}{
		{text: "plain", want: "plain"},
		{text: "{{ id }}", vars: map[string]string{"id": "7"}, want: "7"},
		{text: "a{{id}}b{{ x }}c", vars: map[string]string{"id": "1", "x": "2"}, want: "a1b2c"},
		{text: "{ id }", want: "{ id }"},
		{text: "x {{ id", err: "without a closing", offset: 2},
		{text: "{{}}", err: "empty", offset: 0},
		{text: "ok {{ a.b }}", err: "not a variable name", offset: 3},
	}
	for _, tc := range tests {
		tmpl, _, err := parseText(tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.msg, tc.err) || err.offset != tc.offset {
				t.Errorf("parseText(%q) error = %+v; want %q at %d", tc.text, err, tc.err, tc.offset)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseText(%q): %+v", tc.text, err)
			continue
		}
		if got := tmpl.expand(tc.vars, nil); got != tc.want {
			t.Errorf("expand(%q) = %q; want %q", tc.text, got, tc.want)
		}
	}
}
