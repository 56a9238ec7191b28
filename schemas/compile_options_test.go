package schemas_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/schemas"
)

func TestCompileWith(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "name.json")
	if err := os.WriteFile(file, []byte(`{"type": "string", "minLength": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	local := map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"$ref": "#/$defs/name"}},
		"required":   []string{"name"},
		"$defs":      map[string]any{"name": map[string]any{"type": "string", "minLength": 2}},
	}
	external := map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"$ref": "file://" + filepath.ToSlash(file)}},
	}
	selfContained := &schemas.CompileOptions{SelfContained: true}
	tests := []struct {
		name    string
		doc     map[string]any
		opts    *schemas.CompileOptions
		wantErr string // "" = compiles
	}{
		{"nil options, local ref", local, nil, ""},
		{"zero options, external ref", external, &schemas.CompileOptions{}, ""},
		{"self-contained, local ref", local, selfContained, ""},
		{"self-contained, external ref", external, selfContained, "bad schema: "},
		{"self-contained, web ref", map[string]any{"$ref": "https://example.com/s.json"}, selfContained, "bad schema: "},
		{"self-contained, meta-schema", map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}, selfContained, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schemas.CompileWith(tt.doc, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("CompileWith error = %v, want prefix %q", err, tt.wantErr)
				}
				if ce := (*schemas.CompileError)(nil); !errors.As(err, &ce) {
					t.Errorf("CompileWith error is a %T, not a *CompileError as Compile's", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Doc()["type"] != tt.doc["type"] {
				t.Errorf("Doc() is not the document compiled")
			}
		})
	}
}

// TestCompileWithWording: however a schema was compiled, a value fails it
// in the same words.
func TestCompileWithWording(t *testing.T) {
	doc := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"n":    map[string]any{"type": "integer", "minimum": 0},
			"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		},
		"required":             []string{"n"},
		"additionalProperties": false,
	}
	plain, err := schemas.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := schemas.CompileWith(doc, &schemas.CompileOptions{SelfContained: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{
		map[string]any{},
		map[string]any{"n": int64(-1), "x": true},
		map[string]any{"n": "1", "tags": []any{"a", int64(2)}},
		"not an object",
	} {
		a, b := plain.Validate(v), closed.Validate(v)
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("%v: Compile says %q, CompileWith says %q", v, a, b)
		}
	}
}
