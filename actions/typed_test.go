package actions

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

type shoutIn struct {
	Text  string         `json:"text" jsonschema:"The text to shout."`
	Marks int            `json:"marks,omitempty" jsonschema:"How many exclamation marks to add."`
	Tags  []string       `json:"tags,omitempty" jsonschema:"Labels."`
	Extra map[string]any `json:"extra,omitempty" jsonschema:"Anything."`
	Small int8           `json:"small,omitempty" jsonschema:"A small number."`
	When  *time.Time     `json:"when,omitempty" jsonschema:"A time."`
}

type shoutOut struct {
	Text  string `json:"text" jsonschema:"The shouted text."`
	Extra any    `json:"extra,omitempty" jsonschema:"What extra held."`
}

func shout(_ context.Context, in shoutIn) (shoutOut, error) {
	out := shoutOut{Text: strings.ToUpper(in.Text) + strings.Repeat("!", in.Marks)}
	if in.Extra != nil {
		out.Extra = in.Extra
	}
	return out, nil
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTypedSchemas(t *testing.T) {
	type empty struct{}
	type entry struct {
		Name string `json:"name" jsonschema:"The entry's name."`
	}
	type listing struct {
		Entries []entry `json:"entries" jsonschema:"The entries."`
	}
	tests := []struct {
		name       string
		spec       Spec
		in, out    string // the normalized schemas as JSON
		wantInput  map[string]any
		wantOutput map[string]any
	}{
		{
			name: "tags, required and optional",
			spec: Typed("t.shout", "Shouts.", shout),
			in: `{"additionalProperties":false,"properties":{` +
				`"extra":{"additionalProperties":true,"description":"Anything.","type":"object"},` +
				`"marks":{"description":"How many exclamation marks to add.","type":"integer"},` +
				`"small":{"description":"A small number.","maximum":127,"minimum":-128,"type":"integer"},` +
				`"tags":{"description":"Labels.","items":{"type":"string"},"type":["null","array"]},` +
				`"text":{"description":"The text to shout.","type":"string"},` +
				`"when":{"description":"A time.","type":["null","string"]}},` +
				`"required":["text"],"type":"object"}`,
			out: `{"additionalProperties":false,"properties":{` +
				`"extra":{"description":"What extra held."},` +
				`"text":{"description":"The shouted text.","type":"string"}},` +
				`"required":["text"],"type":"object"}`,
		},
		{
			name: "edited",
			spec: Typed("t.shout", "Shouts.", shout,
				Describe("Upper-cases a text."),
				InputProperty("text", func(p *jsonschema.Schema) { p.MinLength = jsonschema.Ptr(1) }),
				InputProperty("marks", func(p *jsonschema.Schema) {
					p.Default = json.RawMessage("1")
					p.Minimum, p.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(5.0)
				}),
				InputSchema(func(s *jsonschema.Schema) error {
					for _, n := range []string{"tags", "extra", "small", "when"} {
						delete(s.Properties, n)
					}
					return nil
				}),
				OutputSchema(func(s *jsonschema.Schema) error { s.Description = "The result."; return nil }),
				OutputProperty("extra", func(p *jsonschema.Schema) { p.Type = "object" }),
			),
			in: `{"additionalProperties":false,"properties":{` +
				`"marks":{"default":1,"description":"How many exclamation marks to add.","maximum":5,"minimum":0,"type":"integer"},` +
				`"text":{"description":"The text to shout.","minLength":1,"type":"string"}},` +
				`"required":["text"],"type":"object"}`,
			out: `{"additionalProperties":false,"description":"The result.","properties":{` +
				`"extra":{"description":"What extra held.","type":"object"},` +
				`"text":{"description":"The shouted text.","type":"string"}},` +
				`"required":["text"],"type":"object"}`,
		},
		{
			name: "empty struct lists no properties; map input; nested items",
			spec: Typed("t.list", "Lists.", func(context.Context, map[string]string) (listing, error) { return listing{}, nil }),
			in:   `{"additionalProperties":{"type":"string"},"type":"object"}`,
			out: `{"additionalProperties":false,"properties":{"entries":{"description":"The entries.","items":` +
				`{"additionalProperties":false,"properties":{"name":{"description":"The entry's name.","type":"string"}},"required":["name"],"type":"object"},` +
				`"type":["null","array"]}},"required":["entries"],"type":"object"}`,
		},
		{
			name: "no fields, any output",
			spec: Typed("t.nothing", "Nothing.", func(context.Context, empty) (any, error) { return nil, nil }),
			in:   `{"additionalProperties":false,"properties":{},"type":"object"}`,
			out:  `{}`,
		},
		{
			name: "type schema",
			spec: Typed("t.raw", "Raw.", func(context.Context, struct {
				Body json.RawMessage `json:"body,omitempty" jsonschema:"Any JSON."`
			}) (empty, error) {
				return empty{}, nil
			}, TypeSchema[json.RawMessage](&jsonschema.Schema{})),
			in:  `{"additionalProperties":false,"properties":{"body":{"description":"Any JSON."}},"type":"object"}`,
			out: `{"additionalProperties":false,"properties":{},"type":"object"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAction(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonText(t, a.Input); got != tt.in {
				t.Errorf("input schema\n  %s\nwant\n  %s", got, tt.in)
			}
			if got := jsonText(t, a.Output); got != tt.out {
				t.Errorf("output schema\n  %s\nwant\n  %s", got, tt.out)
			}
			checkJSONLike(t, a.Input)
			checkJSONLike(t, a.Output)
		})
	}
	if a, _ := NewAction(tests[1].spec); a.Description != "Upper-cases a text." {
		t.Errorf("Describe: Description = %q", a.Description)
	}
}

func TestTypedSpecErrors(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		wantErr string
	}{
		{"input not an object", Typed("t.s", "s", func(context.Context, string) (int, error) { return 0, nil }),
			`action "t.s": input type string must be a struct or a map with string keys`},
		{"pointer input", Typed("t.s", "s", func(context.Context, *shoutIn) (int, error) { return 0, nil }),
			`action "t.s": input type *actions.shoutIn must be a struct`},
		{"unsupported field", Typed("t.s", "s", func(context.Context, struct{ C chan int }) (int, error) { return 0, nil }),
			`action "t.s": input schema: ForType(struct { C chan int }): type chan int is unsupported by jsonschema`},
		{"unsupported output", Typed("t.s", "s", func(context.Context, shoutIn) (func(), error) { return nil, nil }),
			`action "t.s": output schema: ForType(func()): type func() is unsupported`},
		{"no such property", Typed("t.s", "s", shout, InputProperty("txt", func(*jsonschema.Schema) {})),
			`action "t.s": input schema: input has no property "txt" to edit`},
		{"no such output property", Typed("t.s", "s", shout, OutputProperty("txt", func(*jsonschema.Schema) {})),
			`action "t.s": output schema: output has no property "txt" to edit`},
		{"edit fails", Typed("t.s", "s", shout, InputSchema(func(*jsonschema.Schema) error { return errors.New("no") })),
			`action "t.s": input schema: no`},
		{"edit breaks the schema", Typed("t.s", "s", shout, InputProperty("text", func(p *jsonschema.Schema) { p.Pattern = "(" })),
			`action "t.s": input schema does not compile`},
		{"nil func", Typed[shoutIn, shoutOut]("t.s", "s", nil), `action "t.s": func is required`},
		{"bad name", Typed("shout", "s", shout), `action "shout": name must be`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewRegistry().Register(tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Register error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestTypedRun(t *testing.T) {
	var got shoutIn
	spec := Typed("t.shout", "Shouts.", func(ctx context.Context, in shoutIn) (shoutOut, error) {
		got = in
		if in.Text == "fail" {
			return shoutOut{}, errors.New("it failed")
		}
		return shout(ctx, in)
	},
		InputProperty("marks", func(p *jsonschema.Schema) { p.Default = json.RawMessage("2") }),
		InputProperty("small", func(p *jsonschema.Schema) { p.Minimum, p.Maximum = nil, nil }), // lets 300 through to the decoder
	)
	a, err := NewAction(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	when := "2026-07-28T10:00:00Z"
	tests := []struct {
		name    string
		in      map[string]any
		want    string // the output as JSON
		wantErr string
		check   func(t *testing.T)
	}{
		{name: "default applied", in: map[string]any{"text": "hi"}, want: `{"text":"HI!!"}`},
		{name: "numbers of any Go type", in: map[string]any{"text": "hi", "marks": 1.0}, want: `{"text":"HI!"}`},
		{name: "interface holes are JSON-like", in: map[string]any{"text": "a", "marks": int64(0), "extra": map[string]any{"n": int64(1) << 60, "f": 1.5, "l": []any{int32(1)}}},
			want: `{"extra":{"f":1.5,"l":[1],"n":1152921504606846976},"text":"A"}`,
			check: func(t *testing.T) {
				if n, ok := got.Extra["n"].(int64); !ok || n != 1<<60 {
					t.Errorf("extra.n = %#v, want int64 1<<60", got.Extra["n"])
				}
				if l := got.Extra["l"].([]any); l[0] != int64(1) {
					t.Errorf("extra.l[0] = %#v, want int64(1)", l[0])
				}
			}},
		{name: "json unmarshalers", in: map[string]any{"text": "a", "when": when}, want: `{"text":"A!!"}`,
			check: func(t *testing.T) {
				if got.When == nil || got.When.Format(time.RFC3339) != when {
					t.Errorf("when = %v", got.When)
				}
			}},
		{name: "invalid input", in: map[string]any{"marks": "x"}, wantErr: `input of action "t.shout": marks: must be an integer, not a string; text: is required`},
		{name: "valid but does not fit", in: map[string]any{"text": "a", "small": int64(300)}, wantErr: `input of action "t.shout": small: cannot decode number 300 into Go type int8`},
		{name: "unmarshaler fails", in: map[string]any{"text": "a", "when": "yesterday"}, wantErr: `input of action "t.shout": cannot decode: parsing time "yesterday"`},
		{name: "func error as is", in: map[string]any{"text": "fail"}, wantErr: "it failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := a.Run(ctx, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Run error = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkJSONLike(t, out)
			if s := jsonText(t, out); s != tt.want {
				t.Errorf("output %s, want %s", s, tt.want)
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}

	// A decode failure is a ValidationError, so the engine does not retry it.
	_, err = a.Run(ctx, map[string]any{"text": "a", "small": int64(300)})
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Output || verr.Action != "t.shout" || verr.Violations[0].Field != "small" {
		t.Errorf("decode error = %#v", err)
	}
	// Func decodes too when called directly, without Run's validation.
	if _, err := a.Func(ctx, map[string]any{"text": int64(1)}); err == nil ||
		err.Error() != `input of action "t.shout": text: cannot decode number into Go type string` {
		t.Errorf("Func with a bad input: %v", err)
	}
}

func TestTypedOutputIsValidated(t *testing.T) {
	type out struct {
		Tags []string `json:"tags" jsonschema:"Tags."`
	}
	a, err := NewAction(Typed("t.tags", "Tags.", func(_ context.Context, in struct {
		Empty bool `json:"empty,omitempty" jsonschema:"Return no tags."`
	}) (out, error) {
		if in.Empty {
			return out{}, nil // nil slice: JSON null
		}
		return out{Tags: []string{"a"}}, nil
	}, OutputProperty("tags", func(p *jsonschema.Schema) { p.Types, p.Type = nil, "array" })))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := a.Run(context.Background(), map[string]any{}); err != nil || !reflect.DeepEqual(out, map[string]any{"tags": []any{"a"}}) {
		t.Fatalf("Run = %#v, %v", out, err)
	}
	_, err = a.Run(context.Background(), map[string]any{"empty": true})
	if err == nil || err.Error() != `output of action "t.tags": tags: must be an array, not null` {
		t.Fatalf("Run with a nil slice: %v", err)
	}
}
