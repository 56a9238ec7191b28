package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Typed returns the Spec of an action written as a typed Go function: fn
// takes its input as an In and returns an Out, and the action's input and
// output schemas are derived from those two types by jsonschema-go's
// [jsonschema.For]. Register the Spec as any other.
//
// The derivation follows jsonschema-go's conventions: a struct is a closed
// object ("additionalProperties": false) of its exported fields under their
// JSON names; a field is required unless its json tag says omitempty or
// omitzero; a field's `jsonschema:"..."` tag is its description; a pointer
// or a slice also admits null, a map with string keys is an object of its
// values, and an interface is any JSON value. Typed adds one rule: an
// object derived from a struct always lists its properties, even none.
// Keywords that tags cannot say (minLength, a default, an enum) are set
// with [InputProperty], [InputSchema] and the like, types with their own
// JSON form with [TypeSchema]. In must be a struct or a map with string
// keys, so that the input is an object.
//
// When the action runs, its input (defaults added and validated, see
// [Action.Run]) is decoded into an In as encoding/json decodes it, so json
// tags and UnmarshalJSON methods apply; a field of interface type holds
// JSON-like values (see [Normalize]), as an untyped Func's input does. A
// value that validates but does not fit the Go type (a number too large for
// an int8 field whose schema was edited to allow it) fails the step with a
// *[ValidationError] naming the action and the field. The Out that fn
// returns is encoded as encoding/json encodes it and must match the output
// schema.
//
// An error deriving a schema, or one an option returns, is kept in the
// Spec and returned, naming the action, when the Spec is registered.
func Typed[In, Out any](name, summary string, fn func(ctx context.Context, in In) (Out, error), opts ...Option) Spec {
	s := typedSpec[In, Out](name, summary, opts)
	if fn == nil {
		return s // NewAction reports the missing func
	}
	decode := inputDecoder[In](name)
	s.Func = func(ctx context.Context, in map[string]any) (any, error) {
		v, err := decode(in)
		if err != nil {
			return nil, err
		}
		return fn(ctx, v)
	}
	return s
}

// An Option adjusts a Spec that [Typed] or [Method] derives.
type Option func(*typedOptions)

type typedOptions struct {
	description   string
	typeSchemas   map[reflect.Type]*jsonschema.Schema
	input, output []func(*jsonschema.Schema) error
}

// Describe sets the Spec's Description: optional markdown, shown by
// `flowserve actions`.
func Describe(markdown string) Option {
	return func(o *typedOptions) { o.description = markdown }
}

// TypeSchema makes every T in the input and output types derive as s
// instead of by the rules [Typed] describes, as jsonschema-go's
// ForOptions.TypeSchemas does. Use it for types whose JSON form is not
// their Go shape: TypeSchema[json.RawMessage](&jsonschema.Schema{}) makes a
// json.RawMessage field any JSON value rather than an array of bytes. A
// field's `jsonschema` tag still sets its description.
func TypeSchema[T any](s *jsonschema.Schema) Option {
	return func(o *typedOptions) {
		if o.typeSchemas == nil {
			o.typeSchemas = map[reflect.Type]*jsonschema.Schema{}
		}
		o.typeSchemas[reflect.TypeFor[T]()] = s
	}
}

// InputSchema edits the input schema after it is derived: add keywords,
// replace a property's schema, describe the object. An error it returns
// fails the registration.
func InputSchema(edit func(s *jsonschema.Schema) error) Option {
	return func(o *typedOptions) { o.input = append(o.input, edit) }
}

// OutputSchema edits the output schema after it is derived, as
// [InputSchema] does the input's.
func OutputSchema(edit func(s *jsonschema.Schema) error) Option {
	return func(o *typedOptions) { o.output = append(o.output, edit) }
}

// InputProperty edits the schema of the input's top-level property name
// (its JSON name), like
//
//	actions.InputProperty("path", func(p *jsonschema.Schema) { p.MinLength = jsonschema.Ptr(1) })
//
// A name the input does not have fails the registration.
func InputProperty(name string, edit func(p *jsonschema.Schema)) Option {
	return InputSchema(propertyEdit("input", name, edit))
}

// OutputProperty edits the schema of the output's top-level property name,
// as [InputProperty] does the input's.
func OutputProperty(name string, edit func(p *jsonschema.Schema)) Option {
	return OutputSchema(propertyEdit("output", name, edit))
}

func propertyEdit(which, name string, edit func(*jsonschema.Schema)) func(*jsonschema.Schema) error {
	return func(s *jsonschema.Schema) error {
		p := s.Properties[name]
		if p == nil {
			return fmt.Errorf("%s has no property %q to edit", which, name)
		}
		edit(p)
		return nil
	}
}

