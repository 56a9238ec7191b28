package schemas

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// kindReason words the error kinds whose reason needs nothing but the
// error: bounds, lengths, counts, patterns, formats.
func kindReason(k jsonschema.ErrorKind) (string, bool) {
	switch k := k.(type) {
	case *kind.Minimum:
		return "must be at least " + ratText(k.Want), true
	case *kind.Maximum:
		return "must be at most " + ratText(k.Want), true
	case *kind.ExclusiveMinimum:
		return "must be greater than " + ratText(k.Want), true
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratText(k.Want), true
	case *kind.MultipleOf:
		return "must be a multiple of " + ratText(k.Want), true
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty", true
		}
		return "must be at least " + plural(k.Want, "character") + " long", true
	case *kind.MaxLength:
		if k.Want == 0 {
			return "must be empty", true
		}
		return "must be at most " + plural(k.Want, "character") + " long", true
	case *kind.MinItems:
		return "must have at least " + plural(k.Want, "item"), true
	case *kind.MaxItems:
		if k.Want == 0 {
			return "must be empty", true
		}
		return "must have at most " + plural(k.Want, "item"), true
	case *kind.MinProperties:
		return "must have at least " + plural(k.Want, "property"), true
	case *kind.MaxProperties:
		if k.Want == 0 {
			return "must be empty", true
		}
		return "must have at most " + plural(k.Want, "property"), true
	case *kind.Pattern:
		return "must match the pattern " + patternText(k.Want), true
	case *kind.Format:
		return formatReason(k.Want), true
	case *kind.UniqueItems:
		return fmt.Sprintf("must not contain duplicates ([%d] and [%d] are equal)", k.Duplicates[0], k.Duplicates[1]), true
	case *kind.FalseSchema:
		return "is not allowed", true
	case *kind.InvalidJsonValue:
		return invalidValueReason(k.Value), true
	case *kind.ContentEncoding:
		return "must be " + k.Want + "-encoded", true
	case *kind.ContentMediaType:
		return "must be a valid " + k.Want + " document", true
	case *kind.ContentSchema:
		return `must hold content that matches its "contentSchema"`, true
	}
	return "", false
}

// invalidValueReason words a Go value that is not JSON (a NaN, a
// []string). It names the Go type, never the value.
func invalidValueReason(v any) string {
	switch f := v.(type) {
	case float64:
		return "must be a JSON number, not " + strconv.FormatFloat(f, 'g', -1, 64)
	case float32:
		return "must be a JSON number, not " + strconv.FormatFloat(float64(f), 'g', -1, 32)
	}
	return fmt.Sprintf("is not a JSON value (Go type %T)", v)
}

// formats name each format the validator asserts, with an example where
// one helps.
var formats = map[string]string{
	"email":                 "email address",
	"date":                  "date (like 2026-07-28)",
	"time":                  "time (like 10:00:00Z)",
	"date-time":             "date-time (like 2026-07-28T10:00:00Z)",
	"duration":              "duration (like P3DT4H)",
	"period":                "period (like 2026-07-28T10:00:00Z/PT1H)",
	"uri":                   "absolute URI (like https://example.com/page)",
	"iri":                   "absolute IRI (like https://example.com/page)",
	"uri-reference":         "URI reference",
	"iri-reference":         "IRI reference",
	"uri-template":          "URI template",
	"hostname":              "host name",
	"ipv4":                  "IPv4 address (like 192.0.2.1)",
	"ipv6":                  "IPv6 address (like 2001:db8::1)",
	"uuid":                  "UUID (like 123e4567-e89b-12d3-a456-426614174000)",
	"json-pointer":          "JSON Pointer (like /items/0)",
	"relative-json-pointer": "relative JSON Pointer (like 0/items)",
	"semver":                "semantic version (like 1.2.3)",
	"regex":                 "regular expression",
}

// formatReason says that a string is not of the named format.
func formatReason(name string) string {
	what, ok := formats[name]
	if !ok {
		what = name
	}
	return "is not a valid " + what
}

// patternText quotes a pattern without escaping its backslashes, so it
// reads as it is written in the schema.
func patternText(p string) string {
	if strings.ContainsAny(p, "\"\n\r\t") || !strconv.CanBackquote(p) {
		return strconv.Quote(p)
	}
	return `"` + p + `"`
}

