package serve

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/serve/internal/dispatch"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
	"github.com/flowserve/flowserve/tasks"
)

// Server serves flows as MCP tools. It is safe for concurrent use.
type Server struct {
	opts    Options
	info    wire.ServerInfo // names the server in the lean path's replies
	engine  *flow.Engine
	log     *slog.Logger
	sdkLog  *slog.Logger // for the go-sdk; nil when Options.Logger is
	mcp     *mcp.Server
	metrics *metrics.Metrics
	obs     *observe.Rounds // records the rounds: logs, metrics, spans

	// tokens are the bearer tokens of the last HTTP handler made, for
	// naming callers in the logs.
	tokens atomic.Pointer[Tokens]
	// scoped is set while some served flow requires OAuth scopes.
	scoped atomic.Bool
	// hideTools is HTTPOptions.OAuth.HideTools of the last HTTP handler
	// made, and oauthConf its HTTPOptions.OAuth (for the challenges of
	// tasks/* requests the token lacks scopes for: taskscope.go).
	hideTools atomic.Bool
	oauthConf atomic.Pointer[OAuth]
	// legacy counts the session-era calls in progress, and sessionPOSTs
	// the session-era POST requests being served (a call's reply goes out
	// before its POST ends).
	legacy, sessionPOSTs *gate
	// drainCtx is cancelled when the server starts shutting down: parked
	// session-era calls stop waiting for their answers.
	drainCtx  context.Context
	drain     context.CancelFunc
	drainOnce sync.Once

	mu      sync.RWMutex
	tools   map[string]*flow.Program
	prompts map[string]*flow.Program
	// declared are the declared resources, served the resources (by
	// servedKey), and flowRes the resources of each served program.
	declared []*resources.Resource
	served   map[string]*resources.Resource
	flowRes  map[*flow.Program][]*resources.Resource

	// tasks is the run store, and work the workers that advance its tasks.
	tasks tasks.Store
	work  *dispatch.Workers
	// sealer seals the links of approval pages; pagesServed is set once
	// an HTTP handler serves them.
	sealer      *approvals.Sealer
	pagesServed atomic.Bool
	// versions is the version set runs are pinned with, or nil.
	versions *Versions
}

// New returns a server for the given programs: prompt flows (see
// flow.Program.IsPrompt) are served as prompts, the others as tools.
// Names must be unique across both.
func New(progs []*flow.Program, opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, info: wire.ServerInfo{Name: opts.Name, Version: opts.Version}, engine: opts.Engine, tools: map[string]*flow.Program{}, prompts: map[string]*flow.Program{}, metrics: metrics.New(),
		tasks: opts.Tasks, versions: opts.Versions}
	if s.tasks == nil {
		s.tasks = tasks.NewMemory(opts.Engine.Now)
	}
	sealer, err := approvals.NewSealer(opts.Engine.Codec().Derive("approval links"))
	if err != nil {
		return nil, err
	}
	s.sealer = sealer
	s.obs = observe.New(observe.Options{Logger: opts.Logger, Metrics: s.metrics, Tracer: opts.Tracer, Version: opts.Version})
	s.log = s.obs.Log
	s.sdkLog = observe.SDKLogger(opts.Logger)
	s.legacy = newGate(opts.MaxLegacyCalls, s.metrics.LegacyCalls)
	s.sessionPOSTs = newGate(0, nil)
	s.drainCtx, s.drain = context.WithCancel(context.Background())
	s.mcp = opts.MCP
	if s.mcp == nil {
		s.mcp = s.ownMCP()
	}
	s.mcp.AddReceivingMiddleware(advertiseTasks)
	s.mcp.AddReceivingMiddleware(capInitializeVersion, resourceErrors, s.hideUnpermitted)
	s.mcp.AddSendingMiddleware(captureElicitResults)
	if err := checkDeclared(opts.Resources); err != nil {
		return nil, err
	}
	s.declared = slices.Clone(opts.Resources)
	if err := s.Replace(progs); err != nil {
		return nil, err
	}
	s.work = dispatch.New(dispatch.Options{Store: s.tasks, Workers: opts.TaskWorkers, Poll: opts.PollInterval, Log: s.log, Run: s.advance})
	s.work.Start()
	s.startTending()
	return s, nil
}

