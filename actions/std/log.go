package std

import (
	"context"
	"log/slog"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

type logIn struct {
	Message string         `json:"message" jsonschema:"The log message."`
	Fields  map[string]any `json:"fields,omitempty" jsonschema:"Extra structured fields, name to any JSON value, logged under \"fields\"."`
}

// nothing is the output of actions that return no value: an empty object.
type nothing struct{}

func logSpecs(m *actions.Module[*builtins]) []actions.Spec {
	var specs []actions.Spec
	for _, l := range []struct {
		name  string
		level slog.Level
		what  string
	}{
		{"log.info", slog.LevelInfo, "an info"},
		{"log.warn", slog.LevelWarn, "a warning"},
		{"log.error", slog.LevelError, "an error"},
	} {
		level := l.level
		specs = append(specs, actions.Method(m, l.name, "Writes "+l.what+" line to the server's structured log.",
			func(b *builtins, ctx context.Context, in logIn) (nothing, error) { return b.log(ctx, level, in) },
			actions.Describe("Writes one slog record at level "+l.level.String()+" with the message, the run id, "+
				"node and position of the step (`run_id`, `node`, `position`), and the given fields "+
				"under `fields`. Nothing reaches the client. The step is journaled like any other, "+
				"so it logs once per run, not once per round."),
			actions.InputProperty("fields", func(p *jsonschema.Schema) { p.AdditionalProperties = nil }),
			actions.OutputSchema(func(s *jsonschema.Schema) error {
				s.Description = "Nothing: the step's value is an empty object."
				return nil
			})))
	}
	return specs
}

func (b *builtins) log(ctx context.Context, level slog.Level, in logIn) (nothing, error) {
	logger := b.hostOf(ctx).Log()
	if !logger.Enabled(ctx, level) {
		return nothing{}, nil
	}
	attrs := make([]slog.Attr, 0, 4)
	if c, ok := actions.CallFrom(ctx); ok {
		attrs = append(attrs, slog.String("run_id", c.RunID), slog.String("node", c.Node), slog.Int("position", c.Position))
	}
	if len(in.Fields) > 0 {
		keys := make([]string, 0, len(in.Fields))
		for k := range in.Fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		group := make([]any, 0, len(keys))
		for _, k := range keys {
			group = append(group, slog.Any(k, in.Fields[k]))
		}
		attrs = append(attrs, slog.Group("fields", group...))
	}
	logger.LogAttrs(ctx, level, in.Message, attrs...)
	return nothing{}, nil
}
