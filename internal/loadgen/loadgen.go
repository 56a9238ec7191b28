// Package loadgen drives complete 2026-07-28 multi round-trip tool calls
// against an MCP server over Streamable HTTP, from many concurrent virtual
// clients, and reports throughput and round latency. cmd/flowbench is its
// command line.
package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config describes a load run.
type Config struct {
	URL      string          // the MCP endpoint, e.g. http://127.0.0.1:8787/mcp
	Tool     string          // the tool to call
	Args     json.RawMessage // its arguments; empty means {}
	Script   Script          // answers by question id; nil: answer from the schema
	Clients  int             // concurrent virtual clients; default 16
	Runs     int             // stop after this many measured runs (0: use Duration)
	Duration time.Duration   // measure for this long (when Runs is 0); default 10s
	Warmup   time.Duration   // run unmeasured for this long first
	Bearer   string          // optional Authorization: Bearer token
	// MaxRounds bounds the rounds of one run; default 100.
	MaxRounds int
}

// Report is what a load run measured.
type Report struct {
	Tool         string        `json:"tool"`
	Clients      int           `json:"clients"`
	Elapsed      time.Duration `json:"elapsed_ns"`
	Runs         int           `json:"runs"`
	Rounds       int           `json:"rounds"`
	RunsPerSec   float64       `json:"runs_per_sec"`
	RoundsPerSec float64       `json:"rounds_per_sec"`
	P50          time.Duration `json:"p50_ns"`
	P90          time.Duration `json:"p90_ns"`
	P99          time.Duration `json:"p99_ns"`
	Errors       int           `json:"errors"`
	ToolErrors   int           `json:"tool_errors"` // complete results with isError
	BytesPerRnd  float64       `json:"bytes_per_round"`
	FirstError   string        `json:"first_error,omitempty"`
}

// String formats the report for people.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tool %s, %d clients, %s measured\n", r.Tool, r.Clients, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "runs:    %d (%.1f/s)\n", r.Runs, r.RunsPerSec)
	fmt.Fprintf(&b, "rounds:  %d (%.1f/s)\n", r.Rounds, r.RoundsPerSec)
	fmt.Fprintf(&b, "latency: p50 %s  p90 %s  p99 %s (per round)\n", r.P50, r.P90, r.P99)
	fmt.Fprintf(&b, "bytes:   %.0f per round (request + response)\n", r.BytesPerRnd)
	fmt.Fprintf(&b, "errors:  %d (tool errors %d)\n", r.Errors, r.ToolErrors)
	if r.FirstError != "" {
		fmt.Fprintf(&b, "first error: %s\n", r.FirstError)
	}
	return b.String()
}

// worker totals, merged at the end.
type tally struct {
	runs, rounds, errors, toolErrors int
	bytes                            int64
	lat                              []time.Duration
	firstErr                         string
}

// Run drives the load until cfg.Runs runs or cfg.Duration have been
// measured (after the warm-up), or ctx ends.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.URL == "" || cfg.Tool == "" {
		return nil, errors.New("loadgen: a URL and a tool are required")
	}
	if cfg.Clients <= 0 {
		cfg.Clients = 16
	}
	if cfg.Runs <= 0 && cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = 100
	}
	if len(cfg.Args) == 0 {
		cfg.Args = json.RawMessage(`{}`)
	}
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns:        cfg.Clients * 2,
		MaxIdleConnsPerHost: cfg.Clients * 2,
		IdleConnTimeout:     time.Minute,
	}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()

	// Warm-up: unmeasured.
	if cfg.Warmup > 0 {
		wctx, cancel := context.WithTimeout(ctx, cfg.Warmup)
		var wg sync.WaitGroup
		for i := 0; i < cfg.Clients; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var t tally
				for wctx.Err() == nil {
					run(wctx, client, cfg, &t)
				}
			}()
		}
		wg.Wait()
		cancel()
	}

	mctx := ctx
	var cancel context.CancelFunc = func() {}
	if cfg.Runs <= 0 {
		mctx, cancel = context.WithTimeout(ctx, cfg.Duration)
	}
	defer cancel()
	var (
		mu        sync.Mutex
		remaining = cfg.Runs
		tallies   = make([]tally, cfg.Clients)
		wg        sync.WaitGroup
	)
	take := func() bool {
		if cfg.Runs <= 0 {
			return mctx.Err() == nil
		}
		mu.Lock()
		defer mu.Unlock()
		if remaining <= 0 || mctx.Err() != nil {
			return false
		}
		remaining--
		return true
	}
	start := time.Now()
	for i := 0; i < cfg.Clients; i++ {
		wg.Add(1)
		go func(t *tally) {
			defer wg.Done()
			for take() {
				run(mctx, client, cfg, t)
			}
		}(&tallies[i])
	}
	wg.Wait()
	elapsed := time.Since(start)

	rep := &Report{Tool: cfg.Tool, Clients: cfg.Clients, Elapsed: elapsed}
	var all []time.Duration
	var bytes int64
	for _, t := range tallies {
		rep.Runs += t.runs
		rep.Rounds += t.rounds
		rep.Errors += t.errors
		rep.ToolErrors += t.toolErrors
		bytes += t.bytes
		all = append(all, t.lat...)
		if rep.FirstError == "" {
			rep.FirstError = t.firstErr
		}
	}
	secs := elapsed.Seconds()
	rep.RunsPerSec = float64(rep.Runs) / secs
	rep.RoundsPerSec = float64(rep.Rounds) / secs
	if rep.Rounds > 0 {
		rep.BytesPerRnd = float64(bytes) / float64(rep.Rounds)
	}
	slices.Sort(all)
	rep.P50, rep.P90, rep.P99 = percentile(all, 50), percentile(all, 90), percentile(all, 99)
	return rep, nil
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	if i > 0 {
		i--
	}
	return sorted[i]
}

