package flow

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// Redactor returns the redactor of v's secrets, nil when v has none.
func (v Values) Redactor() *Redactor {
	var secrets []string
	for _, s := range v.Secrets {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	r := &Redactor{r: replacer(secrets)}
	// How each secret reads inside a JSON string as the engine encodes
	// step outputs (jsonx.Append: no HTML escaping), and what that string
	// decodes to: the secret itself, unless it is not valid UTF-8 (each
	// invalid byte then decodes to U+FFFD).
	decoded := make([]string, 0, len(secrets))
	for _, s := range secrets {
		quoted := jsonx.AppendString(nil, s, false)
		r.escaped = append(r.escaped, quoted[1:len(quoted)-1])
		d, err := jsonx.Parse(quoted)
		if ds, ok := d.(string); err == nil && ok && ds != "" && !slices.Contains(decoded, ds) {
			decoded = append(decoded, ds)
		}
	}
	r.decoded = r.r
	if !slices.Equal(decoded, secrets) {
		r.decoded = replacer(decoded)
	}
	return r
}

// replacer returns the replacer of each of secrets by [Redacted]. Longer
// secrets come first, so that one that contains another is replaced
// whole.
func replacer(secrets []string) *strings.Replacer {
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// A Redactor replaces secret values in text, and in the strings of JSON
// documents, with [Redacted]. A nil Redactor redacts nothing. It is safe
// for concurrent use.
type Redactor struct {
	r *strings.Replacer
	// escaped holds each secret as it reads inside a JSON string the
	// engine encoded: a document holds a secret in one of its strings
	// only if its bytes contain one of these.
	escaped [][]byte
	// decoded replaces each secret as a decoded JSON string holds it.
	decoded *strings.Replacer
}

// Redact returns s with every secret value in it replaced.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Err returns err itself when its message holds no secret value, and
// otherwise an error whose message is err's redacted. That error does not
// wrap err, whose message would give the secret away.
func (r *Redactor) Err(err error) error {
	if r == nil || err == nil {
		return err
	}
	msg := err.Error()
	if red := r.r.Replace(msg); red != msg {
		return errors.New(red)
	}
	return err
}

// JSON returns raw, a JSON document as the engine encodes values (map
// keys sorted, no HTML escaping: a step's output), with every secret
// value inside its strings, object keys included, replaced. Numbers,
// booleans and null are left as they are, and the document stays the
// same JSON type for type: a string that held a secret is still a string
// (one that no longer matches a format or pattern its schema gives: it
// was checked before). Keys that come to be the same after redaction
// are one key, whose value is that of the last in key order.
//
// JSON returns raw itself, not re-encoded, when r is nil or no secret
// occurs in it: the cost of that is one bytes.Contains per secret. It
// fails only when raw is not JSON.
func (r *Redactor) JSON(raw []byte) ([]byte, error) {
	if r == nil || !r.inBytes(raw) {
		return raw, nil
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil, err
	}
	v, changed := r.value(v)
	if !changed {
		// The secret's bytes were in a number, across strings, or in
		// a string of another encoding's escapes: no string holds it.
		return raw, nil
	}
	return marshal(v)
}

// inBytes reports whether a secret may occur in a string of raw, an
// encoded JSON document.
func (r *Redactor) inBytes(raw []byte) bool {
	for _, s := range r.escaped {
		if bytes.Contains(raw, s) {
			return true
		}
	}
	return false
}

// value redacts the strings in v, a decoded JSON value it may change in
// place, and reports whether any changed.
func (r *Redactor) value(v any) (any, bool) {
	switch v := v.(type) {
	case string:
		red := r.decoded.Replace(v)
		return red, red != v
	case []any:
		changed := false
		for i, e := range v {
			if red, ok := r.value(e); ok {
				v[i], changed = red, true
			}
		}
		return v, changed
	case map[string]any:
		changed := false
		var renamed []string
		for k, e := range v {
			if red, ok := r.value(e); ok {
				v[k], changed = red, true
			}
			if r.decoded.Replace(k) != k {
				renamed = append(renamed, k)
			}
		}
		// In key order, so that which value a redacted key keeps does
		// not depend on map order.
		slices.Sort(renamed)
		for _, k := range renamed {
			e := v[k]
			delete(v, k)
			v[r.decoded.Replace(k)] = e
		}
		return v, changed || len(renamed) > 0
	}
	return v, false
}
