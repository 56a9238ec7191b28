package flow

import "context"

// Mocks are the test hooks of a round: flowserve test answers steps and
// calls with them instead of running actions and callees. Servers never
// set them. They reach the engine with the round's context (WithMocks),
// not in the Request, which holds the client's request alone.
type Mocks struct {
	// Step, when set, is consulted before each step the round runs
	// (replayed steps are not run, so it is not consulted for them). It
	// gets the step's node key (its id after the call path, as questions
	// are keyed) and its input: the rendered `with` with the action's
	// defaults added, which it must not modify. A nil result runs the
	// action as usual. Otherwise the action is not called, and the step
	// ends as the StepMock says, as if the action had returned it
	// (journaled, `on_error` taken on an error) but without retries or a
	// timeout. The input is still checked against the action's input
	// schema first.
	Step func(node string, input map[string]any) *StepMock
	// Call, when set, is consulted before each call or link node starts
	// its callee (not when it goes on in a frame an earlier round
	// opened), with the node's key, the callee's name and its arguments
	// (the rendered with, the callee's defaults added). A nil result runs
	// the callee. Otherwise the callee does not run: the call's result is
	// StepMock.Output (checked against the callee's output schema, or a
	// string when it declares none), or the callee fails with
	// StepMock.Err.
	Call func(node, flow string, input map[string]any) *StepMock
}

type mocksKey struct{}

// WithMocks returns ctx carrying m: the rounds run with it consult m
// before their steps and calls.
func WithMocks(ctx context.Context, m *Mocks) context.Context {
	return context.WithValue(ctx, mocksKey{}, m)
}

// mocksOf returns the mocks ctx carries, or nil.
func mocksOf(ctx context.Context) *Mocks {
	m, _ := ctx.Value(mocksKey{}).(*Mocks)
	return m
}
