package runui

import (
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
)

// SetLifetime makes the runs of test t live d after their last change,
// as a server's --task-ttl would, instead of approvals.DefaultLifetime.
func SetLifetime(t testing.TB, d time.Duration) {
	old := lifetime
	lifetime = d
	t.Cleanup(func() { lifetime = old })
}

// StateTTL is how long the states of a run of p stay valid.
func StateTTL(p *flow.Program) time.Duration { return approvalStateTTL(p) }
