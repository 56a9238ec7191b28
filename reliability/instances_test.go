package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/loadgen"
)

// script answers a run's questions: by ask id, the answers to give in
// turn (the last one repeats). A URL ask with no script is accepted; a
// form with no script gets loadgen.AutoAnswer; sampling and roots
// requests get a fixed reply.
type script map[string][]map[string]any

// roundRobin completes a call sending round k to urls[k % len(urls)], so
// consecutive rounds never reach the same instance. It returns the final
// round's request, its result and the number of rounds.
func roundRobin(ctx context.Context, cl *client, urls []string, tool string, args any, sc script) (call, *result, int, error) {
	c := call{Tool: tool, Args: args}
	asked := map[string]int{}
	for round := 0; round < 20; round++ {
		res, err := cl.do(ctx, urls[round%len(urls)], c)
		if err != nil {
			return c, nil, round + 1, fmt.Errorf("round %d on instance %d: %w", round+1, round%len(urls), err)
		}
		if res.complete() {
			return c, res, round + 1, nil
		}
		next := call{Tool: tool, Args: args, State: res.RequestState, Responses: map[string]json.RawMessage{}}
		for id, q := range res.InputRequests {
			switch list := sc[id]; {
			case q.Method == "sampling/createMessage":
				next.Responses[id] = json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"A brief."},"model":"test-model"}`)
			case q.Method == "roots/list":
				next.Responses[id] = json.RawMessage(`{"roots":[{"uri":"file:///src/project","name":"project"}]}`)
			case len(list) > 0:
				next.Responses[id] = answer(list[min(asked[id], len(list)-1)])
			case q.Params.Mode == "url":
				next.Responses[id] = json.RawMessage(`{"action":"accept"}`)
			default:
				next.Responses[id] = loadgen.AutoAnswer(q.Params.RequestedSchema)
			}
			asked[id]++
		}
		c = next
	}
	return c, nil, 20, errors.New("no result after 20 rounds")
}

// exampleCase is how a test drives one example flow and what it expects.
type exampleCase struct {
	args   map[string]any
	script script
	want   string // in the final text
	setup  func(t *testing.T, root string)
	check  func(t *testing.T, root string)
}

// approvals are the example flows whose questions someone other than the
// caller answers.
var approvals = map[string]bool{"refund_approval": true}

// private are the example flows that are no tools of their own (expose:
// false): the flows that call them drive them.
var private = map[string]bool{"confirm_action": true}

func exampleCases() map[string]exampleCase {
	return map[string]exampleCase{
		"book_meeting": {
			script: script{
				"meeting": {{"topic": "Design review", "attendees": 3, "day": "2026-12-01"}},
				"room":    {{"room": "small"}},
				"confirm": {{"book": true}},
			},
			want: `Booked the small room on 2026-12-01 for "Design review".`,
		},
		"delete_file": {
			args:   map[string]any{"path": "notes.txt"},
			script: script{"confirm": {{"proceed": true}}},
			want:   "Deleted notes.txt.",
			setup: func(t *testing.T, root string) {
				if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("old notes"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, root string) {
				if _, err := os.Stat(filepath.Join(root, "notes.txt")); !os.IsNotExist(err) {
					t.Errorf("notes.txt is still there (%v)", err)
				}
			},
		},
		"expense_approval": {
			args: map[string]any{"description": "Team dinner", "amount": 900},
			script: script{
				"decision": {{"decision": "revise"}, {"decision": "approve"}},
				"revised":  {{"amount": 450}},
			},
			want: "Filed 450 EUR for Team dinner (receipt ",
		},
		"github_signin": {
			args:   map[string]any{"body": "It crashes on start."},
			script: script{"issue": {{"repository": "acme/widgets", "title": "Crash on start"}}},
			want:   `Would open "Crash on start" (bug) in acme/widgets: It crashes on start.`,
		},
		"project_brief": {
			script: script{"about": {{"name": "flowserve", "goal": "Serve MCP tools as YAML flows"}}},
			want:   "flowserve: A brief.",
		},
		"rotate_key": {
			args:   map[string]any{"key": "ci-deploy"},
			script: script{"confirm/ok": {{"proceed": true}}},
			want:   "Rotated ci-deploy: the new key is ",
		},
		"write_file": {
			args:   map[string]any{"path": "draft.txt", "text": "new text"},
			script: script{"confirm/ok": {{"proceed": true}}},
			want:   "Wrote 8 bytes to draft.txt.",
			setup: func(t *testing.T, root string) {
				if err := os.WriteFile(filepath.Join(root, "draft.txt"), []byte("old text"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, root string) {
				if b, err := os.ReadFile(filepath.Join(root, "draft.txt")); err != nil || string(b) != "new text" {
					t.Errorf("draft.txt holds %q (%v), want the new text", b, err)
				}
			},
		},
		"signup": {
			script: script{"details": {{"name": "Ada Lovelace", "email": "ada@example.com", "plan": "team", "seats": 5, "interests": []string{"research"}}}},
			want:   "Signed up Ada Lovelace <ada@example.com> on the team plan with 5 seat(s) for research.",
		},
	}
}

// TestExampleFlowsAcrossInstances runs every example flow against two
// instances sharing a key ring file's keys and a Redis reply store, each
// round on the other instance than the round before; then it sends the
// final round again, to the instance that did not serve it, which answers
// from the shared store without running the last steps again (the
// receipt of expense_approval stays the same, delete_file does not fail
// on a file it already removed).
func TestExampleFlowsAcrossInstances(t *testing.T) {
	url := startRedis(t)
	root := t.TempDir()
	cfg := config{files: exampleFlowFiles(t), ring: ring(t, testKey("main", 1)), redisURL: url, fsRoot: root}
	a, b := startInstance(t, "a", cfg), startInstance(t, "b", cfg)
	urls := []string{a.URL(), b.URL()}
	cl := newClient(t, 4)
	cases := exampleCases()
	for _, file := range cfg.files {
		tool := strings.TrimSuffix(filepath.Base(file), ".yaml")
		if private[tool] {
			continue
		}
		if approvals[tool] {
			// Answered on a page, not round by round:
			// TestApprovalInBrowser and serve's
			// TestApprovalTwoInstancesOnRedis cover them.
			continue
		}
		t.Run(tool, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tc, ok := cases[tool]
			if !ok {
				t.Logf("%s has no case here: answering its forms from their schemas", tool)
			}
			if tc.setup != nil {
				tc.setup(t, root)
			}
			args := tc.args
			if args == nil {
				args = map[string]any{}
			}
			final, res, rounds, err := roundRobin(ctx, cl, urls, tool, args, tc.script)
			if err != nil {
				t.Fatal(err)
			}
			if rounds < 2 {
				t.Fatalf("%s completed in %d round: nothing crossed instances", tool, rounds)
			}
			if ok && (res.IsError || !strings.Contains(res.text(), tc.want)) {
				t.Fatalf("after %d rounds: %q (isError %v), want %q", rounds, res.text(), res.IsError, tc.want)
			}
			if tc.check != nil {
				tc.check(t, root)
			}
			// The final round again, on the instance that did not serve it.
			other := urls[rounds%2]
			again, err := cl.do(ctx, other, final)
			if err != nil {
				t.Fatalf("final round retried on the other instance: %v", err)
			}
			if again.text() != res.text() || again.IsError != res.IsError || !reflect.DeepEqual(again.StructuredContent, res.StructuredContent) {
				t.Fatalf("final round retried on the other instance: %q, want the stored %q", again.text(), res.text())
			}
			t.Logf("%d rounds alternating between instances: %q", rounds, res.text())
		})
	}
}

// TestFinalRetryNeedsSharedStore is the control of the test above: with a
// reply store in memory per instance, a final round retried on the other
// instance runs its last step again (expense_approval mints a second
// receipt), and with the shared Redis store it does not.
func TestFinalRetryNeedsSharedStore(t *testing.T) {
	url := startRedis(t)
	file := filepath.Join("..", "flows", "expense_approval.yaml")
	cases := []struct {
		name     string
		redisURL string
		same     bool // the retry returns the first receipt
	}{
		{"memory per instance", "", false},
		{"shared redis", url, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cfg := config{files: []string{file}, ring: ring(t, testKey("main", 1)), redisURL: tc.redisURL}
			a, b := startInstance(t, "a", cfg), startInstance(t, "b", cfg)
			cl := newClient(t, 2)
			args := map[string]any{"description": "Taxi", "amount": 800}
			final, res, rounds, err := roundRobin(ctx, cl, []string{a.URL(), b.URL()}, "expense_approval", args, script{"decision": {{"decision": "approve"}}})
			if err != nil {
				t.Fatal(err)
			}
			other := []string{a.URL(), b.URL()}[rounds%2]
			again, err := cl.do(ctx, other, final)
			if err != nil {
				t.Fatal(err)
			}
			if same := again.text() == res.text(); same != tc.same {
				t.Fatalf("first %q, retry on the other instance %q: same %v, want %v", res.text(), again.text(), same, tc.same)
			}
		})
	}
}
