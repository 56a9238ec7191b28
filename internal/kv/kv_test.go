package kv_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/kv"
)

var errCorrupt = errors.New("stored record is corrupt")

type record struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

func TestDecode(t *testing.T) {
	hasID := func(r *record) bool { return r.ID != "" }
	tests := []struct {
		name    string
		in      string
		valid   func(*record) bool
		want    *record
		same    bool   // the error is errCorrupt itself
		decoder string // the error also says this, the decoder's
	}{
		{"a record", `{"id":"a","name":"n"}`, hasID, &record{ID: "a", Name: "n"}, false, ""},
		{"unknown fields are ignored", `{"id":"a","later":1}`, hasID, &record{ID: "a"}, false, ""},
		{"no check", `{}`, nil, &record{}, false, ""},
		{"not JSON", `{"id":`, hasID, nil, false, "unexpected end of JSON input"},
		{"empty", ``, hasID, nil, false, "unexpected end of JSON input"},
		{"a field of another type", `{"id":7}`, hasID, nil, false, "cannot unmarshal number"},
		{"refused by valid", `{"name":"n"}`, hasID, nil, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kv.Decode([]byte(tc.in), errCorrupt, tc.valid)
			if tc.want != nil {
				if err != nil || *got != *tc.want {
					t.Fatalf("Decode = %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if got != nil || !errors.Is(err, errCorrupt) {
				t.Fatalf("Decode = %+v, %v; want an error wrapping errCorrupt", got, err)
			}
			if tc.same && err != errCorrupt {
				t.Errorf("Decode error = %v, want errCorrupt itself", err)
			}
			if !strings.Contains(err.Error(), tc.decoder) {
				t.Errorf("Decode error = %q, want it to say %q", err, tc.decoder)
			}
		})
	}
}

func TestClock(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := kv.Clock(func() time.Time { return at })(); !got.Equal(at) {
		t.Errorf("Clock(fixed)() = %v, want %v", got, at)
	}
	before := time.Now()
	if got := kv.Clock(nil)(); got.Before(before) || time.Since(got) > time.Minute {
		t.Errorf("Clock(nil)() = %v, want the time now (%v)", got, before)
	}
}
