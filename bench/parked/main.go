// Command parked measures what a session client parked mid-question costs
// flowserve: it starts `flowserve serve` on a flow, opens N 2025-11-25
// sessions over Streamable HTTP, has each call the tool until the server
// sends its elicitation/create (the call is now parked inside the server,
// waiting for the answer), and reports the server's resident memory
// before and after, per parked session (docs/performance.md).
//
//	go run ./bench/parked --flowserve /tmp/flowserve --flow flows/book_meeting.yaml -n 10000
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("flowserve", "flowserve", "the flowserve binary")
	flowFile := flag.String("flow", "flows/book_meeting.yaml", "the flow to serve")
	tool := flag.String("tool", "book_meeting", "the tool to call")
	n := flag.Int("n", 10000, "sessions to park")
	par := flag.Int("parallel", 64, "sessions opened at once")
	flag.Parse()
	if err := run(*bin, *flowFile, *tool, *n, *par); err != nil {
		fmt.Fprintln(os.Stderr, "parked:", err)
		os.Exit(1)
	}
}

func run(bin, flowFile, tool string, n, par int) error {
	cmd := exec.Command(bin, "serve", "--log-level", "error", "--http", "127.0.0.1:0", "--max-sessions", "-1", "--max-legacy-calls", "-1", flowFile)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	url, err := endpoint(out)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: par, MaxConnsPerHost: 0, IdleConnTimeout: time.Minute}}

	// Warm up with a few sessions so the baseline includes the server's
	// steady-state overhead, not first-use allocations.
	var warm []io.Closer
	for i := 0; i < 10; i++ {
		c, err := park(client, url, tool)
		if err != nil {
			return fmt.Errorf("warm-up session: %w", err)
		}
		warm = append(warm, c)
	}
	time.Sleep(time.Second)
	before, err := rss(cmd.Process.Pid)
	if err != nil {
		return err
	}

	start := time.Now()
	var (
		mu     sync.Mutex
		parked []io.Closer
		failed atomic.Int64
		first  atomic.Value
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				c, err := park(client, url, tool)
				if err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err.Error())
					continue
				}
				mu.Lock()
				parked = append(parked, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	opened := time.Since(start)
	time.Sleep(2 * time.Second)
	after, err := rss(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("parked %d sessions in %s (%d failed", len(parked), opened.Round(time.Millisecond), failed.Load())
	if f := first.Load(); f != nil {
		fmt.Printf(": %s", f)
	}
	fmt.Printf(")\n")
	fmt.Printf("server RSS: %.1f MiB before, %.1f MiB after: %.1f KiB per parked session\n",
		float64(before)/(1<<20), float64(after)/(1<<20), float64(after-before)/1024/float64(max(len(parked), 1)))
	fmt.Printf("projected for 10,000 sessions: %.0f MiB\n", float64(before)/(1<<20)+float64(after-before)/(1<<20)/float64(max(len(parked), 1))*10000)
	for _, c := range append(parked, warm...) {
		c.Close()
	}
	runtime.KeepAlive(parked)
	if failed.Load() > 0 {
		return fmt.Errorf("%d sessions failed", failed.Load())
	}
	return nil
}

// endpoint reads the server's endpoint URL from its first line of output.
func endpoint(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	re := regexp.MustCompile(`http://\S+/mcp`)
	for sc.Scan() {
		if u := re.FindString(sc.Text()); u != "" {
			go io.Copy(io.Discard, r)
			return u, nil
		}
	}
	return "", fmt.Errorf("flowserve did not print its endpoint")
}

// park opens a session, calls the tool and returns once the server has
// sent elicitation/create on the call's stream; closing the returned
// value ends the session.
func park(client *http.Client, url, tool string) (io.Closer, error) {
	post := func(ctx context.Context, session, body string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		return client.Do(req)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"parked","version":"1"}}}`)
	if err != nil {
		cancel()
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		cancel()
		return nil, fmt.Errorf("initialize: no session id (HTTP %d)", resp.StatusCode)
	}
	resp, err = post(ctx, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		cancel()
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, err = post(ctx, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
	if err != nil {
		cancel()
		return nil, err
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			resp.Body.Close()
			cancel()
			return nil, fmt.Errorf("tools/call stream ended before elicitation/create: %w", err)
		}
		if bytes.Contains(line, []byte(`"elicitation/create"`)) {
			break
		}
	}
	return closer(func() error {
		cancel()
		return resp.Body.Close()
	}), nil
}

type closer func() error

func (c closer) Close() error { return c() }

// rss reads a process's resident set size in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}
