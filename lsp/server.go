package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Actions resolves step actions, for lint, completion and hover; nil
	// means actions.Default().
	Actions *actions.Registry
	// Debounce is how long the server waits after a change before it
	// lints; zero means DefaultDebounce.
	Debounce time.Duration
	// Version is the version the server reports in serverInfo.
	Version string
	// Log receives what the server cannot tell the client (a broken
	// message, a failed write); nil discards it.
	Log *log.Logger

	// onLint, when set, is called after each lint run that published
	// (tests and benchmarks wait on it).
	onLint func(uri string)
}

// DefaultDebounce is how long the server waits after a change before it
// lints, when Options.Debounce is zero.
const DefaultDebounce = 200 * time.Millisecond

// ErrNoShutdown is what Serve returns when the input ended, or the client
// sent exit, without a shutdown request first: the protocol's exit code 1.
var ErrNoShutdown = errors.New("the client did not ask the server to shut down first")

// Server is a language server for flow files. Serve one connection with
// it; it is not reusable.
type Server struct {
	opts Options
	out  *writer

	wsMu   sync.Mutex
	scopes map[string][]string // the scope of each document linted, by path (see scopeOf)
	spaces map[string]*space   // the workspaces of the scopes, by their paths joined

	mu          sync.Mutex
	docs        map[string]*document
	initialized bool
	shutdown    bool

	pubMu    sync.Mutex    // serializes publishing, so a stale run never overtakes
	lintTurn chan struct{} // one lint run at a time
}

// New returns a server.
func New(opts Options) *Server {
	if opts.Actions == nil {
		opts.Actions = actions.Default()
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	return &Server{opts: opts, scopes: map[string][]string{}, spaces: map[string]*space{}, docs: map[string]*document{}, lintTurn: make(chan struct{}, 1)}
}

// Serve reads messages from r and writes replies and notifications to w
// until the client sends exit, the input ends or ctx is done. It returns
// nil after shutdown and exit, ErrNoShutdown when the client stopped
// without asking for shutdown, or the error that ended the connection.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s.out = &writer{w: w}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // the reader stops handing on messages
	defer s.closeAll()
	msgs := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		br := bufio.NewReader(r)
		for {
			body, err := readFrame(br)
			if err != nil {
				errc <- err
				return
			}
			select {
			case msgs <- body:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if errors.Is(err, io.EOF) {
				return s.exitError()
			}
			return err
		case body := <-msgs:
			if s.handle(body) {
				return s.exitError()
			}
		}
	}
}

// exitError is what Serve returns when the connection ends.
func (s *Server) exitError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return nil
	}
	return ErrNoShutdown
}

// closeAll stops the pending lint runs.
func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		d.lint++
		if d.timer != nil {
			d.timer.Stop()
		}
	}
}

// handle handles one message and reports whether it was exit.
func (s *Server) handle(body []byte) (exit bool) {
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		// Without an id there is no one to answer: a reply would have
		// none either, which clients take for a broken peer.
		s.opts.Log.Printf("dropped a message: %v", err)
		return false
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false // a response: the server sends no requests
	}
	if req.Method == "exit" {
		return true
	}
	result, rerr := s.dispatch(req)
	if req.IsCall() {
		s.reply(req.ID, result, rerr)
	}
	return false
}

// dispatch runs the handler of req's method. A handler that panics is an
// internal error, not the end of the server.
func (s *Server) dispatch(req *jsonrpc.Request) (result any, rerr *jsonrpc.Error) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.Log.Printf("%s panicked: %v", req.Method, p)
			result, rerr = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s failed: %v", req.Method, p)}
		}
	}()
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case req.Method == "initialize":
		return s.initialize(req.Params)
	case !initialized:
		if !req.IsCall() {
			return nil, nil
		}
		return nil, &jsonrpc.Error{Code: codeServerNotInitialized, Message: "the server is not initialized"}
	case shutdown && req.IsCall():
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the server is shut down"}
	}
	h, ok := handlers[req.Method]
	if !ok {
		if req.IsCall() {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no method " + req.Method}
		}
		return nil, nil // notifications the server does not need
	}
	return h(s, req.Params)
}

