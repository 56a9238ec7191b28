package reliability

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow/state"
)

// bookMeeting is the flow the rotation tests run: four rounds.
var bookMeeting = filepath.Join("..", "flows", "book_meeting.yaml")

// bookAnswer answers book_meeting's questions; run makes each run's topic
// its own.
func bookAnswer(id string, run int) json.RawMessage {
	switch id {
	case "meeting":
		return answer(map[string]any{"topic": "Topic " + string(rune('A'+run)), "attendees": 3, "day": "2026-12-01"})
	case "room":
		return answer(map[string]any{"room": "small"})
	default:
		return answer(map[string]any{"book": true})
	}
}

// nextRound builds the request that answers every question of res.
func nextRound(res *result, run int) call {
	c := call{Tool: "book_meeting", Args: map[string]any{}, State: res.RequestState, Responses: map[string]json.RawMessage{}}
	for id := range res.InputRequests {
		c.Responses[id] = bookAnswer(id, run)
	}
	return c
}

// TestKeyRingMatrix checks which rings open which states: a ring opens a
// state when it holds the key that sealed it, whichever key it seals with.
func TestKeyRingMatrix(t *testing.T) {
	url := startRedis(t)
	oldKey, newKey := testKey("old", 1), testKey("new", 101)
	cases := []struct {
		name           string
		sealer, opener []state.Key
		sealedWith     string
		opens          bool
	}{
		{"old state on a rotated ring", []state.Key{oldKey}, []state.Key{newKey, oldKey}, "old", true},
		{"new state on a ring without the new key", []state.Key{newKey, oldKey}, []state.Key{oldKey}, "new", false},
		{"new state on a ring holding the new key second", []state.Key{newKey, oldKey}, []state.Key{oldKey, newKey}, "new", true},
		{"new state on a rotated ring", []state.Key{newKey, oldKey}, []state.Key{newKey, oldKey}, "new", true},
		{"old state after the old key is retired", []state.Key{oldKey}, []state.Key{newKey}, "old", false},
	}
	cl := newClient(t, 2)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sealer := startInstance(t, "sealer", config{files: []string{bookMeeting}, ring: ring(t, tc.sealer...), redisURL: url})
			opener := startInstance(t, "opener", config{files: []string{bookMeeting}, ring: ring(t, tc.opener...), redisURL: url})
			first, err := cl.do(ctx, sealer.URL(), call{Tool: "book_meeting", Args: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if id := keyID(first.RequestState); id != tc.sealedWith {
				t.Fatalf("state sealed with key %q, want %q", id, tc.sealedWith)
			}
			res, err := cl.do(ctx, opener.URL(), nextRound(first, 0))
			switch {
			case tc.opens && err != nil:
				t.Fatalf("the opener refused the state: %v", err)
			case tc.opens && res.RequestState == "":
				t.Fatalf("the opener did not go on: %+v", res)
			case !tc.opens && !invalidParams(err):
				t.Fatalf("the opener answered %+v, %v; want -32602", res, err)
			case !tc.opens && !strings.Contains(err.Error(), "requestState is not valid for this call"):
				t.Fatalf("refusal %q leaks more than that the state is not valid", err)
			}
		})
	}
}

