package serve

import (
	"context"
	"testing"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// ServeVersions records progs as the programs served now in vs, as a
// Server's Replace does.
func ServeVersions(t testing.TB, vs *Versions, progs ...*flow.Program) {
	t.Helper()
	if err := vs.serve(context.Background(), progs); err != nil {
		t.Fatal(err)
	}
}

// TendVersions runs what a Server runs every minute on vs.
func TendVersions(vs *Versions) { vs.tend(context.Background()) }

// CheckedNames returns the tools and prompts the OAuth guard reads body
// as calling (wire.ReadTargets), or ok false when it refuses the body.
func CheckedNames(body []byte) (names []string, ok bool) {
	targets, rpcErr := wire.ReadTargets(body)
	if rpcErr != nil {
		return nil, false
	}
	for _, t := range targets {
		if t.Method == "tools/call" || t.Method == "prompts/get" {
			names = append(names, t.Name)
		}
	}
	return names, true
}
