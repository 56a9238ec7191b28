package observe

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/flowserve/flowserve/flow"
)

// SDKLogger returns the logger given to the go-sdk: l with the SDK's Info
// records (a line for every session and every stateless request it
// serves) demoted to Debug, and marked component=go-sdk. Nil stays nil:
// the SDK then discards its logs.
func SDKLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(sdkHandler{l.Handler().WithAttrs([]slog.Attr{slog.String("component", "go-sdk")})})
}

// sdkHandler demotes Info records to Debug.
type sdkHandler struct{ h slog.Handler }

func demote(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

func (s sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return s.h.Enabled(ctx, demote(l))
}

func (s sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return s.h.Handle(ctx, r)
}

func (s sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{s.h.WithAttrs(attrs)}
}

func (s sdkHandler) WithGroup(name string) slog.Handler {
	return sdkHandler{s.h.WithGroup(name)}
}

// RedactingHandler returns a handler that passes each record to h with
// every secret value r knows replaced by flow.Redacted: in the message and
// in every attribute, those added with WithAttrs and those inside groups
// included. A string attribute stays a string; any other value that holds
// a secret once formatted (an error, a map of log.* fields) is logged as
// its redacted text. A nil r returns h, so a server with no secrets pays
// nothing. Servers wrap their logger in it, so that neither their own log
// lines nor the actions' (log.info of a with value) show a secret.
func RedactingHandler(h slog.Handler, r *flow.Redactor) slog.Handler {
	if r == nil {
		return h
	}
	return redactingHandler{h: h, r: r}
}

// redactingHandler is the handler RedactingHandler returns.
type redactingHandler struct {
	h slog.Handler
	r *flow.Redactor
}

func (x redactingHandler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, x.r.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(x.attr(a))
		return true
	})
	return x.h.Handle(ctx, out)
}

func (x redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return redactingHandler{h: x.h.WithAttrs(x.attrs(attrs)), r: x.r}
}

func (x redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h: x.h.WithGroup(name), r: x.r}
}

func (x redactingHandler) attrs(as []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = x.attr(a)
	}
	return out
}

// attr returns a with the secrets in its value replaced.
func (x redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	var s string
	switch v.Kind() {
	case slog.KindString:
		s = v.String()
	case slog.KindGroup:
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(x.attrs(v.Group())...)}
	case slog.KindAny:
		s = fmt.Sprint(v.Any())
	default:
		return a // numbers, booleans, times and durations hold no secret
	}
	if red := x.r.Redact(s); red != s {
		return slog.String(a.Key, red)
	}
	return slog.Attr{Key: a.Key, Value: v}
}
