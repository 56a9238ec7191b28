package approvals

import (
	"testing"
	"time"
)

// TestExpires: the one rule for how long a question waits: its timeout,
// or, without one, the run's lifetime.
func TestExpires(t *testing.T) {
	asked := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name              string
		timeout, lifetime time.Duration
		want              time.Time
	}{
		{"a timeout", 2 * time.Hour, DefaultLifetime, asked.Add(2 * time.Hour)},
		{"a timeout longer than the lifetime", 72 * time.Hour, DefaultLifetime, asked.Add(72 * time.Hour)},
		{"no timeout: the run's lifetime", 0, DefaultLifetime, asked.Add(24 * time.Hour)},
		{"no timeout, a longer lifetime", 0, 7 * 24 * time.Hour, asked.Add(7 * 24 * time.Hour)},
		{"no timeout, a stretched lifetime", 0, 50 * time.Hour, asked.Add(50 * time.Hour)},
	}
	for _, tt := range tests {
		if got := Expires(asked, tt.timeout, tt.lifetime); !got.Equal(tt.want) {
			t.Errorf("%s: Expires(%v, %v) = %v, want %v", tt.name, tt.timeout, tt.lifetime, got, tt.want)
		}
	}
}

// TestLifetime: a run that waits for an approval with a timeout is kept
// for the timeout plus a run's lifetime, so it goes on after the timeout;
// without a timeout, or with a lifetime long enough already, it keeps
// its lifetime.
func TestLifetime(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		name                    string
		lifetime, timeout, base time.Duration
		want                    time.Duration
	}{
		{"no timeout", day, 0, day, day},
		{"a short timeout", day, time.Hour, day, day + time.Hour},
		{"a long timeout", day, 3 * day, day, 4 * day},
		{"stretched enough already", 10 * day, 2 * day, day, 10 * day},
		{"exactly enough", 3 * day, 2 * day, day, 3 * day},
	}
	for _, tt := range tests {
		if got := Lifetime(tt.lifetime, tt.timeout, tt.base); got != tt.want {
			t.Errorf("%s: Lifetime(%v, %v, %v) = %v, want %v", tt.name, tt.lifetime, tt.timeout, tt.base, got, tt.want)
		}
	}
}

// TestExpiresWithinLifetime: whatever the timeout, the question never
// outlives the run that waits for it, so no link works for a run that is
// gone.
func TestExpiresWithinLifetime(t *testing.T) {
	asked := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, timeout := range []time.Duration{0, time.Second, time.Hour, DefaultLifetime, 30 * DefaultLifetime} {
		for _, base := range []time.Duration{time.Hour, DefaultLifetime, 7 * DefaultLifetime} {
			life := Lifetime(base, timeout, base)
			if exp := Expires(asked, timeout, life); exp.After(asked.Add(life)) {
				t.Errorf("timeout %v, lifetime %v: the question expires at %v, after the run (%v)", timeout, base, exp, asked.Add(life))
			}
		}
	}
}