// rpcResult is the part of a tools/call reply the generator reads.
type rpcResult struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result *struct {
		ResultType    string `json:"resultType"`
		IsError       bool   `json:"isError"`
		RequestState  string `json:"requestState"`
		InputRequests map[string]struct {
			Method string `json:"method"`
			Params struct {
				Mode            string         `json:"mode"`
				RequestedSchema map[string]any `json:"requestedSchema"`
			} `json:"params"`
		} `json:"inputRequests"`
	} `json:"result"`
}

// run performs one complete run: rounds until the call completes.
func run(ctx context.Context, client *http.Client, cfg Config, t *tally) {
	var (
		state     string
		responses map[string]json.RawMessage
		asked     = map[string]int{}
	)
	for round := 1; round <= cfg.MaxRounds; round++ {
		if ctx.Err() != nil {
			return
		}
		body := requestBody(round, cfg, state, responses)
		began := time.Now()
		res, n, err := post(ctx, client, cfg, body)
		lat := time.Since(began)
		if ctx.Err() != nil {
			return // the measurement ended mid-round: not counted
		}
		t.rounds++
		t.lat = append(t.lat, lat)
		t.bytes += int64(len(body) + n)
		if err == nil && res.Error != nil {
			err = fmt.Errorf("JSON-RPC error %d: %s", res.Error.Code, res.Error.Message)
		}
		if err == nil && res.Result == nil {
			err = errors.New("reply has neither result nor error")
		}
		if err != nil {
			t.errors++
			if t.firstErr == "" {
				t.firstErr = err.Error()
			}
			return
		}
		r := res.Result
		if r.ResultType != "input_required" {
			t.runs++
			if r.IsError {
				t.toolErrors++
			}
			return
		}
		state = r.RequestState
		responses = make(map[string]json.RawMessage, len(r.InputRequests))
		for id, q := range r.InputRequests {
			if a, ok := cfg.Script.answer(id, asked[id]); ok {
				responses[id] = a
			} else if q.Params.Mode == "url" {
				responses[id] = json.RawMessage(`{"action":"accept"}`)
			} else {
				responses[id] = AutoAnswer(q.Params.RequestedSchema)
			}
			asked[id]++
		}
	}
	t.errors++
	if t.firstErr == "" {
		t.firstErr = fmt.Sprintf("no result after %d rounds", cfg.MaxRounds)
	}
}

func requestBody(id int, cfg Config, state string, responses map[string]json.RawMessage) []byte {
	params := map[string]any{
		"name":      cfg.Tool,
		"arguments": cfg.Args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "flowbench", "version": "1"},
		},
	}
	if state != "" {
		params["requestState"] = state
	}
	if responses != nil {
		params["inputResponses"] = responses
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	return b
}

// post sends one round and decodes the reply, JSON or SSE.
func post(ctx context.Context, client *http.Client, cfg Config, body []byte) (*rpcResult, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", cfg.Tool)
	if cfg.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Bearer)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, len(data), err
	}
	payload := data
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		payload = nil
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				d = bytes.TrimSpace(d)
				if bytes.Contains(d, []byte(`"id"`)) && (bytes.Contains(d, []byte(`"result"`)) || bytes.Contains(d, []byte(`"error"`))) {
					payload = d
				}
			}
		}
		if payload == nil {
			return nil, len(data), fmt.Errorf("HTTP %d: no response in the event stream", resp.StatusCode)
		}
	}
	var res rpcResult
	if err := json.Unmarshal(payload, &res); err != nil {
		return nil, len(data), fmt.Errorf("HTTP %d: reply is not JSON-RPC: %.200s", resp.StatusCode, payload)
	}
	return &res, len(data), nil
}
