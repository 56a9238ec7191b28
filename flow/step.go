package flow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow/state"
)

// step handles a step node: replay its journaled output or error, or run
// its action now and journal what it gave.
func (r *runner) step(cn *cnode) (int, error) {
	e, err := r.replayed(cn, state.EntryStep)
	if err != nil {
		return 0, err
	}
	if e != nil {
		r.pos++
		if e.Err != "" {
			return r.stepFailed(cn, e.Err)
		}
		v, err := decodeJSON(e.Value, cn.action.Spec.Output)
		if err != nil {
			return 0, fmt.Errorf("journaled output: %w", err)
		}
		r.vars[cn.n.ID] = v
		return cn.next, nil
	}

	pos := r.pos
	if r.req.OnStep != nil {
		r.req.OnStep(r.key(cn), cn.action.Name, pos, false)
	}
	out, runErr := r.runAction(cn, pos)
	if r.req.OnStep != nil {
		r.req.OnStep(r.key(cn), cn.action.Name, pos, true)
	}
	if runErr != nil {
		// The message is journaled, bound to error and shown: no secret
		// the action was given may be in it.
		runErr = r.e.redact.Err(runErr)
		r.req.Stats.stepFailed()
		if cn.onError < 0 {
			return 0, fmt.Errorf("%s failed: %w", cn.action.Name, runErr)
		}
		msg := runErr.Error()
		if err := r.record(state.Entry{Kind: state.EntryStep, Node: cn.n.ID, Fingerprint: cn.fp, Err: msg}); err != nil {
			return 0, err
		}
		if err := r.checkpoint(); err != nil {
			return 0, err
		}
		return r.stepFailed(cn, msg)
	}
	// The output is journaled, bound and may be returned: no secret the
	// action was given may be in it either. Replays read it redacted, as
	// this round binds it.
	if out, err = r.e.redact.JSON(out); err != nil {
		return 0, fmt.Errorf("redact output: %w", err)
	}
	if err := r.record(state.Entry{Kind: state.EntryStep, Node: cn.n.ID, Fingerprint: cn.fp, Value: out}); err != nil {
		return 0, err
	}
	if err := r.checkpoint(); err != nil {
		return 0, err
	}
	v, err := decodeJSON(out, cn.action.Spec.Output)
	if err != nil {
		return 0, fmt.Errorf("decode output: %w", err)
	}
	r.vars[cn.n.ID] = v
	return cn.next, nil
}

// detaches reports whether the round hands the run over to a task at cn
// instead of running it: a long step the journal does not hold, in a
// round that may detach.
func (r *runner) detaches(cn *cnode) bool {
	return cn.long && r.req.Detach != nil && r.pos >= len(r.journal)
}

// detach ends the round before the long step cn: the task goes on from
// the state as of now, this round counted.
func (r *runner) detach(cn *cnode) (*Result, error) {
	token, err := r.seal(r.number, nil, r.req.Detach.TTL)
	if err != nil {
		return nil, err
	}
	return &Result{Detached: &Detached{State: token, Node: r.key(cn)}}, nil
}

// checkpoint hands Request.Checkpoint the state as of the step just
// journaled, sealed as the round began (its number and no questions
// pending: any the round answered are journaled before its steps).
func (r *runner) checkpoint() error {
	if r.req.Checkpoint == nil {
		return nil
	}
	token, err := r.seal(r.number-1, nil, r.req.StateTTL)
	if err != nil {
		return err
	}
	if err := r.req.Checkpoint(token); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// stepFailed binds `error` and goes to the step's on_error node.
func (r *runner) stepFailed(cn *cnode, msg string) (int, error) {
	if cn.onError < 0 {
		return 0, fmt.Errorf("%s failed: %s", cn.action.Name, msg)
	}
	r.vars[varError] = msg
	return cn.onError, nil
}

// with renders the with of a step, call or link node: {} when it has none.
func (r *runner) with(cn *cnode) (map[string]any, error) {
	if cn.with == nil {
		return map[string]any{}, nil
	}
	v, err := cn.with.eval(r.vars)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("with must be a map")
	}
	return m, nil
}

// runAction renders the step's input and runs its action with the timeout and
// retries the flow gives, returning the output as JSON.
func (r *runner) runAction(cn *cnode, pos int) ([]byte, error) {
	in, err := r.with(cn)
	if err != nil {
		return nil, err
	}
	if r.mocks != nil && r.mocks.Step != nil {
		in = cn.action.WithDefaults(in)
		if m := r.mocks.Step(r.key(cn), in); m != nil {
			return r.mocked(cn, in, m)
		}
	}
	ctx := actions.WithCall(r.e.hostContext(r.ctx), actions.Call{RunID: r.runID, Node: r.key(cn), Position: pos, Task: r.req.Task})
	backoff := cn.retry.Backoff
	var lastErr error
	for attempt := 1; attempt <= cn.retry.Attempts; attempt++ {
		if attempt > 1 {
			t := time.NewTimer(backoff)
			select {
			case <-r.ctx.Done():
				t.Stop()
				return nil, r.ctx.Err()
			case <-t.C:
			}
			backoff *= 2
		}
		out, err := r.attempt(ctx, cn, in)
		if err == nil {
			return out, nil
		}
		lastErr = err
		var ve *actions.ValidationError
		if r.ctx.Err() != nil || errors.As(err, &ve) {
			break // invalid input or output does not get better by trying again
		}
	}
	if cn.retry.Attempts > 1 {
		return nil, fmt.Errorf("after %d attempts: %w", cn.retry.Attempts, lastErr)
	}
	return nil, lastErr
}

// attempt runs the action once under the step's timeout (the action
// validates its input and output and turns a panic into an error) and
// encodes its output.
func (r *runner) attempt(ctx context.Context, cn *cnode, in map[string]any) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, cn.timeout)
	defer cancel()
	v, err := cn.action.Run(ctx, in)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && r.ctx.Err() == nil {
			return nil, fmt.Errorf("timed out after %s", cn.timeout)
		}
		return nil, err
	}
	b, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("action %s returned a value that is not JSON: %w", cn.action.Name, err)
	}
	return b, nil
}

// mocked ends a step the way Mocks.Step says, after checking the
// step's input as running the action would.
func (r *runner) mocked(cn *cnode, in map[string]any, m *StepMock) ([]byte, error) {
	if err := cn.action.ValidateInput(in); err != nil {
		return nil, err
	}
	if m.Err != nil {
		return nil, m.Err
	}
	v, err := actions.Normalize(m.Output)
	if err != nil {
		return nil, fmt.Errorf("mocked output of %s: %w", cn.action.Name, err)
	}
	if err := cn.action.ValidateOutput(v); err != nil {
		return nil, fmt.Errorf("mocked output: %w", err)
	}
	b, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mocked output of %s: %w", cn.action.Name, err)
	}
	return b, nil
}
