package std

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

type reloadOut struct {
	Tools []string `json:"tools" jsonschema:"The names of the tools served after the reload, sorted."`
}

func serverSpecs(m *actions.Module[*builtins]) []actions.Spec {
	return []actions.Spec{actions.Method(m, "server.reload", "Reloads the served flow files and tells clients that the tool and prompt lists changed.", (*builtins).serverReload,
		actions.Describe("Loads every flow again the way `flowserve serve --watch` does on a change: flows with "+
			"errors keep the previous version serving and make the step fail with the diagnostics. "+
			"Clients listening for list changes are told to fetch the lists again even when no file "+
			"changed. Only `flowserve serve` can reload; elsewhere the step fails."),
		actions.OutputProperty("tools", func(p *jsonschema.Schema) { array(p) }),
	)}
}

func (b *builtins) serverReload(ctx context.Context, _ nothing) (reloadOut, error) {
	h := b.hostOf(ctx)
	if h.Reload == nil {
		return reloadOut{}, errors.New("server.reload needs a server that can reload its flows (flowserve serve)")
	}
	tools, err := h.Reload(ctx)
	if err != nil {
		return reloadOut{}, err
	}
	if tools == nil {
		tools = []string{}
	}
	return reloadOut{Tools: tools}, nil
}
