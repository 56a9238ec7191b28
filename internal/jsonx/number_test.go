package jsonx

import (
	"encoding/json"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		v    any
		want float64
		ok   bool
	}{
		{3, 3, true},
		{int64(-7), -7, true},
		{2.5, 2.5, true},
		{json.Number("1e3"), 1000, true},
		{json.Number("x"), 0, false},
		{"3", 0, false},
		{true, 0, false},
		{nil, 0, false},
		{uint8(1), 0, false},
	}
	for _, tt := range tests {
		got, ok := Number(tt.v)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Number(%#v) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}