// handler handles the params of one method.
type handler func(s *Server, params json.RawMessage) (any, *jsonrpc.Error)

// handlers are the methods the server implements, besides initialize and
// exit.
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"initialized":                func(*Server, json.RawMessage) (any, *jsonrpc.Error) { return nil, nil },
		"shutdown":                   (*Server).shutdownRequest,
		"textDocument/didOpen":       notification((*Server).didOpen),
		"textDocument/didChange":     notification((*Server).didChange),
		"textDocument/didClose":      notification((*Server).didClose),
		"textDocument/completion":    request((*Server).completion),
		"textDocument/hover":         request((*Server).hover),
		"textDocument/definition":    request((*Server).definition),
		"textDocument/prepareRename": request((*Server).prepareRename),
		"textDocument/rename":        request((*Server).rename),
		"textDocument/codeAction":    request((*Server).codeAction),
		"workspace/didChangeWatchedFiles": func(s *Server, _ json.RawMessage) (any, *jsonrpc.Error) {
			s.relintAll()
			return nil, nil
		},
	}
}

// request adapts a typed request handler.
func request[P any, R any](f func(s *Server, p *P) (R, error)) handler {
	return func(s *Server, raw json.RawMessage) (any, *jsonrpc.Error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			return nil, err
		}
		r, err := f(s, p)
		if err != nil {
			return nil, &jsonrpc.Error{Code: codeRequestFailed, Message: err.Error()}
		}
		return r, nil
	}
}

// notification adapts a typed notification handler.
func notification[P any](f func(s *Server, p *P) error) handler {
	return func(s *Server, raw json.RawMessage) (any, *jsonrpc.Error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			s.opts.Log.Printf("%s", err.Message)
			return nil, err
		}
		if err := f(s, p); err != nil {
			s.opts.Log.Printf("%v", err)
		}
		return nil, nil
	}
}

// decodeParams decodes raw into p.
func decodeParams(raw json.RawMessage, p any) *jsonrpc.Error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return nil
}

// reply answers the call id.
func (s *Server) reply(id jsonrpc.ID, result any, rerr *jsonrpc.Error) {
	resp := &jsonrpc.Response{ID: id}
	if rerr != nil {
		resp.Error = rerr
	} else {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "encoding the result: " + err.Error()}
		}
		resp.Result = b
	}
	if err := s.out.write(resp); err != nil {
		s.opts.Log.Printf("%v", err)
	}
}

// notify sends a notification.
func (s *Server) notify(method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		s.opts.Log.Printf("encoding %s: %v", method, err)
		return
	}
	if err := s.out.write(&jsonrpc.Request{Method: method, Params: b}); err != nil {
		s.opts.Log.Printf("%v", err)
	}
}

// initialize answers the initialize request with the capabilities.
func (s *Server) initialize(raw json.RawMessage) (any, *jsonrpc.Error) {
	var p InitializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	return InitializeResult{
		Capabilities: ServerCapabilities{
			PositionEncoding:   "utf-16",
			TextDocumentSync:   TextDocumentSyncOptions{OpenClose: true, Change: 2},
			CompletionProvider: CompletionOptions{TriggerCharacters: []string{".", " "}},
			HoverProvider:      true,
			DefinitionProvider: true,
			RenameProvider:     RenameOptions{PrepareProvider: true},
			CodeActionProvider: CodeActionOptions{CodeActionKinds: []string{"quickfix"}},
		},
		ServerInfo: ServerInfo{Name: "flowserve", Version: s.opts.Version},
	}, nil
}

// shutdownRequest answers shutdown: the server then refuses requests
// until exit.
func (s *Server) shutdownRequest(json.RawMessage) (any, *jsonrpc.Error) {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.closeAll()
	return nil, nil
}
