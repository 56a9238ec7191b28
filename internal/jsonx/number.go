package jsonx

import "encoding/json"

// Number returns v as a float64 when it is a number of a JSON-like value:
// an int, an int64, a float64 or a json.Number (one that parses).
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
