package yamlx

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestTypes checks how scalars and collections are named and told apart.
func TestTypes(t *testing.T) {
	tests := []struct {
		src      string
		name     string
		isString bool
		isNull   bool
	}{
		{"a", "a string", true, false},
		{"2026-11-30", "a string", true, false},
		{"!!binary aGk=", "a string", true, false},
		{"3", "an integer", false, false},
		{"3.5", "a number", false, false},
		{"true", "a boolean", false, false},
		{"null", "null", false, true},
		{"~", "null", false, true},
		{"[1]", "a list", false, false},
		{"{a: 1}", "a mapping", false, false},
		{"!custom x", "a value tagged !custom", false, false},
	}
	for _, tt := range tests {
		docs, err := DecodeDocs([]byte(tt.src))
		if err != nil || len(docs) != 1 {
			t.Fatalf("%q: %d docs, %v", tt.src, len(docs), err)
		}
		n := docs[0].Content[0]
		if got := TypeName(n); got != tt.name {
			t.Errorf("TypeName(%q) = %q, want %q", tt.src, got, tt.name)
		}
		if IsString(n) != tt.isString || IsNull(n) != tt.isNull {
			t.Errorf("%q: IsString %v, IsNull %v", tt.src, IsString(n), IsNull(n))
		}
	}
	if IsString(nil) || IsNull(nil) {
		t.Error("a nil node is neither a string nor null")
	}
	alias := &yaml.Node{Kind: yaml.AliasNode}
	if TypeName(alias) != "an alias" {
		t.Errorf("TypeName(alias) = %q", TypeName(alias))
	}
}

// TestDecodeDocs checks that at most two documents are read.
func TestDecodeDocs(t *testing.T) {
	tests := []struct {
		src  string
		docs int
		err  bool
	}{
		{"", 0, false},
		{"a: 1", 1, false},
		{"a: 1\n---\nb: 2", 2, false},
		{"a: 1\n---\nb: 2\n---\nc: 3", 2, false}, // stops after two
		{"a: [1", 0, true},
	}
	for _, tt := range tests {
		docs, err := DecodeDocs([]byte(tt.src))
		if len(docs) != tt.docs || (err != nil) != tt.err {
			t.Errorf("DecodeDocs(%q) = %d docs, %v; want %d, error %v", tt.src, len(docs), err, tt.docs, tt.err)
		}
	}
}
