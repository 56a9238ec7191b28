package std

import (
	"context"
	"errors"

	"github.com/flowserve/flowserve/actions"
)

func init() {
	actions.Register(actions.Spec{
		Name:    "server.reload",
		Summary: "Reloads the served flow files and tells clients that the tool and prompt lists changed.",
		Description: "Loads every flow again the way `flowserve serve --watch` does on a change: flows with " +
			"errors keep the previous version serving and make the step fail with the diagnostics. " +
			"Clients listening for list changes are told to fetch the lists again even when no file " +
			"changed. Only `flowserve serve` can reload; elsewhere the step fails.",
		Input: object("", obj{}),
		Output: object("", obj{
			"tools": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
				"description": "The names of the tools served after the reload, sorted."},
		}, "tools"),
		Func: serverReload,
	})
}

func serverReload(ctx context.Context, _ map[string]any) (any, error) {
	h := actions.HostFrom(ctx)
	if h.Reload == nil {
		return nil, errors.New("server.reload needs a server that can reload its flows (flowserve serve)")
	}
	tools, err := h.Reload(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]any, len(tools))
	for i, t := range tools {
		list[i] = t
	}
	return map[string]any{"tools": list}, nil
}
