package std

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"time"
	_ "time/tzdata" // IANA names work on hosts without a zoneinfo database

	"github.com/flowserve/flowserve/actions"
)

func init() {
	actions.Register(actions.Spec{
		Name:    "time.now",
		Summary: "Returns the current time.",
		Description: "Flow expressions have no clock; this step reads one. Its result is journaled, " +
			"so the time is the one of the round that first ran the step.",
		Input: object("", obj{
			"timezone": prop("string", "The IANA time zone of rfc3339, like Europe/Paris; UTC when omitted.", "default", "UTC", "minLength", 1),
		}),
		Output: object("", obj{
			"rfc3339": prop("string", "The time in RFC 3339 form with seconds and the zone's offset, like 2026-07-28T12:00:00+02:00."),
			"unix":    prop("integer", "Seconds since 1970-01-01T00:00:00Z."),
			"unix_ms": prop("integer", "Milliseconds since 1970-01-01T00:00:00Z."),
		}, "rfc3339", "unix", "unix_ms"),
		Func: timeNow,
	})
	actions.Register(actions.Spec{
		Name:        "uuid.new",
		Summary:     "Returns a new random UUID (version 4).",
		Description: "Expressions have no randomness; this step supplies it. For an id that is stable across the rounds of a run, `run.id` is enough.",
		Input:       object("", obj{}),
		Output: object("", obj{
			"uuid": prop("string", "A random version 4 UUID in lower-case 8-4-4-4-12 form.", "format", "uuid"),
		}, "uuid"),
		Func: uuidNew,
	})
	actions.Register(actions.Spec{
		Name:    "random.int",
		Summary: "Returns a uniformly random integer between min and max, both included.",
		Description: "Uses a cryptographically secure source (crypto/rand), so it is fit for codes " +
			"and tokens.",
		Input: object("", obj{
			"min": prop("integer", "The smallest value that may be returned."),
			"max": prop("integer", "The largest value that may be returned; at least min."),
		}, "min", "max"),
		Output: object("", obj{
			"value": prop("integer", "The random integer, min <= value <= max."),
		}, "value"),
		Func: randomInt,
	})
}

func timeNow(ctx context.Context, in map[string]any) (any, error) {
	name := argString(in, "timezone", "UTC")
	loc, err := time.LoadLocation(name)
	if err != nil || name == "" {
		return nil, fmt.Errorf("unknown timezone %q; use an IANA name like UTC or Europe/Paris", name)
	}
	now := actions.HostFrom(ctx).Time()
	return map[string]any{
		"rfc3339": now.In(loc).Format(time.RFC3339),
		"unix":    now.Unix(),
		"unix_ms": now.UnixMilli(),
	}, nil
}

func uuidNew(ctx context.Context, _ map[string]any) (any, error) {
	var u [16]byte
	if _, err := io.ReadFull(actions.HostFrom(ctx).Entropy(), u[:]); err != nil {
		return nil, fmt.Errorf("read random bytes: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return map[string]any{"uuid": string(b[:])}, nil
}

func randomInt(ctx context.Context, in map[string]any) (any, error) {
	lo, err := argInt(in, "min", 0)
	if err != nil {
		return nil, err
	}
	hi, err := argInt(in, "max", 0)
	if err != nil {
		return nil, err
	}
	if hi < lo {
		return nil, fmt.Errorf("max (%d) is less than min (%d)", hi, lo)
	}
	span := new(big.Int).Sub(big.NewInt(hi), big.NewInt(lo))
	span.Add(span, big.NewInt(1))
	n, err := rand.Int(actions.HostFrom(ctx).Entropy(), span)
	if err != nil {
		return nil, fmt.Errorf("read random bytes: %w", err)
	}
	n.Add(n, big.NewInt(lo))
	return map[string]any{"value": n.Int64()}, nil
}
