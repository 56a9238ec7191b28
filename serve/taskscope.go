package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/tasks"
)

// A task's flow may require OAuth scopes (auth: {scopes: [...]}); the
// call that started the task was checked for them, and so is every
// tasks/get, tasks/update and tasks/cancel of it, against the token of
// that request: a token that lost a scope since no longer reads, answers
// or cancels the task. The check comes after the task is found to be the
// caller's (a task of another caller stays an unknown task, whatever the
// token), and is answered as tools/call is: HTTP 403 insufficient_scope
// with a WWW-Authenticate challenge naming every scope the flow needs.

// taskScopeError refuses a tasks/* request whose OAuth token lacks a scope
// the flow of its task requires.
type taskScopeError struct {
	prog    *flow.Program
	caller  *oauth.Principal
	missing []string
}

func (e *taskScopeError) Error() string {
	return fmt.Sprintf("Forbidden: the %s %s needs the scopes %s; the access token lacks %s",
		e.prog.Name(), flowKind(e.prog), strings.Join(e.prog.Scopes(), " "), strings.Join(e.missing, " "))
}

// taskScopes returns the error refusing the caller of ctx task t, when
// its OAuth token lacks a scope t's flow requires: the flow at the version
// the task runs on (runProgram), or the newest version a reload removed.
// nil when the token grants them all, or when the server checks no OAuth
// tokens. A flow that cannot be found any more cannot say what it
// requires, so the request is refused then (-32603).
func (s *Server) taskScopes(ctx context.Context, t *tasks.Task) error {
	caller := authenticated(ctx)
	if caller == nil {
		return nil
	}
	p, ok := s.runProgram(ctx, t.Tool, t.Version)
	if !ok {
		p = s.removedProgram(t.Tool, false)
	}
	if p == nil {
		s.log.Warn("tasks request refused: the task's tool is no longer served, so its scopes cannot be checked", "task", t.ID, "tool", t.Tool)
		return &jsonrpc.Error{Code: wire.CodeInternalError,
			Message: fmt.Sprintf("the %s tool is no longer served, so the scopes its task needs cannot be checked", t.Tool)}
	}
	if missing := caller.Missing(p.Scopes()); len(missing) > 0 {
		return &taskScopeError{prog: p, caller: caller, missing: missing}
	}
	return nil
}

// writeTaskError answers a tasks/* request with err: a *taskScopeError
// as checkOAuth answers a call the token lacks scopes for (403 with a
// challenge), a *jsonrpc.Error as it is, anything else as -32603.
func (s *Server) writeTaskError(w http.ResponseWriter, r *http.Request, id json.RawMessage, err error) {
	var denied *taskScopeError
	if errors.As(err, &denied) {
		s.refuseTaskScopes(w, r, id, denied)
		return
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		rpcErr = &jsonrpc.Error{Code: wire.CodeInternalError, Message: err.Error()}
	}
	wire.WriteError(w, wire.StatusOf(rpcErr.Code), id, rpcErr)
}

// refuseTaskScopes answers 403 insufficient_scope, with the challenge
// naming every scope the task's flow needs and the resource metadata of
// the HTTP handler's OAuth configuration.
func (s *Server) refuseTaskScopes(w http.ResponseWriter, r *http.Request, id json.RawMessage, e *taskScopeError) {
	s.metrics.Rejected.WithLabelValues(metrics.RejectScope).Inc()
	s.log.Info("tasks request refused: the token lacks scopes", flowKind(e.prog), e.prog.Name(), "sub", e.caller.Subject,
		"missing", strings.Join(e.missing, " "))
	o := s.oauthConf.Load()
	if o == nil {
		wire.WriteError(w, http.StatusForbidden, id, &jsonrpc.Error{Code: wire.CodeInvalidRequest, Message: e.Error()})
		return
	}
	writeChallenge(w, http.StatusForbidden, oauth.Challenge{ResourceMetadata: oauth.MetadataURL(s.resource(o, r)), Scopes: e.prog.Scopes(),
		Error: oauth.ErrorInsufficientScope, Description: "the " + e.prog.Name() + " " + flowKind(e.prog) + " needs the scopes " + strings.Join(e.prog.Scopes(), " ")},
		e.Error())
}
