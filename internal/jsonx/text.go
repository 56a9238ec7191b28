package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Text returns v as JSON on one line for a message: map keys sorted, <, >
// and & as they are (encoding/json with SetEscapeHTML(false)); fmt's %v
// of v when it has no JSON form (NaN, a channel).
func Text(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
