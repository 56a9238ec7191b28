package wire

import "github.com/flowserve/flowserve/internal/jsonx"

// A shape is what a go-sdk type accepts when it decodes a JSON value (with
// its internal/json: member names match exactly, unknown members are
// skipped, null leaves any field unset). The _meta members it decodes
// into types are checked against their shapes.
type shape struct {
	kind   shapeKind
	fields []shapeField // shapeObject
	elem   *shape       // shapeArray
}

type shapeKind int

const (
	shapeString shapeKind = iota
	shapeBool
	shapeObject // a struct: the fields' shapes apply to their members
	shapeMap    // a map[string]any: any object
	shapeArray
)

type shapeField struct {
	name  string
	shape *shape
}

// maxShapeFields bounds the fields of an object shape (members keeps the
// members it checks in an array of this size).
const maxShapeFields = 8

// shapeMembers holds the last value of each field of an object shape in
// a raw object (nil for none), by the field's index.
type shapeMembers [maxShapeFields][]byte

func objectShape(fields ...shapeField) *shape {
	if len(fields) > maxShapeFields {
		panic("wire: an object shape with more than maxShapeFields fields")
	}
	return &shape{kind: shapeObject, fields: fields}
}

// index returns the index of an object shape's field.
func (s *shape) index(name string) int {
	for i, f := range s.fields {
		if f.name == name {
			return i
		}
	}
	panic("wire: no shape field " + name)
}

var (
	stringShape = &shape{kind: shapeString}
	boolShape   = &shape{kind: shapeBool}
	mapShape    = &shape{kind: shapeMap}
	emptyShape  = objectShape()

	// clientInfoShape is mcp.Implementation's.
	clientInfoShape = objectShape(
		shapeField{"name", stringShape}, shapeField{"title", stringShape}, shapeField{"description", stringShape},
		shapeField{"version", stringShape}, shapeField{"websiteUrl", stringShape},
		shapeField{"icons", &shape{kind: shapeArray, elem: objectShape(
			shapeField{"src", stringShape}, shapeField{"mimeType", stringShape},
			shapeField{"sizes", &shape{kind: shapeArray, elem: stringShape}}, shapeField{"theme", stringShape})}})
	// elicitationShape is mcp.ElicitationCapabilities'.
	elicitationShape = objectShape(shapeField{"form", emptyShape}, shapeField{"url", emptyShape})
	// clientCapabilitiesShape is that of the SDK's clientCapabilitiesV2
	// (mcp.ClientCapabilities with roots as a RootCapabilities).
	clientCapabilitiesShape = objectShape(
		shapeField{"experimental", mapShape}, shapeField{"extensions", mapShape},
		shapeField{"roots", objectShape(shapeField{"listChanged", boolShape})},
		shapeField{"sampling", objectShape(shapeField{"context", emptyShape}, shapeField{"tools", emptyShape})},
		shapeField{"elicitation", elicitationShape})

	// The fields ReadClient reads.
	infoName        = clientInfoShape.index("name")
	infoVersion     = clientInfoShape.index("version")
	capsElicitation = clientCapabilitiesShape.index("elicitation")
	capsSampling    = clientCapabilitiesShape.index("sampling")
	capsRoots       = clientCapabilitiesShape.index("roots")
	capsExtensions  = clientCapabilitiesShape.index("extensions")
	elicitationForm = elicitationShape.index("form")
	elicitationURL  = elicitationShape.index("url")
)

// accepts reports whether the SDK type decodes raw, a value jsonx has
// checked. The SDK decodes _meta into maps first and its members into
// their types after, so of a repeated member only the last counts, at
// every depth.
func (s *shape) accepts(raw []byte) bool {
	if string(raw) == "null" {
		return true
	}
	switch s.kind {
	case shapeString:
		return raw[0] == '"'
	case shapeBool:
		return raw[0] == 't' || raw[0] == 'f'
	case shapeMap:
		return raw[0] == '{'
	case shapeArray:
		if raw[0] != '[' {
			return false
		}
		v, err := jsonx.Parse(raw) // rare: no client sends icons each request
		return err == nil && s.acceptsValue(v)
	}
	if raw[0] != '{' {
		return false
	}
	if len(s.fields) == 0 {
		return true // any object: its members go unread
	}
	var m shapeMembers
	return s.members(raw, &m) && s.valid(&m)
}

// members reads the last value of each of an object shape's fields in
// raw into m, and reports whether raw is a well-formed object.
func (s *shape) members(raw []byte, m *shapeMembers) bool {
	return jsonx.Fields(raw, func(k, v []byte) error {
		for i := range s.fields {
			if string(k) == s.fields[i].name {
				m[i] = v
				break
			}
		}
		return nil
	}) == nil
}

// valid reports whether the members members read are of their fields'
// shapes.
func (s *shape) valid(m *shapeMembers) bool {
	for i := range s.fields {
		if m[i] != nil && !s.fields[i].shape.accepts(m[i]) {
			return false
		}
	}
	return true
}

// acceptsValue is accepts for a value jsonx.Parse returned.
func (s *shape) acceptsValue(v any) bool {
	if v == nil {
		return true
	}
	switch s.kind {
	case shapeString:
		_, ok := v.(string)
		return ok
	case shapeBool:
		_, ok := v.(bool)
		return ok
	case shapeMap:
		_, ok := v.(map[string]any)
		return ok
	case shapeArray:
		a, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range a {
			if !s.elem.acceptsValue(e) {
				return false
			}
		}
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range s.fields {
		if fv, ok := m[f.name]; ok && !f.shape.acceptsValue(fv) {
			return false
		}
	}
	return true
}
