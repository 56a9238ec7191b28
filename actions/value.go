package actions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Normalize converts a Go value into the JSON-like form that crosses the
// action API: nil, bool, int64, float64, string, []any and map[string]any.
//
// Integers of every Go integer type become int64 (an unsigned value above
// math.MaxInt64 is an error), float32 becomes float64, json.Number becomes
// int64 when it is an integer literal that fits and float64 otherwise.
// Slices and maps are copied, never modified. Any other value (a struct, a
// []string, a map[string]int, a time.Time, ...) goes through encoding/json
// and is decoded again, so struct tags apply. NaN and infinities are errors:
// JSON has no such numbers.
//
// Action functions may return such Go values; [Action.Run] normalizes the
// output before validating it.
func Normalize(v any) (any, error) {
	return normalize(v, nil)
}

func normalize(v any, path []string) (any, error) {
	switch v := v.(type) {
	case nil, bool, string, int64:
		return v, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, normalizeError(path, fmt.Sprintf("%v is not a JSON number", v))
		}
		return v, nil
	case float32:
		return normalize(float64(v), path)
	case int:
		return int64(v), nil
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case uint:
		return normalizeUint(uint64(v), path)
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case uint64:
		return normalizeUint(v, path)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
		f, err := v.Float64()
		if err != nil {
			return nil, normalizeError(path, fmt.Sprintf("%q is not a number", v.String()))
		}
		return f, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			n, err := normalize(e, append(path, "["+strconv.Itoa(i)+"]"))
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			n, err := normalize(e, append(path, fieldToken(k)))
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, normalizeError(path, fmt.Sprintf("cannot convert %T to JSON: %v", v, err))
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var doc any
		if err := d.Decode(&doc); err != nil {
			return nil, normalizeError(path, fmt.Sprintf("cannot convert %T to JSON: %v", v, err))
		}
		return normalizeDecoded(doc, path)
	}
}

// normalizeDecoded normalizes what encoding/json just decoded (with
// UseNumber) in place: its maps and slices are nobody else's, so only the
// numbers need converting.
func normalizeDecoded(v any, path []string) (any, error) {
	switch v := v.(type) {
	case json.Number:
		return normalize(v, path)
	case []any:
		for i, e := range v {
			n, err := normalizeDecoded(e, append(path, "["+strconv.Itoa(i)+"]"))
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
	case map[string]any:
		for k, e := range v {
			switch e.(type) {
			case nil, bool, string:
				continue
			}
			n, err := normalizeDecoded(e, append(path, fieldToken(k)))
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
	}
	return v, nil
}

func normalizeUint(u uint64, path []string) (any, error) {
	if u > math.MaxInt64 {
		return nil, normalizeError(path, fmt.Sprintf("integer %d does not fit in int64", u))
	}
	return int64(u), nil
}

func normalizeError(path []string, msg string) error {
	if len(path) == 0 {
		return fmt.Errorf("invalid value: %s", msg)
	}
	return fmt.Errorf("invalid value at %s: %s", joinPath(path), msg)
}

// fieldToken renders an object key as one path token: bare when it reads
// unambiguously, quoted in brackets otherwise.
func fieldToken(k string) string {
	if k == "" {
		return `[""]`
	}
	for _, r := range k {
		switch {
		case r == '.' || r == '[' || r == ']' || r == '"' || r == '\\':
			return "[" + strconv.Quote(k) + "]"
		case r <= ' ' || r == 0x7f:
			return "[" + strconv.Quote(k) + "]"
		}
	}
	return k
}

// joinPath joins tokens made by fieldToken or "[i]" into "a.b[0].c".
func joinPath(tokens []string) string {
	var b []byte
	for i, t := range tokens {
		if i > 0 && t[0] != '[' {
			b = append(b, '.')
		}
		b = append(b, t...)
	}
	return string(b)
}
