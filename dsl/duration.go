package dsl

import (
	"errors"
	"math"
	"strings"
	"time"
)

// Day is the duration of the unit d in flow files: 24 hours.
const Day = 24 * time.Hour

// ParseDuration reads a duration as flow files write them (a step's
// timeout, a retry's backoff, an approval's timeout): a Go duration
// (time.ParseDuration: "500ms", "30s", "1m30s", "1.5h"), in which the unit
// d, 24 hours, may also be used ("2d", "1d12h"). A string without d means
// what time.ParseDuration says it means.
func ParseDuration(s string) (time.Duration, error) {
	if !strings.Contains(s, "d") {
		return time.ParseDuration(s)
	}
	bad := errors.New("dsl: invalid duration " + quote(s))
	rest, neg := s, false
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		neg, rest = rest[0] == '-', rest[1:]
	}
	if rest == "" {
		return 0, bad
	}
	var total time.Duration
	for rest != "" {
		// A number: digits, maybe a fraction, at least one digit.
		i, digits := 0, 0
		for i < len(rest) && isDigit(rest[i]) {
			i, digits = i+1, digits+1
		}
		if i < len(rest) && rest[i] == '.' {
			i++
			for i < len(rest) && isDigit(rest[i]) {
				i, digits = i+1, digits+1
			}
		}
		if digits == 0 {
			return 0, bad
		}
		// Its unit: everything up to the next number, as Go reads it.
		j := i
		for j < len(rest) && rest[j] != '.' && !isDigit(rest[j]) {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		var d time.Duration
		switch unit {
		case "":
			return 0, bad // only a lone 0 may go without a unit, and it has no d
		case "d":
			h, err := time.ParseDuration(num + "h")
			if err != nil || h > math.MaxInt64/24 {
				return 0, bad
			}
			d = h * 24
		default:
			var err error
			if d, err = time.ParseDuration(num + unit); err != nil {
				return 0, bad
			}
		}
		if total > math.MaxInt64-d {
			return 0, bad
		}
		total += d
	}
	if neg {
		total = -total
	}
	return total, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// quote quotes s as Go's time package does in its errors.
func quote(s string) string { return `"` + s + `"` }