// ownMCP makes the go-sdk server of a Server not given one
// (Options.MCP).
func (s *Server) ownMCP() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &mcp.ServerOptions{
		Logger: s.sdkLog,
		Capabilities: &mcp.ServerCapabilities{
			Tools: &mcp.ToolCapabilities{ListChanged: true},
			// Declared even with no prompt flows: the SDK answers
			// prompts/list anyway, and discover stays truthful.
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Completions: &mcp.CompletionCapabilities{},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true},
		},
		CompletionHandler: s.complete,
	})
}

// MCP returns the underlying go-sdk server (Options.MCP, or the Server's
// own), for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Metrics returns the server's metrics, on a registry of its own. The
// HTTP handler serves them at /metrics when HTTPOptions.Metrics is set;
// register more collectors on Metrics().Registry.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// Tools returns the names of the served tools, sorted.
func (s *Server) Tools() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.tools))
}

// Prompts returns the names of the served prompts, sorted.
func (s *Server) Prompts() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.prompts))
}

// program returns the current program of a tool.
func (s *Server) program(name string) (*flow.Program, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.tools[name]
	return p, ok
}

// removedProgram returns the newest program of a tool (or of a prompt)
// that a reload removed and whose version is still kept, for the runs in
// flight on it; nil when there is none or the name is served.
func (s *Server) removedProgram(name string, prompt bool) *flow.Program {
	if s.versions == nil {
		return nil
	}
	p := s.versions.byName(name)
	// A private flow's replaced version is kept for the calls in flight
	// inside it, not served (TestCallsPrivateFlowsNotServed).
	if p == nil || p.IsPrompt() != prompt || p.Private() {
		return nil
	}
	return p
}

// runProgram returns the program a task runs on: the version of its flow
// it began on (version, in hex), found by the version set, or else the
// current program of the tool.
func (s *Server) runProgram(ctx context.Context, tool, version string) (*flow.Program, bool) {
	if v, ok := dsl.ParseVersion(version); ok && s.versions != nil {
		if p, err := s.versions.Program(ctx, tool, v); err == nil {
			return p, true
		}
	}
	return s.program(tool)
}

// prompt returns the current program of a prompt.
func (s *Server) prompt(name string) (*flow.Program, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.prompts[name]
	return p, ok
}

// flowKind names what p is served as, for messages: "tool" or "prompt".
func flowKind(p *flow.Program) string {
	if p.IsPrompt() {
		return "prompt"
	}
	return "tool"
}

