package wire

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// The Mcp-Param-* headers (SEP-2243): a tools/call argument whose
// property schema has "x-mcp-header": "Name" travels in the header
// Mcp-Param-Name too, and the server must find the two equal.

// ParamHeaderError checks the Mcp-Param-* headers of a tools/call of a
// tool with the given input schema and raw arguments, and returns the
// -32020 error go-sdk answers a mismatch with, or nil.
func ParamHeaderError(h http.Header, schema map[string]any, args []byte) *jsonrpc.Error {
	if ok, annotated := headerSchema(schema); !ok || !annotated {
		return nil
	}
	switch {
	case len(args) == 0, string(args) == "null":
		args = nil
	case args[0] != '{':
		// The SDK cannot read the arguments as an object, and checks
		// nothing.
		return nil
	}
	props, _ := schema["properties"].(map[string]any)
	if err := checkParamHeaders(h, props, args, nil); err != nil {
		return &jsonrpc.Error{Code: CodeHeaderMismatch, Message: err.Error()}
	}
	return nil
}

// headerSchema reads a schema as go-sdk does to find x-mcp-header
// annotations: it decodes the schema's type and properties, and its
// properties' own, all the way down, and finds no annotation at all when
// one of them is not what it expects (a type that is not a string, a
// property schema that is not an object); ok is false then. (Its client
// reads schemas the same way and then sends no Mcp-Param header for the
// tool, so checking them would refuse its calls.) annotated reports
// whether some property has an annotation.
func headerSchema(s map[string]any) (ok, annotated bool) {
	if t, ok := s["type"]; ok && t != nil {
		if _, ok := t.(string); !ok {
			return false, false
		}
	}
	p, ok := s["properties"]
	if !ok || p == nil {
		return true, false
	}
	props, ok := p.(map[string]any)
	if !ok {
		return false, false
	}
	for _, v := range props {
		if v == nil {
			continue
		}
		sub, ok := v.(map[string]any)
		if !ok {
			return false, false
		}
		subOK, subAnnotated := headerSchema(sub)
		if !subOK {
			return false, false
		}
		if h, _ := sub["x-mcp-header"].(string); h != "" || subAnnotated {
			annotated = true
		}
	}
	return true, annotated
}

// checkParamHeaders checks the annotated properties among props, and
// those of their properties, against obj, the raw object of arguments
// at that level (nil when there is none). path names the level.
func checkParamHeaders(h http.Header, props map[string]any, obj []byte, path []string) error {
	for name, v := range props {
		prop, _ := v.(map[string]any)
		header, _ := prop["x-mcp-header"].(string)
		sub, _ := prop["properties"].(map[string]any)
		if header == "" && len(sub) == 0 {
			continue
		}
		val, found := member(obj, name)
		if header != "" {
			if err := checkParamHeader(h, header, path, name, val, found); err != nil {
				return err
			}
		}
		if len(sub) > 0 {
			var subObj []byte
			if found && val[0] == '{' {
				subObj = val
			}
			if err := checkParamHeaders(h, sub, subObj, append(path[:len(path):len(path)], name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// member returns the last value of the member name of the raw object obj
// (as decoding it into a map keeps), and whether there is one.
func member(obj []byte, name string) (val []byte, found bool) {
	if obj == nil {
		return nil, false
	}
	jsonx.Fields(obj, func(k, v []byte) error {
		if string(k) == name {
			val, found = v, true
		}
		return nil
	})
	return val, found
}

// checkParamHeader checks one annotated argument, name under path (val,
// when found), against its header, as go-sdk's validateParamHeaders does.
func checkParamHeader(h http.Header, header string, path []string, name string, val []byte, found bool) error {
	full := "Mcp-Param-" + header
	param := func() string { return strings.Join(append(path[:len(path):len(path)], name), ".") }
	hv := h.Get(full)
	if !found || string(val) == "null" {
		if hv != "" {
			return fmt.Errorf("header mismatch: unexpected %s header for absent or null parameter %q", full, param())
		}
		return nil
	}
	if hv == "" {
		return fmt.Errorf("header mismatch: missing %s header for parameter %q", full, param())
	}
	decoded, ok := decodeParamHeader(hv)
	if !ok {
		return fmt.Errorf("header mismatch: %s header contains invalid Base64 encoding", full)
	}
	body, ok := headerPrimitive(val)
	if !ok {
		return fmt.Errorf("header mismatch: %s header present but body parameter %q is not a primitive type", full, param())
	}
	if !headerEqual(decoded, body) {
		return fmt.Errorf("header mismatch: %s header value '%s' does not match body value", full, hv)
	}
	return nil
}

// decodeParamHeader decodes a header value: =?base64?…?= is standard
// Base64 with padding, anything else is literal. ok is false for bad
// Base64.
func decodeParamHeader(v string) (string, bool) {
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok = strings.CutSuffix(enc, "?="); ok {
			b, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				return "", false
			}
			return string(b), true
		}
	}
	return v, true
}

// headerPrimitive decodes an argument the way go-sdk compares it with its
// header: a string, a boolean, or an integer within ±(2^53−1) as int64;
// ok is false for anything else (numbers are decoded as float64 first, as
// the SDK does).
func headerPrimitive(raw []byte) (any, bool) {
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil, false
	}
	var f float64
	switch v := v.(type) {
	case string, bool:
		return v, true
	case int64:
		f = float64(v)
	case float64:
		f = v
	default:
		return nil, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < -maxSafeInteger || f > maxSafeInteger {
		return nil, false
	}
	return int64(f), true
}

// maxSafeInteger is 2^53−1, the largest integer a float64 holds exactly.
const maxSafeInteger = 1<<53 - 1

// headerEqual reports whether a decoded header equals an argument
// headerPrimitive returned: integers compared as numbers, the rest as
// text ("true", "false", the string).
func headerEqual(header string, body any) bool {
	switch b := body.(type) {
	case int64:
		f, err := strconv.ParseFloat(header, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < -maxSafeInteger || f > maxSafeInteger {
			return false
		}
		return int64(f) == b
	case bool:
		return header == strconv.FormatBool(b)
	case string:
		return header == b
	}
	return false
}