// TestKeyRotationInFlight rotates the key ring of two instances while
// runs are in flight: A and B seal with the old key; B restarts with a
// ring whose first key is new and which still holds the old one; runs
// started on A go on on B; A refuses B's new states until A restarts with
// the rotated ring; every run then completes. Retiring the old key at the
// end refuses the states it sealed, while final rounds retried on the
// rotated instances still get their stored replies.
func TestKeyRotationInFlight(t *testing.T) {
	const runs = 8
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	url := startRedis(t)
	oldKey, newKey := testKey("old", 1), testKey("new", 101)
	before := config{files: []string{bookMeeting}, ring: ring(t, oldKey), redisURL: url}
	rotated := before
	rotated.ring = ring(t, newKey, oldKey)
	retired := before
	retired.ring = ring(t, newKey)
	a, b := startInstance(t, "a", before), startInstance(t, "b", before)
	cl := newClient(t, 4)

	type run struct {
		sent  []call  // the requests of each round so far
		last  *result // the reply to the last one
		final *result // the complete result
	}
	// restart restarts an instance with cfg; the client drops its
	// connections to the old server, as it would on seeing them closed.
	restart := func(in *instance, cfg *config) {
		t.Helper()
		if err := in.restart(0, cfg); err != nil {
			t.Fatal(err)
		}
		cl.http.CloseIdleConnections()
	}
	rs := make([]*run, runs)
	// step sends round len(sent)+1 of run i to url.
	step := func(i int, url string, c call) (*result, error) {
		res, err := cl.do(ctx, url, c)
		if err == nil {
			rs[i].sent = append(rs[i].sent, c)
			rs[i].last = res
		}
		return res, err
	}

	// Round 1 on A: states sealed with the old key.
	for i := range rs {
		rs[i] = &run{}
		res, err := step(i, a.URL(), call{Tool: "book_meeting", Args: map[string]any{}})
		if err != nil || keyID(res.RequestState) != "old" {
			t.Fatalf("run %d, round 1 on A: %+v, %v", i, res, err)
		}
	}
	// B rotates first: its states are sealed with the new key, and it
	// still opens A's.
	restart(b, &rotated)
	for i := range rs {
		res, err := step(i, b.URL(), nextRound(rs[i].last, i))
		if err != nil || keyID(res.RequestState) != "new" {
			t.Fatalf("run %d, round 2 on rotated B: %+v, %v", i, res, err)
		}
	}
	// A has not rotated yet: it refuses B's states, and still serves its
	// own (a client retrying round 2 there after a lost reply).
	for i := range rs {
		if res, err := cl.do(ctx, a.URL(), nextRound(rs[i].last, i)); !invalidParams(err) {
			t.Fatalf("run %d, round 3 on A before its rotation: %+v, %v; want -32602", i, res, err)
		}
		if res, err := cl.do(ctx, a.URL(), rs[i].sent[1]); err != nil || keyID(res.RequestState) != "old" {
			t.Fatalf("run %d, round 2 retried on A before its rotation: %+v, %v", i, res, err)
		}
	}
	// A rotates: the runs go on, alternating instances, and complete.
	restart(a, &rotated)
	for i := range rs {
		res, err := step(i, a.URL(), nextRound(rs[i].last, i))
		if err != nil || keyID(res.RequestState) != "new" {
			t.Fatalf("run %d, round 3 on rotated A: %+v, %v", i, res, err)
		}
		res, err = step(i, b.URL(), nextRound(res, i))
		want := `Booked the small room on 2026-12-01 for "Topic ` + string(rune('A'+i)) + `".`
		if err != nil || !res.complete() || res.text() != want {
			t.Fatalf("run %d, round 4 on B: %+v, %v; want %q", i, res, err, want)
		}
		rs[i].final = res
	}
	// The old key is retired: its states are refused; final rounds
	// (sealed with the new key) retried after the restart get their
	// stored replies.
	restart(b, &retired)
	for i, r := range rs {
		if res, err := cl.do(ctx, b.URL(), r.sent[1]); !invalidParams(err) {
			t.Fatalf("run %d: a state of the retired key was accepted: %+v, %v", i, res, err)
		}
		res, err := cl.do(ctx, b.URL(), r.sent[3])
		if err != nil || res.text() != r.final.text() {
			t.Fatalf("run %d: final round retried after the key was retired: %+v, %v; want %q", i, res, err, r.final.text())
		}
	}
	t.Logf("%d runs completed across a key rotation: started under key \"old\" on A, continued under \"new\" on B, refused by A until it rotated, refused by B once \"old\" was retired", runs)
}