// typedSpec derives the Spec of a typed action, without its Func. A
// failure is kept in Spec.err for NewAction to report.
func typedSpec[In, Out any](name, summary string, opts []Option) Spec {
	var o typedOptions
	for _, opt := range opts {
		opt(&o)
	}
	s := Spec{Name: name, Summary: summary, Description: o.description}
	in := reflect.TypeFor[In]()
	if k := in.Kind(); k != reflect.Struct && k != reflect.Map {
		s.err = fmt.Errorf("input type %s must be a struct or a map with string keys, so that the input is an object", in)
		return s
	}
	var err error
	if s.Input, err = deriveSchema(in, o.typeSchemas, o.input); err != nil {
		s.err = fmt.Errorf("input schema: %w", err)
		return s
	}
	if s.Output, err = deriveSchema(reflect.TypeFor[Out](), o.typeSchemas, o.output); err != nil {
		s.err = fmt.Errorf("output schema: %w", err)
	}
	return s
}

// deriveSchema derives t's schema, applies the edits and returns it as a
// JSON-like document.
func deriveSchema(t reflect.Type, types map[reflect.Type]*jsonschema.Schema, edits []func(*jsonschema.Schema) error) (map[string]any, error) {
	js, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		return nil, err
	}
	listProperties(js)
	for _, edit := range edits {
		if err := edit(js); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(js)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	switch v := doc.(type) {
	case bool: // jsonschema-go writes {} as true and {"not": {}} as false
		if v {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	case map[string]any:
		n, err := Normalize(v)
		if err != nil {
			return nil, err
		}
		return n.(map[string]any), nil
	}
	return nil, fmt.Errorf("derived schema %s is not an object", b)
}

// listProperties gives every closed object schema without properties (a
// struct without fields) an empty "properties", as hand-written schemas
// have.
func listProperties(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "object" && s.Properties == nil && isFalse(s.AdditionalProperties) {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for _, p := range s.Properties {
		listProperties(p)
	}
	listProperties(s.Items)
	listProperties(s.AdditionalProperties)
}

// isFalse reports whether s is the schema nothing matches, the one
// jsonschema-go gives a struct's additionalProperties.
func isFalse(s *jsonschema.Schema) bool {
	if s == nil || s.Not == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// inputDecoder returns a function that decodes a JSON-like input into a
// T, naming the action and the field in its errors.
func inputDecoder[T any](action string) func(in map[string]any) (T, error) {
	holes := hasHoles(reflect.TypeFor[T](), nil)
	return func(in map[string]any) (T, error) {
		var v T
		fail := func(field, reason string) (T, error) {
			var zero T
			return zero, &ValidationError{Action: action, Violations: []Violation{{Field: field, Reason: reason}}}
		}
		b, err := json.Marshal(in)
		if err != nil { // not JSON-like: say where
			if _, nerr := Normalize(in); nerr != nil {
				return fail("", nerr.Error())
			}
			return fail("", "cannot encode as JSON: "+strings.TrimPrefix(err.Error(), "json: "))
		}
		if holes {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber() // integers stay exact in interface values
			err = d.Decode(&v)
		} else {
			err = json.Unmarshal(b, &v)
		}
		if err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return fail(te.Field, fmt.Sprintf("cannot decode %s into Go type %s", te.Value, te.Type))
			}
			return fail("", "cannot decode: "+strings.TrimPrefix(err.Error(), "json: "))
		}
		if holes {
			fillHoles(reflect.ValueOf(&v).Elem())
		}
		return v, nil
	}
}

// hasHoles reports whether a value of t can hold an interface value.
func hasHoles(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return hasHoles(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return false
		}
		if seen == nil {
			seen = map[reflect.Type]bool{}
		}
		seen[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && hasHoles(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// fillHoles replaces what encoding/json put in interface values
// (json.Number, nested maps and slices of them) with JSON-like values.
func fillHoles(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		n, err := Normalize(v.Elem().Interface())
		if err != nil {
			return // keep what encoding/json made
		}
		v.Set(reflect.ValueOf(&n).Elem())
	case reflect.Pointer:
		if !v.IsNil() {
			fillHoles(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillHoles(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if !hasHoles(v.Type().Elem(), nil) {
			return
		}
		for i := range v.Len() {
			fillHoles(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !hasHoles(v.Type().Elem(), nil) {
			return
		}
		for it := v.MapRange(); it.Next(); {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			fillHoles(e)
			v.SetMapIndex(it.Key(), e)
		}
	}
}
