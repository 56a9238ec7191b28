package lang

import (
	"sort"
	"strings"
)

// Var is a variable that expressions can use. Schema is a JSON Schema of
// its values; nil or empty means the variable is dynamically typed.
type Var struct {
	Name   string
	Schema map[string]any
}

// kind is the kind of a type in the model both languages share.
type kind uint8

const (
	kindDyn kind = iota
	kindNull
	kindBool
	kindInt
	kindDouble
	kindString
	kindList   // elem: the item type
	kindMap    // string keys; elem: the value type
	kindObject // fields
)

// typ is an expression type derived from a JSON Schema. Values of every
// type are JSON-like Go values at run time: an object is a
// map[string]any whose keys are the object's fields.
type typ struct {
	kind   kind
	elem   *typ
	fields map[string]*typ
	names  []string // the fields, sorted
	path   string   // objects: where the object comes from, e.g. "confirm.content"
}

var (
	dynType    = &typ{kind: kindDyn}
	nullType   = &typ{kind: kindNull}
	boolType   = &typ{kind: kindBool}
	intType    = &typ{kind: kindInt}
	doubleType = &typ{kind: kindDouble}
	stringType = &typ{kind: kindString}
)

func listOf(elem *typ) *typ { return &typ{kind: kindList, elem: elem} }
func mapOf(elem *typ) *typ  { return &typ{kind: kindMap, elem: elem} }

func objectOf(path string, fields map[string]*typ) *typ {
	t := &typ{kind: kindObject, fields: fields, path: path}
	for n := range fields {
		t.names = append(t.names, n)
	}
	sort.Strings(t.names)
	return t
}

// String names the type for messages, in the style of CEL's type names:
// int, double, list(string), map(string, dyn), object(confirm.content).
func (t *typ) String() string {
	switch t.kind {
	case kindNull:
		return "null"
	case kindBool:
		return "bool"
	case kindInt:
		return "int"
	case kindDouble:
		return "double"
	case kindString:
		return "string"
	case kindList:
		return "list(" + t.elem.String() + ")"
	case kindMap:
		return "map(string, " + t.elem.String() + ")"
	case kindObject:
		if t.path == "" {
			return "object{" + strings.Join(t.names, ", ") + "}"
		}
		return "object(" + t.path + ")"
	}
	return "dyn"
}

// fromSchema maps a JSON Schema to a type. path names the value, for the
// names of object types.
func fromSchema(s map[string]any, path string) *typ {
	if len(s) == 0 {
		return dynType
	}
	switch t := s["type"].(type) {
	case string:
		return fromSchemaType(t, s, path)
	case []any:
		// A list of types: nullable forms (["string", "null"]) keep the
		// one non-null type; anything else is dynamic.
		var kinds []string
		for _, e := range t {
			if n, ok := e.(string); ok && n != "null" {
				kinds = append(kinds, n)
			}
		}
		if len(kinds) == 1 {
			return fromSchemaType(kinds[0], s, path)
		}
		return dynType
	case nil:
	default:
		return dynType
	}
	// No type: infer it from what the schema says.
	if _, ok := s["properties"]; ok {
		return fromSchemaType("object", s, path)
	}
	if _, ok := s["additionalProperties"].(map[string]any); ok {
		return fromSchemaType("object", s, path)
	}
	if _, ok := s["items"]; ok {
		return fromSchemaType("array", s, path)
	}
	if c, ok := s["const"]; ok {
		return valueType(c)
	}
	if e, ok := s["enum"].([]any); ok {
		return commonType(e)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok && len(alts) > 0 {
			var t *typ
			for _, a := range alts {
				am, _ := a.(map[string]any)
				at := fromSchema(am, path)
				if at.kind == kindNull {
					continue // a nullable alternative
				}
				if t == nil {
					t = at
				} else if !sameType(t, at) {
					return dynType
				}
			}
			if t == nil {
				return dynType
			}
			return t
		}
	}
	return dynType
}

func fromSchemaType(name string, s map[string]any, path string) *typ {
	switch name {
	case "string":
		return stringType
	case "integer":
		return intType
	case "number":
		return doubleType
	case "boolean":
		return boolType
	case "null":
		return nullType
	case "array":
		items, _ := s["items"].(map[string]any)
		return listOf(fromSchema(items, path+"[]"))
	case "object":
		props, _ := s["properties"].(map[string]any)
		if len(props) > 0 {
			fields := make(map[string]*typ, len(props))
			for n, p := range props {
				pm, _ := p.(map[string]any)
				fields[n] = fromSchema(pm, path+"."+n)
			}
			return objectOf(path, fields)
		}
		if extra, ok := s["additionalProperties"].(map[string]any); ok {
			return mapOf(fromSchema(extra, path+"[]"))
		}
		return mapOf(dynType)
	}
	return dynType
}

