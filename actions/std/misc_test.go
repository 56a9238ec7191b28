package std

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
)

func TestTimeNow(t *testing.T) {
	fixed := time.Date(2026, 7, 28, 10, 30, 15, 123_000_000, time.UTC)
	h := &actions.Host{Now: func() time.Time { return fixed }}
	tests := []struct {
		name    string
		in      map[string]any
		rfc3339 string
		wantErr string
	}{
		{"default utc", map[string]any{}, "2026-07-28T10:30:15Z", ""},
		{"explicit utc", map[string]any{"timezone": "UTC"}, "2026-07-28T10:30:15Z", ""},
		{"paris summer", map[string]any{"timezone": "Europe/Paris"}, "2026-07-28T12:30:15+02:00", ""},
		{"new york", map[string]any{"timezone": "America/New_York"}, "2026-07-28T06:30:15-04:00", ""},
		{"unknown zone", map[string]any{"timezone": "Mars/Olympus"}, "", `unknown timezone "Mars/Olympus"`},
		{"empty zone", map[string]any{"timezone": ""}, "", "timezone: must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, h, "time.now", tt.in)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out["rfc3339"] != tt.rfc3339 || out["unix"] != fixed.Unix() || out["unix_ms"] != fixed.UnixMilli() {
				t.Fatalf("time.now = %v", out)
			}
		})
	}
}

func TestTimeNowRealClock(t *testing.T) {
	before := time.Now().UnixMilli()
	out, err := run(t, nil, "time.now", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	ms := out["unix_ms"].(int64)
	if ms < before || ms > time.Now().UnixMilli() {
		t.Fatalf("unix_ms %d is not now", ms)
	}
	if out["unix"].(int64) != ms/1000 {
		t.Fatalf("unix %v and unix_ms %v disagree", out["unix"], ms)
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUIDNew(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		out, err := run(t, nil, "uuid.new", nil)
		if err != nil {
			t.Fatal(err)
		}
		u := out["uuid"].(string)
		if !uuidRE.MatchString(u) {
			t.Fatalf("uuid %q is not a v4 uuid", u)
		}
		if seen[u] {
			t.Fatalf("uuid %q repeated", u)
		}
		seen[u] = true
	}
}

func TestUUIDNewPinnedRandomness(t *testing.T) {
	h := &actions.Host{Rand: bytes.NewReader(bytes.Repeat([]byte{0xff}, 16))}
	out, err := run(t, h, "uuid.new", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if out["uuid"] != "ffffffff-ffff-4fff-bfff-ffffffffffff" {
		t.Fatalf("uuid = %v", out["uuid"])
	}
	_, err = run(t, &actions.Host{Rand: strings.NewReader("short")}, "uuid.new", map[string]any{})
	wantErr(t, err, "read random bytes: unexpected EOF")
}

func TestRandomInt(t *testing.T) {
	tests := []struct {
		name     string
		in       map[string]any
		lo, hi   int64
		wantErr  string
		attempts int
	}{
		{"dice", map[string]any{"min": int64(1), "max": int64(6)}, 1, 6, "", 300},
		{"single value", map[string]any{"min": int64(7), "max": int64(7)}, 7, 7, "", 5},
		{"negative", map[string]any{"min": int64(-3), "max": int64(-1)}, -3, -1, "", 100},
		{"integral floats", map[string]any{"min": 0.0, "max": 1.0}, 0, 1, "", 50},
		{"full int64 range", map[string]any{"min": int64(-1 << 63), "max": int64(1<<63 - 1)}, -1 << 63, 1<<63 - 1, "", 20},
		{"max below min", map[string]any{"min": int64(5), "max": int64(1)}, 0, 0, "max (1) is less than min (5)", 1},
		{"missing max", map[string]any{"min": int64(5)}, 0, 0, `input of action "random.int": max: is required`, 1},
		{"fraction", map[string]any{"min": 0.5, "max": int64(1)}, 0, 0, "min: must be an integer, not a fractional number", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[int64]bool{}
			for range tt.attempts {
				out, err := run(t, nil, "random.int", tt.in)
				if tt.wantErr != "" {
					wantErr(t, err, tt.wantErr)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				v := out["value"].(int64)
				if v < tt.lo || v > tt.hi {
					t.Fatalf("value %d outside [%d, %d]", v, tt.lo, tt.hi)
				}
				seen[v] = true
			}
			if span := tt.hi - tt.lo + 1; span > 0 && span <= 6 && int64(len(seen)) != span {
				t.Errorf("saw %d distinct values in %d draws, want all %d", len(seen), tt.attempts, span)
			}
		})
	}
}

func TestLog(t *testing.T) {
	var buf bytes.Buffer
	h := &actions.Host{Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	ctx := actions.WithCall(context.Background(), actions.Call{RunID: "run-1", Node: "note", Position: 2})
	out, err := runCtx(t, ctx, h, "log.info", map[string]any{
		"message": "file deleted",
		"fields":  map[string]any{"path": "a.txt", "bytes": int64(12), "tags": []any{"x"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 {
		t.Fatalf("log.info output = %v, want {}", out)
	}
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("log line %q: %v", buf.String(), err)
	}
	delete(rec, "time")
	got, _ := json.Marshal(rec)
	want := `{"fields":{"bytes":12,"path":"a.txt","tags":["x"]},"level":"INFO","msg":"file deleted","node":"note","position":2,"run_id":"run-1"}`
	if string(got) != want {
		t.Fatalf("log record\n  %s\nwant\n  %s", got, want)
	}

	tests := []struct {
		action, want string
	}{
		{"log.warn", `"level":"WARN"`},
		{"log.error", `"level":"ERROR"`},
	}
	for _, tt := range tests {
		buf.Reset()
		if _, err := run(t, h, tt.action, map[string]any{"message": "m"}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tt.want) || strings.Contains(buf.String(), "run_id") {
			t.Errorf("%s logged %q", tt.action, buf.String())
		}
	}

	// Below the handler's level nothing is written.
	quiet := &actions.Host{Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelError}))}
	buf.Reset()
	if _, err := run(t, quiet, "log.info", map[string]any{"message": "m"}); err != nil || buf.Len() != 0 {
		t.Errorf("log.info below level: err %v, wrote %q", err, buf.String())
	}

	_, err = run(t, h, "log.info", map[string]any{"fields": map[string]any{}})
	wantErr(t, err, "message: is required")
}

func TestTimeSleep(t *testing.T) {
	out, err := run(t, nil, "time.sleep", map[string]any{"seconds": 0.02})
	if err != nil || out["slept_ms"] != int64(20) {
		t.Fatalf("time.sleep 0.02: %v, %v", out, err)
	}
	for _, bad := range []map[string]any{{"seconds": -1.0}, {"seconds": 86401.0}, {}} {
		if _, err := run(t, nil, "time.sleep", bad); err == nil {
			t.Errorf("time.sleep %v: no error", bad)
		}
	}
	// Cancellation ends the wait early, as an error.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = runCtx(t, ctx, nil, "time.sleep", map[string]any{"seconds": 60.0})
	if err == nil || !strings.Contains(err.Error(), "stopped after") || time.Since(start) > 10*time.Second {
		t.Fatalf("cancelled sleep: %v after %s", err, time.Since(start))
	}
}