// Replace makes progs the served tools and prompts: new and changed flows
// are added, flows no longer present removed, and so are their source and
// diagram resources. Sessions that asked for it are told that the tool,
// prompt or resource list changed.
func (s *Server) Replace(progs []*flow.Program) error {
	tools, prompts, err := byKind(progs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.swapLocked(tools, prompts)
	s.mu.Unlock()
	s.keepVersions(progs)
	return nil
}

// keepVersions records progs, just swapped in, in the version set: runs that
// began on the versions they replace finish on those.
func (s *Server) keepVersions(progs []*flow.Program) {
	if s.versions == nil {
		return
	}
	if err := s.versions.serve(context.Background(), progs); err != nil {
		s.log.Error("cannot keep the flows' versions in the version store: runs in flight may not survive the next reload elsewhere", "err", err)
	}
}

// ReplaceAll replaces the served programs and the declared resources
// together, as one change: a client never sees the new flows with the old
// resources. Nothing changes when either is refused (a name defined
// twice, a resource declared twice). project.Reloader calls it.
func (s *Server) ReplaceAll(progs []*flow.Program, rs []*resources.Resource) error {
	tools, prompts, err := byKind(progs)
	if err != nil {
		return err
	}
	if err := checkDeclared(rs); err != nil {
		return err
	}
	s.mu.Lock()
	s.declared = slices.Clone(rs)
	s.swapLocked(tools, prompts)
	s.mu.Unlock()
	s.keepVersions(progs)
	return nil
}

// byKind indexes progs by name: prompt flows and tools. Private flows
// (expose: false) are neither: other flows call them.
func byKind(progs []*flow.Program) (tools, prompts map[string]*flow.Program, err error) {
	tools, prompts = map[string]*flow.Program{}, map[string]*flow.Program{}
	private := map[string]*flow.Program{}
	for _, p := range progs {
		prev, dup := tools[p.Name()]
		if !dup {
			prev, dup = prompts[p.Name()]
		}
		if !dup {
			prev, dup = private[p.Name()]
		}
		if dup {
			return nil, nil, fmt.Errorf("%s %q is defined twice: %s and %s", flowKind(p), p.Name(), prev.File().Path, p.File().Path)
		}
		switch {
		case p.Private():
			private[p.Name()] = p
		case p.IsPrompt():
			prompts[p.Name()] = p
		default:
			tools[p.Name()] = p
		}
	}
	return tools, prompts, nil
}

// swapLocked serves tools and prompts, telling the SDK what was removed
// and what changed, and syncs the resources. s.mu must be held.
func (s *Server) swapLocked(tools, prompts map[string]*flow.Program) {
	if gone := removed(s.tools, tools); len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	if gone := removed(s.prompts, prompts); len(gone) > 0 {
		s.mcp.RemovePrompts(gone...)
	}
	for _, name := range changed(s.tools, tools) {
		s.mcp.AddTool(toolOf(tools[name]), s.handler(name))
	}
	for _, name := range changed(s.prompts, prompts) {
		s.mcp.AddPrompt(promptOf(prompts[name]), s.promptHandler(name))
	}
	s.tools, s.prompts = tools, prompts
	for _, p := range slices.Concat(slices.Collect(maps.Values(tools)), slices.Collect(maps.Values(prompts))) {
		if len(p.Scopes()) > 0 {
			// It stays set: runs in flight on a flow a reload removed
			// still need its scopes.
			s.scoped.Store(true)
		}
	}
	s.syncResources()
}

// removed lists the names of cur that next does not have.
func removed(cur, next map[string]*flow.Program) []string {
	var gone []string
	for name := range cur {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	return gone
}

// changed lists, sorted, the names of next that cur lacks or holds
// another program for.
func changed(cur, next map[string]*flow.Program) []string {
	var names []string
	for name, p := range next {
		if prev, ok := cur[name]; !ok || prev != p {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Announce tells clients that listen for list changes (sessions, and
// subscriptions/listen streams) that the tool and prompt lists changed, so
// they fetch them again, even though no flow did.
func (s *Server) Announce() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(s.tools)) {
		// Adding a tool again is how the SDK is told to announce.
		s.mcp.AddTool(toolOf(s.tools[name]), s.handler(name))
		break
	}
	for _, name := range slices.Sorted(maps.Keys(s.prompts)) {
		s.mcp.AddPrompt(promptOf(s.prompts[name]), s.promptHandler(name))
		break
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
			return nil, wire.InvalidParams(fmt.Sprintf("unknown tool %q", name))
		}
		if rpcErr := scopeRefusal(sdkPrincipal(req), p); rpcErr != nil {
			return nil, rpcErr
		}
		if s.opts.Host != nil {
			ctx = actions.WithHost(ctx, s.opts.Host)
		}
		modern := wire.ModernVersion(req.Params.Meta) != ""
		if taskMode(p) == dsl.TaskRequired {
			return s.refuseTaskOnly(p, modern)
		}
		if modern {
			return s.callModern(ctx, p, req)
		}
		return s.callLegacy(ctx, p, req)
	}
}

// errorResult is a tool error the model can read.
func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

// roundContext detaches a round of p from the cancellation of the request
// that carries it: a client that gives up mid-round must not cut the round
// between a step's effect and the reply store. The round keeps the
// request's values and gets Options.RoundTimeout as its deadline, or
// Options.MaxWait when it may run long steps that a client with tasks
// would have had as a task (fr cannot detach).
func (s *Server) roundContext(ctx context.Context, p *flow.Program, fr *flow.Request) (context.Context, context.CancelFunc) {
	d := s.opts.RoundTimeout
	if fr.Detach == nil && taskMode(p) != dsl.TaskNever && p.HasLongSteps() {
		d = s.opts.MaxWait
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}