// plural returns "1 item" or "2 items"; what is singular.
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "y") {
		return strconv.Itoa(n) + " " + what[:len(what)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// typeReason says which JSON types a value must have: "must be a string
// or null, not an integer".
func typeReason(want []string, got string) string {
	r := "must be " + typesText(want)
	if got != "" {
		r += ", not " + got
	}
	return r
}

// typeOrder is the order types are listed in, null last.
var typeOrder = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// typesText names JSON types with their articles, in typeOrder: "a
// string", "an integer or null", "a string, a number or null".
func typesText(types []string) string {
	sorted := slices.Clone(types)
	slices.SortStableFunc(sorted, func(a, b string) int {
		return cmp.Compare(typeRank(a), typeRank(b))
	})
	parts := make([]string, len(sorted))
	for i, t := range sorted {
		parts[i] = articleType(t)
	}
	return orList(parts)
}

// typeRank returns a type's place in typeOrder; unknown names go last.
func typeRank(t string) int {
	if i := slices.Index(typeOrder, t); i >= 0 {
		return i
	}
	return len(typeOrder)
}

// orList joins "a", "b" and "c" as "a, b or c".
func orList(parts []string) string {
	if len(parts) <= 2 {
		return strings.Join(parts, " or ")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// articleType returns a JSON type name with its article.
func articleType(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

// maxChoices is how many allowed values a reason lists before it says
// how many more there are.
const maxChoices = 20

// choiceReason says which values (and JSON types) a value must have:
// `must be "fast"`, "must be one of dev, staging, production", `must be
// one of 1, "two"`, "must be one of low, high, or null".
func choiceReason(values []any, types []string, got string) string {
	if len(values) == 0 {
		return typeReason(types, got)
	}
	list := valuesText(values)
	r := "must be " + list
	if len(values) > 1 {
		r = "must be one of " + list
	}
	if len(types) > 0 {
		sep := " or "
		if len(values) > 1 {
			sep = ", or "
		}
		r += sep + typesText(types)
	}
	return r
}

// valuesText lists values: bare when all are plain words ("dev, staging,
// production"), as JSON otherwise (`1, "two"`); a single value is always
// JSON (`"fast"`).
func valuesText(values []any) string {
	bare := len(values) > 1
	for _, v := range values {
		if s, ok := v.(string); !ok || !plainWord(s) {
			bare = false
			break
		}
	}
	n := min(len(values), maxChoices)
	parts := make([]string, n)
	for i, v := range values[:n] {
		if bare {
			parts[i] = v.(string)
		} else {
			parts[i] = jsonx.Text(v)
		}
	}
	text := strings.Join(parts, ", ")
	if len(values) > n {
		text += fmt.Sprintf(" (and %d more)", len(values)-n)
	}
	return text
}

// plainWord reports whether s reads unambiguously without quotes in a
// list: letters, digits and a few joining marks, and not a JSON number or
// keyword.
func plainWord(s string) bool {
	if s == "" || s == "true" || s == "false" || s == "null" {
		return false
	}
	for i, r := range s {
		word := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		joiner := i > 0 && strings.ContainsRune("-./@:+", r)
		if !word && !joiner {
			return false
		}
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

// schemaText describes a schema that only names values or types: `"x"`,
// "one of a, b", "a string". ok is false for any other schema.
func schemaText(schema any) (string, bool) {
	m, ok := schema.(map[string]any)
	if !ok || len(m) == 0 {
		return "", false
	}
	for k := range m {
		switch k {
		case "const", "enum", "type", "title", "description", "$comment":
		default:
			return "", false
		}
	}
	if c, ok := m["const"]; ok {
		return jsonx.Text(c), true
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		if len(e) == 1 {
			return jsonx.Text(e[0]), true
		}
		return "one of " + valuesText(e), true
	}
	switch t := m["type"].(type) {
	case string:
		return articleType(t), true
	case []any:
		var types []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
		if len(types) == len(t) && len(types) > 0 {
			return typesText(types), true
		}
	}
	return "", false
}

// plainLimit is where numbers start to be printed with an exponent.
var plainLimit = new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)

// ratText prints a number plainly, as JSON would: 67108865, 1.5, 0.001;
// only beyond 1e21 (or below 1e-7) with an exponent, 1e+300.
func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() && r.Num().CmpAbs(plainLimit) < 0 {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return floatText(f)
}

// floatText prints a float64 as JavaScript and JSON encoders do.
func floatText(f float64) string {
	if a := math.Abs(f); a == 0 || a >= 1e-7 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}
