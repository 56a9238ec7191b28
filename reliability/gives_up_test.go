package reliability

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
)

// TestClientGivesUpDuringFinalStep: a client that gives
// up while the final step runs, then sends the final round again, must not
// make the final step run twice: the round runs to its end although the
// request was cancelled, and its result is kept in the reply store.
func TestClientGivesUpDuringFinalStep(t *testing.T) {
	var calls atomic.Int64
	reg := actions.NewRegistry()
	if err := reg.Register(actions.Spec{Name: "test.slow_effect", Summary: "acts, then waits for its provider's answer",
		Input:  map[string]any{"type": "object"},
		Output: map[string]any{"type": "object", "properties": map[string]any{"calls": map[string]any{"type": "integer"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			n := calls.Add(1)                  // the effect happens
			time.Sleep(300 * time.Millisecond) // the provider answers late
			return map[string]any{"calls": n}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	for _, redisURL := range []string{"", startRedis(t)} {
		calls.Store(0)
		in := startInstance(t, "a", config{files: []string{filepath.Join("testdata", "slow_final.yaml")}, ring: ring(t, testKey("k", 1)), redisURL: redisURL, actions: reg})
		cl := newClient(t, 2)
		ctx := context.Background()
		first, err := cl.do(ctx, in.URL(), call{Tool: "slow_final", Args: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		final := call{Tool: "slow_final", Args: map[string]any{}, State: first.RequestState,
			Responses: map[string]json.RawMessage{"ok": answer(map[string]any{"yes": true})}}
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err = cl.do(short, in.URL(), final) // the client gives up
		cancel()
		if err == nil {
			t.Fatal("the client did not give up")
		}
		time.Sleep(400 * time.Millisecond)
		res, err := cl.do(ctx, in.URL(), final)
		if err != nil {
			t.Fatal(err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("store %q: the final step ran %d times (retry got %q), want 1", redisURL, n, res.text())
		}
	}
}
