package oauth

import (
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// TestAcceptsTypeNotString: a typ that is not a string is refused; the
// typ check reads only the header's typ.
func TestAcceptsTypeNotString(t *testing.T) {
	tests := []struct {
		name string
		h    jose.Header
		want bool
	}{
		{"number", jose.Header{ExtraHeaders: map[jose.HeaderKey]any{jose.HeaderType: 42.0}}, false},
		{"list", jose.Header{ExtraHeaders: map[jose.HeaderKey]any{jose.HeaderType: []any{"at+jwt"}}}, false},
		{"null", jose.Header{ExtraHeaders: map[jose.HeaderKey]any{jose.HeaderType: nil}}, false},
		{"empty", jose.Header{ExtraHeaders: map[jose.HeaderKey]any{jose.HeaderType: ""}}, false},
		{"cty only", jose.Header{ExtraHeaders: map[jose.HeaderKey]any{jose.HeaderContentType: "JWT"}}, true},
		{"none", jose.Header{}, true},
	}
	v := &Verifier{}
	for _, tt := range tests {
		if got := v.acceptsType(tt.h); got != tt.want {
			t.Errorf("%s: acceptsType = %v, want %v", tt.name, got, tt.want)
		}
	}
}
