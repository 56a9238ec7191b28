package kv

import (
	"encoding/json"
	"errors"
	"time"
)

// Decode decodes b, a record in a store's stored format (JSON), into a
// new T. A record that does not decode is corrupt: the error joins
// corrupt (the store's ErrCorrupt) and the decoder's. A record that valid
// (nil: any) refuses is corrupt too, and the error is corrupt itself.
func Decode[T any](b []byte, corrupt error, valid func(*T) bool) (*T, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, errors.Join(corrupt, err)
	}
	if valid != nil && !valid(&v) {
		return nil, corrupt
	}
	return &v, nil
}

// Clock returns now, a store's clock, or time.Now when now is nil.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}
