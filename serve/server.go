package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/metrics"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Name and Version identify the server to clients; default
	// "flowserve" and "dev".
	Name, Version string
	// Logger receives the server's logs; nil means slog.Default().
	Logger *slog.Logger
	// Host is given to actions (fs root, HTTP client); nil means none.
	Host *actions.Host
	// LegacyRounds bounds the rounds of one tools/call from a session
	// client (2025-06-18, 2025-11-25); default 100.
	LegacyRounds int
	// RoundTimeout bounds one round of the engine. A round runs to its end
	// even when the client goes away mid-round (so a final step that has
	// run has its result kept in the reply store, and a retry does not
	// run it again); this is its only deadline besides the steps' own.
	// Default DefaultRoundTimeout.
	RoundTimeout time.Duration
	// MaxLegacyCalls bounds the tools/calls of session clients in
	// progress at once, over every transport: each may be parked inside
	// the server waiting for its user's answer. A call over the cap is
	// refused with JSON-RPC error -32000 and the server goes on serving
	// the others. Default DefaultMaxLegacyCalls; negative means no cap.
	MaxLegacyCalls int
}

// DefaultRoundTimeout is Options.RoundTimeout when it is zero.
const DefaultRoundTimeout = 10 * time.Minute

// DefaultMaxLegacyCalls is Options.MaxLegacyCalls when it is zero.
const DefaultMaxLegacyCalls = 4096

// codeServerBusy is the JSON-RPC error (in the range JSON-RPC leaves to
// servers) of a session-era call over Options.MaxLegacyCalls.
const codeServerBusy = -32000

// Server serves flows as MCP tools. It is safe for concurrent use.
type Server struct {
	opts    Options
	log     *slog.Logger
	sdkLog  *slog.Logger // for the go-sdk; nil when Options.Logger is
	mcp     *mcp.Server
	metrics *metrics.Metrics

	// tokens are the bearer tokens of the last HTTP handler made, for
	// naming callers in the logs.
	tokens atomic.Pointer[Tokens]
	// legacy counts the session-era calls in progress, and sessionPOSTs
	// the session-era POST requests being served (a call's reply goes out
	// before its POST ends).
	legacy, sessionPOSTs *gate
	// drainCtx is cancelled when the server starts shutting down: parked
	// session-era calls stop waiting for their answers.
	drainCtx  context.Context
	drain     context.CancelFunc
	drainOnce sync.Once

	mu    sync.RWMutex
	tools map[string]*flow.Program
}

// New returns a server for the given programs. Tool names must be unique.
func New(progs []*flow.Program, opts Options) (*Server, error) {
	if opts.Name == "" {
		opts.Name = "flowserve"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.RoundTimeout <= 0 {
		opts.RoundTimeout = DefaultRoundTimeout
	}
	if opts.LegacyRounds <= 0 {
		opts.LegacyRounds = 100
	}
	if opts.MaxLegacyCalls == 0 {
		opts.MaxLegacyCalls = DefaultMaxLegacyCalls
	}
	s := &Server{opts: opts, log: opts.Logger, tools: map[string]*flow.Program{}, metrics: metrics.New()}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.sdkLog = sdkLogger(opts.Logger)
	s.legacy = newGate(opts.MaxLegacyCalls, s.metrics.LegacyCalls)
	s.sessionPOSTs = newGate(0, nil)
	s.drainCtx, s.drain = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Logger: s.sdkLog,
		Capabilities: &mcp.ServerCapabilities{
			Tools: &mcp.ToolCapabilities{ListChanged: true},
			// The SDK answers prompts/list (with no prompts) whatever is
			// declared; declaring it keeps discover truthful.
			Prompts:     &mcp.PromptCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		// Flows have no prompt or resource arguments to complete yet.
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
	})
	s.mcp.AddReceivingMiddleware(capInitializeVersion)
	s.mcp.AddSendingMiddleware(captureElicitResults)
	if err := s.Replace(progs); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP returns the underlying go-sdk server, for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Metrics returns the server's metrics, on a registry of its own. The
// HTTP handler serves them at /metrics when HTTPOptions.Metrics is set;
// register more collectors on Metrics().Registry.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// Tools returns the names of the served tools, sorted.
func (s *Server) Tools() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// program returns the current program of a tool.
func (s *Server) program(name string) (*flow.Program, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.tools[name]
	return p, ok
}

// Replace makes progs the served tools: new and changed flows are added,
// flows no longer present removed. Sessions that asked for it are told
// that the tool list changed.
func (s *Server) Replace(progs []*flow.Program) error {
	next := map[string]*flow.Program{}
	for _, p := range progs {
		if prev, dup := next[p.Name()]; dup {
			return fmt.Errorf("tool %q is defined twice: %s and %s", p.Name(), prev.File().Path, p.File().Path)
		}
		next[p.Name()] = p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for name := range s.tools {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	names := make([]string, 0, len(next))
	for n := range next {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p := next[name]
		if prev, ok := s.tools[name]; ok && prev == p {
			continue
		}
		s.mcp.AddTool(toolOf(p), s.handler(name))
	}
	s.tools = next
	return nil
}

// Announce tells clients that listen for list changes (sessions, and
// subscriptions/listen streams) that the tool list changed, so they fetch
// it again, even though no tool did.
func (s *Server) Announce() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(s.tools)) {
		// Adding a tool again is how the SDK is told to announce.
		s.mcp.AddTool(toolOf(s.tools[name]), s.handler(name))
		return
	}
}

// toolOf describes a program as an MCP tool.
func toolOf(p *flow.Program) *mcp.Tool {
	t := &mcp.Tool{
		Name:        p.Name(),
		Title:       p.Title(),
		Description: p.Description(),
		InputSchema: p.InputSchema(),
	}
	if out := p.OutputSchema(); out != nil {
		t.OutputSchema = out
	}
	return t
}

// handler returns the tools/call handler of a tool. It looks the program
// up on each call, so a replaced flow serves the next call.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p, ok := s.program(name)
		if !ok {
			return nil, invalidParams(fmt.Sprintf("unknown tool %q", name))
		}
		if s.opts.Host != nil {
			ctx = actions.WithHost(ctx, s.opts.Host)
		}
		if modernVersion(req.Params.Meta) != "" {
			return s.callModern(ctx, p, req)
		}
		return s.callLegacy(ctx, p, req)
	}
}

// errorResult is a tool error the model can read.
func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

// failure turns an engine error that is not a protocol error into an
// error result; the round's log names the error.
func failure(p *flow.Program, err error) *flow.ToolResult {
	msg := err.Error()
	var re *flow.RunError
	if !errors.As(err, &re) {
		msg = fmt.Sprintf("the %s tool failed: %v", p.Name(), err)
	}
	return &flow.ToolResult{Content: []map[string]any{{"type": "text", "text": msg}}, IsError: true}
}

// runFailure is failure as an SDK result.
func runFailure(p *flow.Program, err error) *mcp.CallToolResult {
	res, _ := toolResult(failure(p, err))
	return res
}

// roundContext detaches a round from the cancellation of the request that
// carries it: a client that gives up mid-round must not cut the round
// between a step's effect and the reply store. The round keeps the
// request's values and gets Options.RoundTimeout as its deadline.
func (s *Server) roundContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), s.opts.RoundTimeout)
}
