package std

import (
	"context"
	"log/slog"
	"slices"

	"github.com/flowserve/flowserve/actions"
)

func init() {
	for _, l := range []struct {
		name  string
		level slog.Level
		what  string
	}{
		{"log.info", slog.LevelInfo, "an info"},
		{"log.warn", slog.LevelWarn, "a warning"},
		{"log.error", slog.LevelError, "an error"},
	} {
		actions.Register(actions.Spec{
			Name:    l.name,
			Summary: "Writes " + l.what + " line to the server's structured log.",
			Description: "Writes one slog record at level " + l.level.String() + " with the message, the run id, " +
				"node and position of the step (`run_id`, `node`, `position`), and the given fields " +
				"under `fields`. Nothing reaches the client. The step is journaled like any other, " +
				"so it logs once per run, not once per round.",
			Input: object("", obj{
				"message": prop("string", "The log message."),
				"fields":  prop("object", "Extra structured fields, name to any JSON value, logged under \"fields\"."),
			}, "message"),
			Output: object("Nothing: the step's value is an empty object.", obj{}),
			Func:   logFunc(l.level),
		})
	}
}

func logFunc(level slog.Level) actions.Func {
	return func(ctx context.Context, in map[string]any) (any, error) {
		logger := actions.HostFrom(ctx).Log()
		if !logger.Enabled(ctx, level) {
			return map[string]any{}, nil
		}
		attrs := make([]slog.Attr, 0, 4)
		if c, ok := actions.CallFrom(ctx); ok {
			attrs = append(attrs, slog.String("run_id", c.RunID), slog.String("node", c.Node), slog.Int("position", c.Position))
		}
		if fields, ok := in["fields"].(map[string]any); ok && len(fields) > 0 {
			keys := make([]string, 0, len(fields))
			for k := range fields {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			group := make([]any, 0, len(keys))
			for _, k := range keys {
				group = append(group, slog.Any(k, fields[k]))
			}
			attrs = append(attrs, slog.Group("fields", group...))
		}
		logger.LogAttrs(ctx, level, argString(in, "message", ""), attrs...)
		return map[string]any{}, nil
	}
}
