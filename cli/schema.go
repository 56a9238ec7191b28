package cli

import (
	"context"
	"fmt"
)

// runSchema prints the flow file JSON Schema. (Being built: issue 5.)
func runSchema(ctx context.Context, env *Env) int {
	fmt.Fprintln(env.Stderr, "flowserve schema: not built yet")
	return exitFail
}
