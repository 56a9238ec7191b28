package serve

import (
	"context"
	"testing"

	"github.com/flowserve/flowserve/flow"
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
// as calling (readTargets), or ok false when it refuses the body.
func CheckedNames(body []byte) (names []string, ok bool) {
	targets, rpcErr := readTargets(body)
	if rpcErr != nil {
		return nil, false
	}
	for _, t := range targets {
		if t.method == "tools/call" || t.method == "prompts/get" {
			names = append(names, t.name)
		}
	}
	return names, true
}
