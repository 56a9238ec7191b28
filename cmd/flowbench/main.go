// Command flowbench is a load generator for MCP servers: concurrent virtual
// clients complete whole 2026-07-28 multi round-trip tool calls over
// Streamable HTTP, answering each form from its schema (or from a script),
// and flowbench reports runs/s, rounds/s, round latency percentiles,
// errors and bytes per round.
//
//	flowbench --url http://127.0.0.1:8787/mcp --tool signup -c 16 --duration 10s --warmup 2s
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/flowserve/flowserve/internal/loadgen"
)

func main() {
	os.Exit(run())
}

func run() int {
	var (
		cfg     loadgen.Config
		args    string
		answers string
		format  string
	)
	flag.StringVar(&cfg.URL, "url", "http://127.0.0.1:8787/mcp", "MCP endpoint")
	flag.StringVar(&cfg.Tool, "tool", "", "tool to call (required)")
	flag.StringVar(&args, "args", "{}", "tool arguments as JSON")
	flag.StringVar(&answers, "answers", "", `JSON file mapping question ids to lists of answers, e.g. {"confirm": [{"action":"accept","content":{"ok":true}}]}; unlisted questions are answered from their schema`)
	flag.IntVar(&cfg.Clients, "c", 16, "concurrent virtual clients")
	flag.IntVar(&cfg.Runs, "runs", 0, "measure this many complete runs (0: use --duration)")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "measure for this long")
	flag.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "run unmeasured for this long first")
	flag.StringVar(&cfg.Bearer, "bearer", "", "send Authorization: Bearer TOKEN")
	flag.StringVar(&format, "format", "text", "report format: text or json")
	flag.Parse()
	if cfg.Tool == "" || flag.NArg() > 0 || (format != "text" && format != "json") {
		flag.Usage()
		return 2
	}
	if !json.Valid([]byte(args)) {
		fmt.Fprintln(os.Stderr, "flowbench: --args is not valid JSON")
		return 2
	}
	cfg.Args = json.RawMessage(args)
	if answers != "" {
		data, err := os.ReadFile(answers)
		if err != nil {
			fmt.Fprintf(os.Stderr, "flowbench: %v\n", err)
			return 2
		}
		if cfg.Script, err = loadgen.ParseScript(data); err != nil {
			fmt.Fprintf(os.Stderr, "flowbench: %v\n", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := loadgen.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "flowbench: %v\n", err)
		return 1
	}
	if format == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		fmt.Print(rep)
	}
	if rep.Errors > 0 {
		return 1
	}
	return 0
}
