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

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

type timeIn struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"The IANA time zone of rfc3339, like Europe/Paris; UTC when omitted."`
}

type timeOut struct {
	RFC3339 string `json:"rfc3339" jsonschema:"The time in RFC 3339 form with seconds and the zone's offset, like 2026-07-28T12:00:00+02:00."`
	Unix    int64  `json:"unix" jsonschema:"Seconds since 1970-01-01T00:00:00Z."`
	UnixMS  int64  `json:"unix_ms" jsonschema:"Milliseconds since 1970-01-01T00:00:00Z."`
}

type sleepIn struct {
	Seconds float64 `json:"seconds" jsonschema:"How long to wait, in seconds (fractions allowed), at most one day."`
}

type sleepOut struct {
	SleptMS int64 `json:"slept_ms" jsonschema:"How long the step waited, in milliseconds."`
}

type uuidOut struct {
	UUID string `json:"uuid" jsonschema:"A random version 4 UUID in lower-case 8-4-4-4-12 form."`
}

type randomIn struct {
	Min int64 `json:"min" jsonschema:"The smallest value that may be returned."`
	Max int64 `json:"max" jsonschema:"The largest value that may be returned; at least min."`
}

type randomOut struct {
	Value int64 `json:"value" jsonschema:"The random integer, min <= value <= max."`
}

func miscSpecs(m *actions.Module[*builtins]) []actions.Spec {
	return []actions.Spec{
		actions.Method(m, "time.now", "Returns the current time.", (*builtins).timeNow,
			actions.Describe("Flow expressions have no clock; this step reads one. Its result is journaled, "+
				"so the time is the one of the round that first ran the step."),
			actions.InputProperty("timezone", func(p *jsonschema.Schema) {
				byDefault("UTC")(p)
				minLength(1)(p)
			})),
		actions.Method(m, "time.sleep", "Waits for a number of seconds.", (*builtins).timeSleep,
			actions.Describe("It stops early, failing, when the call or task is cancelled or the step's timeout "+
				"passes (30s unless the step sets `timeout`). Mark a step that waits long `long: true`, so that "+
				"a client with tasks gets a task instead of a call held open."),
			actions.InputProperty("seconds", func(p *jsonschema.Schema) {
				p.Minimum = jsonschema.Ptr(0.0)
				p.Maximum = jsonschema.Ptr(86400.0)
			})),
		actions.Method(m, "uuid.new", "Returns a new random UUID (version 4).", (*builtins).uuidNew,
			actions.Describe("Expressions have no randomness; this step supplies it. For an id that is stable across the rounds of a run, `run.id` is enough."),
			actions.OutputProperty("uuid", format("uuid"))),
		actions.Method(m, "random.int", "Returns a uniformly random integer between min and max, both included.", (*builtins).randomInt,
			actions.Describe("Uses a cryptographically secure source (crypto/rand), so it is fit for codes "+
				"and tokens.")),
	}
}

func (b *builtins) timeNow(ctx context.Context, in timeIn) (timeOut, error) {
	name := in.Timezone
	if name == "" { // absent: Run adds the default, a direct call may not
		name = "UTC"
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return timeOut{}, fmt.Errorf("unknown timezone %q; use an IANA name like UTC or Europe/Paris", name)
	}
	now := b.hostOf(ctx).Time()
	return timeOut{RFC3339: now.In(loc).Format(time.RFC3339), Unix: now.Unix(), UnixMS: now.UnixMilli()}, nil
}

func (b *builtins) timeSleep(ctx context.Context, in sleepIn) (sleepOut, error) {
	d := time.Duration(in.Seconds * float64(time.Second))
	t := time.NewTimer(d)
	defer t.Stop()
	start := time.Now()
	select {
	case <-ctx.Done():
		return sleepOut{}, fmt.Errorf("stopped after %s of %s: %w", time.Since(start).Round(time.Millisecond), d, ctx.Err())
	case <-t.C:
	}
	return sleepOut{SleptMS: d.Milliseconds()}, nil
}

func (b *builtins) uuidNew(ctx context.Context, _ nothing) (uuidOut, error) {
	var u [16]byte
	if _, err := io.ReadFull(b.hostOf(ctx).Entropy(), u[:]); err != nil {
		return uuidOut{}, fmt.Errorf("read random bytes: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return uuidOut{UUID: string(s[:])}, nil
}

func (b *builtins) randomInt(ctx context.Context, in randomIn) (randomOut, error) {
	lo, hi := in.Min, in.Max
	if hi < lo {
		return randomOut{}, fmt.Errorf("max (%d) is less than min (%d)", hi, lo)
	}
	span := new(big.Int).Sub(big.NewInt(hi), big.NewInt(lo))
	span.Add(span, big.NewInt(1))
	n, err := rand.Int(b.hostOf(ctx).Entropy(), span)
	if err != nil {
		return randomOut{}, fmt.Errorf("read random bytes: %w", err)
	}
	n.Add(n, big.NewInt(lo))
	return randomOut{Value: n.Int64()}, nil
}