// valueType returns the type of a JSON-like value.
func valueType(v any) *typ {
	switch v := v.(type) {
	case nil:
		return nullType
	case bool:
		return boolType
	case int, int64:
		return intType
	case float64:
		return doubleType
	case string:
		return stringType
	case []any:
		return listOf(commonType(v))
	case map[string]any:
		return mapOf(dynType)
	}
	return dynType
}

// commonType returns the type all values share, or dyn.
func commonType(vs []any) *typ {
	var t *typ
	for _, v := range vs {
		vt := valueType(v)
		if vt.kind == kindNull {
			continue
		}
		if t == nil {
			t = vt
		} else if !sameType(t, vt) {
			return dynType
		}
	}
	if t == nil {
		return dynType
	}
	return t
}

// sameType reports whether a and b are the same type, objects compared by
// their fields.
func sameType(a, b *typ) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindList, kindMap:
		return sameType(a.elem, b.elem)
	case kindObject:
		if len(a.names) != len(b.names) {
			return false
		}
		for n, f := range a.fields {
			g, ok := b.fields[n]
			if !ok || !sameType(f, g) {
				return false
			}
		}
	}
	return true
}

// assignable reports whether a value of type from may stand where a
// value of type to is expected: dyn and null fit everywhere, lists and
// maps when their elements do, and an object when it has every field of
// to with an assignable type (it may have more). An int is not a double.
func assignable(to, from *typ) bool {
	if to.kind == kindDyn || from.kind == kindDyn || from.kind == kindNull {
		return true
	}
	switch to.kind {
	case kindList:
		return from.kind == kindList && assignable(to.elem, from.elem)
	case kindMap:
		switch from.kind {
		case kindMap:
			return assignable(to.elem, from.elem)
		case kindObject:
			for _, f := range from.fields {
				if !assignable(to.elem, f) {
					return false
				}
			}
			return true
		}
		return false
	case kindObject:
		if from.kind != kindObject {
			return false
		}
		for n, f := range to.fields {
			g, ok := from.fields[n]
			if !ok || !assignable(f, g) {
				return false
			}
		}
		return true
	}
	return to.kind == from.kind
}

// schema returns a JSON Schema describing t; dyn is the empty schema.
func (t *typ) schema() map[string]any {
	switch t.kind {
	case kindNull:
		return map[string]any{"type": "null"}
	case kindBool:
		return map[string]any{"type": "boolean"}
	case kindInt:
		return map[string]any{"type": "integer"}
	case kindDouble:
		return map[string]any{"type": "number"}
	case kindString:
		return map[string]any{"type": "string"}
	case kindList:
		return map[string]any{"type": "array", "items": t.elem.schema()}
	case kindMap:
		return map[string]any{"type": "object", "additionalProperties": t.elem.schema()}
	case kindObject:
		props := make(map[string]any, len(t.fields))
		for n, f := range t.fields {
			props[n] = f.schema()
		}
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}

// Assignable reports whether a value described by the JSON Schema from may
// be used where one described by to is expected, in the type model of
// this package: dynamic schemas fit everywhere, an object fits when it has
// every property of to (it may have more), an integer is not a number.
// Flows use it for names bound more than once.
func Assignable(to, from map[string]any) bool {
	return assignable(fromSchema(to, "to"), fromSchema(from, "from"))
}

// TypeName describes the type a JSON Schema maps to, for messages, with
// its article: "an integer", "a number", "a string", "a boolean", "a list
// of strings", "a map", "an object with fields a, b" or "any value".
func TypeName(schema map[string]any) string {
	t := fromSchema(schema, "")
	if t.kind == kindObject {
		return "an object with " + plural(len(t.names), "field") + " " + strings.Join(t.names, ", ")
	}
	return aTypeName(celTypeOf(t))
}

func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

// ValueTypeName names the type of a JSON-like Go value for messages, with
// its article: "a boolean", "an integer", "a number", "a string", "a list
// of strings", "a map", "null".
func ValueTypeName(v any) string {
	return aTypeName(valueCELType(v))
}
