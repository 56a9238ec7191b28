package cli

import (
	"context"
	"fmt"
)

// runGraph is being built (issue 6).
func runGraph(ctx context.Context, env *Env) int {
	fmt.Fprintln(env.Stderr, "flowserve graph: not built yet")
	return exitFail
}
