package check

import (
	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
)

// Env is what a flow is checked and compiled against: the actions its
// steps may call, the cost limit its expressions are checked under and
// the flows its calls name. The zero value is usable. An Env holds
// nothing a run needs at run time; that belongs to the engine (package
// flow, whose Env it is too).
type Env struct {
	// Actions resolves step actions; nil means actions.Default().
	Actions *actions.Registry
	// CostLimit bounds the cost of one expression evaluation; zero means
	// lang.DefaultCostLimit.
	CostLimit uint64
	// Callees finds the flows that call and link nodes name, so that
	// their with values are type-checked against the callee's input
	// schema and their results typed by its output schema; nil finds
	// none (their results are then of any type). It gives parsed files:
	// the Programs a run calls are joined to the caller by flow.Link.
	Callees dsl.Callees
}

// registry returns the registry env resolves actions with.
func (env Env) registry() *actions.Registry {
	if env.Actions == nil {
		return actions.Default()
	}
	return env.Actions
}
